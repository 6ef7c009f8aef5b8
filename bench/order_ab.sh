#!/bin/bash
# order_ab.sh A B [TAPE]: CPU seconds per run of every ordering on TAPE
# (default examples/pde.adt) with the builds in directories A and B
# interleaved: user + sys of 10 back-to-back runs of `adelim jacobian TAPE
# --method M`, divided by 10, the least of 3 rounds, each round A then B.
# Prints "method secondsA secondsB" (doc/benchmarks.md, issue 12's table).
A=$1 B=$2 T=${3:-examples/pde.adt}
[ -x "$A/.libs/adelim" ] && [ -x "$B/.libs/adelim" ] && [ -r "$T" ] || {
  echo "usage: $0 BUILD_A BUILD_B [TAPE] (each build's .libs/adelim, a readable tape)" >&2
  exit 2
}
run10() { # build method: seconds per run
  { LD_LIBRARY_PATH=$1/.libs /usr/bin/time -f "%U %S" bash -c \
      "for i in 1 2 3 4 5 6 7 8 9 10; do $1/.libs/adelim jacobian $T --method $2 >/dev/null; done"; } 2>&1 |
    tail -1 | awk '{print ($1 + $2) / 10}'
}
least() { echo "$1 $2" | awk '{print ($1 < $2) ? $1 : $2}'; }
for m in vertex-reverse vertex-markowitz vertex-relative edge-forward edge-reverse edge-markowitz edge-fillin \
  face-forward face-reverse face-greedy "hierarchy --kind vertex" "hierarchy --kind edge" "hierarchy --kind face"; do
  a=99 b=99
  for r in 1 2 3; do
    a=$(least "$(run10 "$A" "$m")" $a)
    b=$(least "$(run10 "$B" "$m")" $b)
  done
  echo "$m $a $b"
done
