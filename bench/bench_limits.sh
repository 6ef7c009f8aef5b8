#!/bin/sh
# bench_limits.sh: does --time-limit T hold? Every method the CLI accepts
# (orderings, optimizers of each kind, --parts, --stream, missions, compare,
# hessian and codegen methods), run on each tape with --time-limit T, against
# T plus the c-graph's build time.
#
# Usage: bench/bench_limits.sh [-T "1 0.2"] [-a ADELIM] [-m REGEX] TAPE...
#   -m: only the rows whose method matches the grep -E REGEX
#   (from the build directory; `make && (cd examples && ./pde)` writes
#   examples/pde.adt, `bench/bench_order --save 1000 lorenz.adt` a Lorenz
#   tape of 1000 RK4 steps)
#
# The build time B is that of `adelim jacobian --method vertex-reverse`
# (open, c-graph, the trivial order, elimination): a run that stops at T
# still builds the graph and eliminates by a sweep. Each row prints the wall
# and CPU seconds of the whole process and the allowance T + B (wall: B's
# wall, CPU: B's CPU). OVER flags CPU above T + 1.5 B + 0.2 s: CPU time is
# not inflated by other processes, so that is an overrun whatever the load;
# wall? flags wall above 1.5 (T + B) + 0.5 s, which on a loaded machine may
# be the load (compare the CPU column). The Hessian methods take no
# --time-limit (nothing to bound, doc/hessians.md): T unused, marked -. A run
# is killed after 300 s (the row then says so).
adelim=./adelim
limits="1 0.2"
only=
while [ $# -gt 0 ]; do
  case $1 in
  -T) limits=$2; shift 2 ;;
  -a) adelim=$2; shift 2 ;;
  -m) only=$2; shift 2 ;;
  *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "usage: bench_limits.sh [-T \"1 0.2\"] [-a ADELIM] TAPE..." >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_limits.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# "wall cpu" of one run; stdout and stderr go to $tmp/out, $tmp/err.
measure() {
  /usr/bin/time -f "%e %U %S %x" -o "$tmp/time" timeout 300 "$@" >"$tmp/out" 2>"$tmp/err"
  awk '{ printf "%.2f %.2f %d\n", $1, $2 + $3, $4 }' "$tmp/time" | tail -1
}

row() { # LABEL T NAME COMMAND...
  r_label=$1 r_T=$2 r_name=$3
  shift 3
  if [ -n "$only" ] && ! echo "$r_name" | grep -Eq -e "$only"; then return; fi
  set -- $(measure "$@") "$@"
  wall=$1 cpu=$2 rc=$3
  shift 3
  lim=no
  grep -qi 'limit reached\|"limited": *true\|(a search stopped\|stopped by a limit\|^[a-z-]*\* \|^[a-z-]* *[0-9]*\* \|skipped' \
    "$tmp/out" "$tmp/err" && lim=yes
  flag=$(awk -v w="$wall" -v c="$cpu" -v T="$r_T" -v bw="$bw" -v bc="$bc" -v rc="$rc" 'BEGIN {
    f = ""
    if (rc == 124) f = "KILLED"
    else if (rc != 0) f = "rc=" rc " (see below)"
    if (T != "-" && c > T + 1.5 * bc + 0.2) f = f " OVER"
    if (T != "-" && w > 1.5 * (T + bw) + 0.5) f = f " wall?"
    print f }')
  printf "%-12s %-5s %-30s %8s %8s %8.2f %8.2f %-7s %s\n" "$r_label" "$r_T" "$r_name" "$wall" "$cpu" \
    "$(echo "$r_T $bw" | awk '{print $1 + $2}')" "$(echo "$r_T $bc" | awk '{print $1 + $2}')" "$lim" "$flag"
  [ "$rc" = 0 ] || [ "$rc" = 124 ] || sed -n '1s/^/    error: /p' "$tmp/err" | cut -c1-150
}

orderings="vertex-forward vertex-reverse vertex-markowitz vertex-relative edge-forward edge-reverse edge-markowitz
edge-fillin face-forward face-reverse face-greedy auto cpr-forward cpr-reverse"
optimizers="exhaustive-vertex exhaustive-edge exhaustive-face bnb-vertex bnb-edge bnb-face hierarchy-vertex
hierarchy-edge hierarchy-face anneal-vertex anneal-edge dp-bfft dp-bffa dp-bfrt dp-bfra dp-bfft-face"
missions="dense-tangent sparse-tangent greedy-min-fill greedy-cost dp bnb best"

printf "# bench_limits.sh: seconds of the whole adelim process; allowance = T + build (vertex-reverse run)\n"
printf "%-12s %-5s %-30s %8s %8s %8s %8s %-7s %s\n" tape T method wall cpu "T+B wall" "T+B cpu" limited flag
for tape in "$@"; do
  name=$(basename "$tape" .adt)
  set -- $(measure "$adelim" jacobian --method vertex-reverse "$tape")
  bw=$1 bc=$2
  printf "%-12s %-5s %-30s %8s %8s\n" "$name" - "build B (vertex-reverse)" "$bw" "$bc"
  m=$("$adelim" stats --json "$tape" 2>/dev/null | sed -n 's/.*"dependents": *\([0-9]*\).*/\1/p' | head -1)
  w=1
  i=1
  while [ "$i" -lt "${m:-1}" ]; do w="$w,1"; i=$((i + 1)); done
  for T in $limits; do
    for o in $orderings $optimizers; do
      row "$name" "$T" "$o" "$adelim" jacobian --method "$o" --time-limit "$T" "$tape"
    done
    for p in regions repeats auto; do
      row "$name" "$T" "parts-$p" "$adelim" jacobian --parts "$p" --time-limit "$T" "$tape"
      row "$name" "$T" "parts-$p bnb" "$adelim" jacobian --parts "$p" --method bnb --time-limit "$T" "$tape"
    done
    row "$name" "$T" "stream" "$adelim" jacobian --stream --time-limit "$T" "$tape"
    for mm in $missions; do
      row "$name" "$T" "mission $mm" "$adelim" mission --method "$mm" --time-limit "$T" "$tape"
    done
    # compare: per-method limit T, the whole run within its budget 5 T (the allowance)
    b=$(echo "$T" | awk '{print 5 * $1}')
    row "$name" "$b" "compare (T, budget 5T)" "$adelim" compare --time-limit "$T" --budget "$b" "$tape"
    row "$name" "$b" "compare --optimize (T, 5T)" "$adelim" compare --optimize --time-limit "$T" --budget "$b" "$tape"
    row "$name" "$b" "compare --mission (T, 5T)" "$adelim" compare --mission --time-limit "$T" --budget "$b" "$tape"
    row "$name" "$T" "codegen auto" "$adelim" codegen --method auto --time-limit "$T" -o "$tmp/j.c" "$tape"
  done
  for h in edge-push ve-reverse ve-markowitz for-over-rev edge-push-preacc star; do
    row "$name" - "hessian $h" "$adelim" hessian --method "$h" --weights "$w" "$tape"
  done
done
