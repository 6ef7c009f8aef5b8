#!/bin/sh
# order_plot.sh: plot every ordering's CPU time against the c-graph's edges,
# both axes logarithmic (doc/elimination.md, "How the orderings keep their
# keys"), from bench_order's table of Lorenz-63 RK4 tapes.
#
# Usage: bench/order_plot.sh [MAXSTEPS [LIMIT [OUT.svg]]]
#   runs `bench/bench_order MAXSTEPS LIMIT` (defaults 5000 and 60), keeps
#   its table in OUT.txt and draws OUT.svg (default doc/order-growth.svg)
#   with gnuplot (Debian: gnuplot-nox). A run stopped by its limit (L) is
#   plotted at the time it took.
set -eu
steps=${1:-5000}
limit=${2:-60}
out=${3:-doc/order-growth.svg}
dir=$(dirname "$0")
command -v gnuplot >/dev/null || { echo "order_plot.sh: gnuplot is not installed (apt-get install gnuplot-nox)" >&2; exit 1; }
[ -x "$dir/bench_order" ] || { echo "order_plot.sh: build it first: make bench/bench_order" >&2; exit 1; }
table=${out%.svg}.txt
"$dir/bench_order" "$steps" "$limit" | tee "$table"
# One data file: edges, then the seconds of each ordering (the cell's
# number before "L" or " (fma)"; an error is one word, which gnuplot skips).
data=$(mktemp)
trap 'rm -f "$data"' EXIT
awk '!/^#/ && $1 != "steps" {
  printf "%s", $2
  for (i = 3; i <= NF; i++) if ($i !~ /^\(/) { v = $i; sub(/L$/, "", v); printf " %s", v }
  printf "\n"
}' "$table" > "$data"
names=$(awk '$1 == "steps" { for (i = 3; i <= NF; i++) printf "%s ", $i }' "$table")
n=$(echo "$names" | wc -w)
gnuplot <<GP
set terminal svg size 800,560 dynamic font "sans,12"
set output "$out"
set logscale xy
set format x "10^{%L}"
set format y "10^{%L}"
set xlabel "edges of the c-graph (Lorenz-63, RK4 steps)"
set ylabel "CPU seconds (ordering and its comparisons)"
set key left top
set grid
names = "$names"
plot for [i=1:$n] "$data" using 1:(column(i+1)) with linespoints title word(names, i), \
     x / 1e5 * 0.3 with lines dashtype 2 lc rgb "gray" title "slope 1"
GP
echo "order_plot.sh: wrote $out and $table" >&2
