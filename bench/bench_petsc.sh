#!/bin/sh
# bench_petsc.sh: examples/petsc_bratu at full size: PETSc SNES (Newton,
# GMRES + GAMG) on the 2-D Bratu problem with Jacobians from adelim (one tape
# per rank) against PETSc's colored finite differences, on 1 and 2 ranks.
# Per run it prints Newton and linear iterations, residual evaluations, time
# per Jacobian inside the solve and at the solution (steady state, 10 more
# Jacobians), the share of the solve spent in Jacobians, the solve time and
# adelim's one-time cost (record, pattern and coloring, preallocation).
# With ADOL-C and ColPack (configure --with-adolc=PREFIX), `make
# bench/bench_petsc` builds the same example with a third run, ADOL-C's
# sparse_jac on a tape per rank, and this script uses it (-jac all).
# Run from the top build directory after `make` (configure --with-petsc):
#   sh bench/bench_petsc.sh [GRID ...]      (default: 128 256 512)
# MPIEXEC names the launcher (default mpiexec); extra PETSc options in
# BENCH_PETSC_OPTIONS. doc/benchmarks.md, "PETSc".
prog=${top_builddir:-.}/examples/petsc_bratu
jac=both
[ -x "$prog" ] || { echo "bench_petsc.sh: $prog is not built (configure --with-petsc; make)" >&2; exit 1; }
if [ -x "${top_builddir:-.}/bench/bench_petsc" ]; then
  prog=${top_builddir:-.}/bench/bench_petsc
  jac=all
fi
mpiexec=${MPIEXEC:-mpiexec}
flags=
if "$mpiexec" --version 2>&1 | grep -qi 'open mpi\|openrte'; then
  flags=--oversubscribe
  if [ "$(id -u)" = 0 ]; then
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
  fi
fi
[ $# -gt 0 ] || set -- 128 256 512
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
for g in "$@"; do
  for n in 1 2; do
    echo "## mpiexec -n $n $prog -da_grid_x $g -da_grid_y $g -jac $jac -jac_repeat 10 -pc_type gamg $BENCH_PETSC_OPTIONS"
    "$mpiexec" $flags -n $n "$prog" -da_grid_x "$g" -da_grid_y "$g" -jac $jac -jac_repeat 10 \
      -pc_type gamg $BENCH_PETSC_OPTIONS || exit 1
  done
done
