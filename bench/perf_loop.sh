#!/bin/sh
# perf_loop.sh OUT SECONDS MARKER... -- COMMAND...: profile the loops of a
# benchmark's profile mode (bench_jacobian -P, bench_hessian -P) without
# their setup: run COMMAND, and each time its stderr shows the next MARKER
# (a word of its "<problem>: <what> loop" lines), attach perf record for
# SECONDS - 1 seconds, writing OUT.0.data, OUT.1.data, ...
# Example (doc/benchmarks.md, "Where the time goes"):
#   bench/perf_loop.sh /tmp/euler 6 plan cpr -- bench/bench_jacobian -P 6 euler1d
#   perf report -i /tmp/euler.0.data --no-children --sort dso,symbol
set -eu
out=$1 secs=$2
shift 2
markers=
while [ "$1" != "--" ]; do markers="$markers $1"; shift; done
shift
err=$(mktemp)
trap 'rm -f "$err"' EXIT
"$@" 2>"$err" &
pid=$!
k=0
for m in $markers; do
  until grep -q "$m loop" "$err"; do sleep 0.2; done
  perf record -F 999 -o "$out.$k.data" -p "$pid" -- sleep $((secs - 1)) >/dev/null 2>&1
  k=$((k + 1))
done
wait "$pid"
