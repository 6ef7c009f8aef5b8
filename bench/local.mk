# bench/local.mk: benchmark programs. Neither `make` nor `make check` builds
# or runs them; `make bench` builds them (EXTRA_PROGRAMS are built on demand).
# See doc/benchmarks.md for what they measure and how to run them.
BENCH_CPPFLAGS = -I$(top_srcdir)/include -I$(top_srcdir)/bench
BENCH_CFLAGS = $(AM_CFLAGS) $(ADE_DEPS_CFLAGS) -O2
BENCH_LDADD = libadelim.la $(ADE_DEPS_LIBS)

# Makefile.am does not initialize EXTRA_PROGRAMS; this is its one definition.
EXTRA_PROGRAMS = %D%/bench_tape %D%/bench_bigtape %D%/bench_threads %D%/bench_overhead %D%/bench_stream \
	%D%/bench_record

# bench_tape: adelim against ADOL-C on the problems of problems.h.
%C%_bench_tape_SOURCES = %D%/bench_tape.c %D%/bench_util.c %D%/bench_util.h \
	%D%/problems.h %D%/bench_adolc.h
%C%_bench_tape_CPPFLAGS = $(BENCH_CPPFLAGS)
%C%_bench_tape_CFLAGS = $(BENCH_CFLAGS)
%C%_bench_tape_CXXFLAGS = -O2 -ffp-contract=off
%C%_bench_tape_LDADD = $(BENCH_LDADD)
if WITH_ADOLC
%C%_bench_tape_SOURCES += %D%/bench_adolc.cpp
%C%_bench_tape_CPPFLAGS += -DBENCH_HAVE_ADOLC $(ADOLC_CPPFLAGS)
%C%_bench_tape_LDADD += $(ADOLC_LIBS)
%C%_bench_tape_LINK = $(LIBTOOL) $(AM_V_lt) --tag=CXX $(AM_LIBTOOLFLAGS) \
	$(LIBTOOLFLAGS) --mode=link $(CXXLD) $(%C%_bench_tape_CXXFLAGS) \
	$(CXXFLAGS) $(AM_LDFLAGS) $(LDFLAGS) -o $@
else
# Without ADOL-C nothing is C++: link with the C compiler.
%C%_bench_tape_LINK = $(LIBTOOL) $(AM_V_lt) --tag=CC $(AM_LIBTOOLFLAGS) \
	$(LIBTOOLFLAGS) --mode=link $(CCLD) $(%C%_bench_tape_CFLAGS) \
	$(CFLAGS) $(AM_LDFLAGS) $(LDFLAGS) -o $@
endif

# bench_bigtape: a long PDE run on a file-backed tape; peak RSS vs tape size.
%C%_bench_bigtape_SOURCES = %D%/bench_bigtape.c %D%/bench_util.c %D%/bench_util.h \
	%D%/problems.h
%C%_bench_bigtape_CPPFLAGS = $(BENCH_CPPFLAGS)
%C%_bench_bigtape_CFLAGS = $(BENCH_CFLAGS)
%C%_bench_bigtape_LDADD = $(BENCH_LDADD)

# bench_stream: a long time-stepping run's Jacobian by streaming elimination
# against flat elimination and reverse mode; peak RSS and CPU time.
%C%_bench_stream_SOURCES = %D%/bench_stream.c %D%/bench_util.c %D%/bench_util.h
%C%_bench_stream_CPPFLAGS = $(BENCH_CPPFLAGS)
%C%_bench_stream_CFLAGS = $(BENCH_CFLAGS)
%C%_bench_stream_LDADD = $(BENCH_LDADD)

# bench_record: one tape recorded R times (instructions per tape, callgrind).
%C%_bench_record_SOURCES = %D%/bench_record.c %D%/bench_util.c %D%/bench_util.h %D%/problems.h
%C%_bench_record_CPPFLAGS = $(BENCH_CPPFLAGS)
%C%_bench_record_CFLAGS = $(BENCH_CFLAGS)
%C%_bench_record_LDADD = $(BENCH_LDADD)

# bench_overhead: instructions per gradient call on a small tape (callgrind).
%C%_bench_overhead_SOURCES = %D%/bench_overhead.c
%C%_bench_overhead_CPPFLAGS = $(BENCH_CPPFLAGS)
%C%_bench_overhead_CFLAGS = $(BENCH_CFLAGS)
%C%_bench_overhead_LDADD = $(BENCH_LDADD)

# bench_threads: one tape evaluated by 1..T threads at once (public API only).
%C%_bench_threads_SOURCES = %D%/bench_threads.c %D%/bench_util.c %D%/bench_util.h \
	%D%/problems.h
%C%_bench_threads_CPPFLAGS = $(BENCH_CPPFLAGS)
%C%_bench_threads_CFLAGS = $(BENCH_CFLAGS) -pthread
%C%_bench_threads_LDADD = $(BENCH_LDADD)
%C%_bench_threads_LDFLAGS = -pthread

EXTRA_DIST += %D%/.gitignore doc/benchmarks.md %D%/perf_loop.sh %D%/bench_limits.sh %D%/order_plot.sh %D%/order_ab.sh
# automake cleans no EXTRA_PROGRAMS by itself.
CLEANFILES += $(EXTRA_PROGRAMS)

.PHONY: bench
bench: %D%/bench_tape$(EXEEXT) %D%/bench_bigtape$(EXEEXT)

# bench_jacobian: Jacobians by elimination, CPR compression and vector modes
# on five test problems, against ADOL-C's jacobian() and compressed forward mode.
EXTRA_PROGRAMS += %D%/bench_jacobian
%C%_bench_jacobian_SOURCES = %D%/bench_jacobian.c %D%/bench_jacobian.h %D%/jacobian_problems.h \
	%D%/bj_problem.c
%C%_bench_jacobian_CPPFLAGS = $(BENCH_CPPFLAGS)
%C%_bench_jacobian_CFLAGS = $(BENCH_CFLAGS)
%C%_bench_jacobian_CXXFLAGS = -O2 -ffp-contract=off
%C%_bench_jacobian_LDADD = $(BENCH_LDADD)
if WITH_ADOLC
%C%_bench_jacobian_SOURCES += %D%/bench_jacobian_adolc.cpp
%C%_bench_jacobian_CPPFLAGS += -DBENCH_HAVE_ADOLC $(ADOLC_CPPFLAGS)
%C%_bench_jacobian_LDADD += $(ADOLC_LIBS)
if WITH_COLPACK
%C%_bench_jacobian_CPPFLAGS += -DBENCH_HAVE_COLPACK
endif
%C%_bench_jacobian_LINK = $(LIBTOOL) $(AM_V_lt) --tag=CXX $(AM_LIBTOOLFLAGS) \
	$(LIBTOOLFLAGS) --mode=link $(CXXLD) $(%C%_bench_jacobian_CXXFLAGS) \
	$(CXXFLAGS) $(AM_LDFLAGS) $(LDFLAGS) -o $@
else
%C%_bench_jacobian_LINK = $(LIBTOOL) $(AM_V_lt) --tag=CC $(AM_LIBTOOLFLAGS) \
	$(LIBTOOLFLAGS) --mode=link $(CCLD) $(%C%_bench_jacobian_CFLAGS) \
	$(CFLAGS) $(AM_LDFLAGS) $(LDFLAGS) -o $@
endif
bench: %D%/bench_jacobian$(EXEEXT)

# bench_hessian: Hessians by edge pushing, symmetric vertex elimination and
# forward-over-reverse on sparse, dense and chain-tree problems, against
# ADOL-C's hessian(), hess_pat + hess_mat and sparse_hess; peak memory of
# edge pushing over a file-backed tape at n = 10^5.
EXTRA_PROGRAMS += %D%/bench_hessian
%C%_bench_hessian_SOURCES = %D%/bench_hessian.c %D%/bench_hessian.h %D%/hessian_problems.h \
	%D%/bench_util.c %D%/bench_util.h
%C%_bench_hessian_CPPFLAGS = $(BENCH_CPPFLAGS)
%C%_bench_hessian_CFLAGS = $(BENCH_CFLAGS)
%C%_bench_hessian_CXXFLAGS = -O2 -ffp-contract=off
%C%_bench_hessian_LDADD = $(BENCH_LDADD)
if WITH_ADOLC
%C%_bench_hessian_SOURCES += %D%/bench_hessian_adolc.cpp %D%/bench_adolc.cpp \
	%D%/bench_adolc.h %D%/problems.h
%C%_bench_hessian_CPPFLAGS += -DBENCH_HAVE_ADOLC $(ADOLC_CPPFLAGS)
%C%_bench_hessian_LDADD += $(ADOLC_LIBS)
if WITH_COLPACK
%C%_bench_hessian_CPPFLAGS += -DBENCH_HAVE_COLPACK
endif
%C%_bench_hessian_LINK = $(LIBTOOL) $(AM_V_lt) --tag=CXX $(AM_LIBTOOLFLAGS) \
	$(LIBTOOLFLAGS) --mode=link $(CXXLD) $(%C%_bench_hessian_CXXFLAGS) \
	$(CXXFLAGS) $(AM_LDFLAGS) $(LDFLAGS) -o $@
else
%C%_bench_hessian_LINK = $(LIBTOOL) $(AM_V_lt) --tag=CC $(AM_LIBTOOLFLAGS) \
	$(LIBTOOLFLAGS) --mode=link $(CCLD) $(%C%_bench_hessian_CFLAGS) \
	$(CFLAGS) $(AM_LDFLAGS) $(LDFLAGS) -o $@
endif
bench: %D%/bench_hessian$(EXEEXT)

# bench_opt: every optimizer of ade_optimize on the Jacobian problems.
EXTRA_PROGRAMS += %D%/bench_opt
%C%_bench_opt_SOURCES = %D%/bench_opt.c %D%/jacobian_problems.h %D%/bench_jacobian.h \
	%D%/bj_problem.c
%C%_bench_opt_CPPFLAGS = $(BENCH_CPPFLAGS)
%C%_bench_opt_CFLAGS = $(BENCH_CFLAGS)
%C%_bench_opt_LDADD = $(BENCH_LDADD)
bench: %D%/bench_opt$(EXEEXT)

# bench_order: every ordering's time against the c-graph's size.
EXTRA_PROGRAMS += %D%/bench_order
%C%_bench_order_SOURCES = %D%/bench_order.c %D%/jacobian_problems.h %D%/bench_jacobian.h %D%/bj_problem.c
%C%_bench_order_CPPFLAGS = $(BENCH_CPPFLAGS)
%C%_bench_order_CFLAGS = $(BENCH_CFLAGS)
%C%_bench_order_LDADD = $(BENCH_LDADD)
bench: %D%/bench_order$(EXEEXT)

# bench_loop: derivatives in a loop: plan cache hits and Jacobian loops
# against the plan's own run, and the automatic method's fma.
EXTRA_PROGRAMS += %D%/bench_loop
%C%_bench_loop_SOURCES = %D%/bench_loop.c
%C%_bench_loop_CPPFLAGS = $(BENCH_CPPFLAGS)
%C%_bench_loop_CFLAGS = $(BENCH_CFLAGS)
%C%_bench_loop_LDADD = $(BENCH_LDADD)

# bench_hesscolor: sparse Hessians at new points, edge pushing against a
# star-colored plan, and ADE_HESS_AUTO's choice (doc/benchmarks.md).
EXTRA_PROGRAMS += %D%/bench_hesscolor
%C%_bench_hesscolor_SOURCES = %D%/bench_hesscolor.c %D%/bench_hessian.h %D%/hessian_problems.h \
	%D%/bench_util.c %D%/bench_util.h
%C%_bench_hesscolor_CPPFLAGS = $(BENCH_CPPFLAGS)
%C%_bench_hesscolor_CFLAGS = $(BENCH_CFLAGS)
%C%_bench_hesscolor_LDADD = $(BENCH_LDADD)
bench: %D%/bench_hesscolor$(EXEEXT)

# bench_codegen: the C of ade_plan_codegen compiled by the configured
# compiler, against the interpreted plan and forward mode; compile times.
EXTRA_PROGRAMS += %D%/bench_codegen
%C%_bench_codegen_SOURCES = %D%/bench_codegen.c %D%/jacobian_problems.h %D%/bench_jacobian.h \
	%D%/bj_problem.c
%C%_bench_codegen_CPPFLAGS = $(BENCH_CPPFLAGS) -DBENCH_CC='"$(CC)"'
%C%_bench_codegen_CFLAGS = $(BENCH_CFLAGS)
# The convenience library: -T reaches the internal ade__plan_codegen.
%C%_bench_codegen_LDADD = libadelim-core.la $(ADE_DEPS_LIBS) -ldl
%C%_bench_codegen_CXXFLAGS = -O2 -ffp-contract=off
if WITH_ADOLC
%C%_bench_codegen_SOURCES += %D%/bench_jacobian_adolc.cpp
%C%_bench_codegen_CPPFLAGS += -DBENCH_HAVE_ADOLC $(ADOLC_CPPFLAGS)
%C%_bench_codegen_LDADD += $(ADOLC_LIBS)
%C%_bench_codegen_LINK = $(LIBTOOL) $(AM_V_lt) --tag=CXX $(AM_LIBTOOLFLAGS) \
	$(LIBTOOLFLAGS) --mode=link $(CXXLD) $(%C%_bench_codegen_CXXFLAGS) \
	$(CXXFLAGS) $(AM_LDFLAGS) $(LDFLAGS) -o $@
else
%C%_bench_codegen_LINK = $(LIBTOOL) $(AM_V_lt) --tag=CC $(AM_LIBTOOLFLAGS) \
	$(LIBTOOLFLAGS) --mode=link $(CCLD) $(%C%_bench_codegen_CFLAGS) \
	$(CFLAGS) $(AM_LDFLAGS) $(LDFLAGS) -o $@
endif
bench: %D%/bench_codegen$(EXEEXT)

# bench_mission: every mission planner on Lion, Bat and chains of Newton steps.
EXTRA_PROGRAMS += %D%/bench_mission
%C%_bench_mission_SOURCES = %D%/bench_mission.c
%C%_bench_mission_CPPFLAGS = $(BENCH_CPPFLAGS)
%C%_bench_mission_CFLAGS = $(BENCH_CFLAGS)
%C%_bench_mission_LDADD = $(BENCH_LDADD)
bench: %D%/bench_mission$(EXEEXT)

# bench_petsc.sh: examples/petsc_bratu at full size on 1 and 2 ranks, adelim
# against PETSc's colored finite differences (configure --with-petsc).
EXTRA_DIST += %D%/bench_petsc.sh
BENCH_PETSC_PROGS =
if HAVE_PETSC
BENCH_PETSC_PROGS += examples/petsc_bratu$(EXEEXT)
endif
bench: $(BENCH_PETSC_PROGS)
# bench_petsc: examples/petsc_bratu.c built with an ADOL-C column (-jac
# adolc|all: sparse_jac on a tape per rank; bench_petsc_adolc.cpp), with
# PETSc and ADOL-C with ColPack. bench_petsc.sh runs it when it is built.
if HAVE_PETSC
if WITH_COLPACK
EXTRA_PROGRAMS += %D%/bench_petsc
BENCH_PETSC_PROGS += %D%/bench_petsc$(EXEEXT)
endif
endif
%C%_bench_petsc_SOURCES = examples/petsc_bratu.c examples/bratu_kernel.h %D%/bench_petsc_adolc.cpp
%C%_bench_petsc_CPPFLAGS = $(BENCH_CPPFLAGS) -I$(top_srcdir)/examples -DBRATU_WITH_ADOLC $(ADOLC_CPPFLAGS)
%C%_bench_petsc_CFLAGS = $(AM_CFLAGS) $(PETSC_CFLAGS)
%C%_bench_petsc_CXXFLAGS = -O2 -ffp-contract=off $(PETSC_CFLAGS)
%C%_bench_petsc_LDADD = $(BENCH_LDADD) $(PETSC_LIBS) $(ADOLC_LIBS)
%C%_bench_petsc_LINK = $(LIBTOOL) $(AM_V_lt) --tag=CXX $(AM_LIBTOOLFLAGS) \
	$(LIBTOOLFLAGS) --mode=link $(CXXLD) $(%C%_bench_petsc_CXXFLAGS) \
	$(CXXFLAGS) $(AM_LDFLAGS) $(LDFLAGS) -o $@
EXTRA_DIST += %D%/bench_petsc_adolc.cpp
# ADOL-C spills tapes beyond its buffers to ADOLC-*_TAG.tap in the working directory.
CLEANFILES += ADOLC-*.tap
# bench_cvode: CVODE's BDF on the stiff Brusselator of examples/
# cvode_brusselator.c with adelim's Jacobians (KLU and band) against CVODE's
# band difference quotients at 1002 and 10002 unknowns (--with-sundials).
BENCH_CVODE =
if HAVE_SUNDIALS
EXTRA_PROGRAMS += %D%/bench_cvode
BENCH_CVODE += %D%/bench_cvode$(EXEEXT)
endif
bench: $(BENCH_CVODE)
%C%_bench_cvode_SOURCES = %D%/bench_cvode.c
%C%_bench_cvode_CPPFLAGS = $(BENCH_CPPFLAGS) $(SUNDIALS_CFLAGS)
%C%_bench_cvode_CFLAGS = $(BENCH_CFLAGS)
%C%_bench_cvode_LDADD = $(BENCH_LDADD) $(SUNDIALS_LIBS)
%C%_bench_cvode_CXXFLAGS = -O2 -ffp-contract=off
# With ADOL-C and ColPack: a fourth run by ADOL-C's sparse_jac.
if WITH_COLPACK
%C%_bench_cvode_SOURCES += %D%/bench_cvode_adolc.cpp
%C%_bench_cvode_CPPFLAGS += -DBENCH_HAVE_COLPACK $(ADOLC_CPPFLAGS)
%C%_bench_cvode_LDADD += $(ADOLC_LIBS)
%C%_bench_cvode_LINK = $(LIBTOOL) $(AM_V_lt) --tag=CXX $(AM_LIBTOOLFLAGS) \
	$(LIBTOOLFLAGS) --mode=link $(CXXLD) $(%C%_bench_cvode_CXXFLAGS) \
	$(CXXFLAGS) $(AM_LDFLAGS) $(LDFLAGS) -o $@
else
%C%_bench_cvode_LINK = $(LIBTOOL) $(AM_V_lt) --tag=CC $(AM_LIBTOOLFLAGS) \
	$(LIBTOOLFLAGS) --mode=link $(CCLD) $(%C%_bench_cvode_CFLAGS) \
	$(CFLAGS) $(AM_LDFLAGS) $(LDFLAGS) -o $@
endif
EXTRA_DIST += %D%/bench_cvode.c %D%/bench_cvode_adolc.cpp

# bench_ipopt: Ipopt at full size with adelim's gradient, Jacobian and
# Lagrangian Hessian, against hand-written derivatives, L-BFGS and Ipopt's
# finite-difference Jacobian (examples/ipopt_lv.h holds the problem).
if HAVE_IPOPT
EXTRA_PROGRAMS += %D%/bench_ipopt
IPOPT_BENCH = %D%/bench_ipopt$(EXEEXT)
else
IPOPT_BENCH =
endif
bench: $(IPOPT_BENCH)
%C%_bench_ipopt_SOURCES = %D%/bench_ipopt.c examples/ipopt_lv.h examples/lv_problem.h
%C%_bench_ipopt_CPPFLAGS = $(BENCH_CPPFLAGS) -I$(top_srcdir)/examples $(IPOPT_CFLAGS)
%C%_bench_ipopt_CFLAGS = $(BENCH_CFLAGS)
%C%_bench_ipopt_LDADD = $(BENCH_LDADD) $(IPOPT_LIBS)
%C%_bench_ipopt_CXXFLAGS = -O2 -ffp-contract=off
# With ADOL-C and ColPack: a row with gradient(), sparse_jac and sparse_hess.
if WITH_COLPACK
%C%_bench_ipopt_SOURCES += %D%/bench_ipopt_adolc.cpp
%C%_bench_ipopt_CPPFLAGS += -DBENCH_HAVE_COLPACK $(ADOLC_CPPFLAGS)
%C%_bench_ipopt_LDADD += $(ADOLC_LIBS)
%C%_bench_ipopt_LINK = $(LIBTOOL) $(AM_V_lt) --tag=CXX $(AM_LIBTOOLFLAGS) \
	$(LIBTOOLFLAGS) --mode=link $(CXXLD) $(%C%_bench_ipopt_CXXFLAGS) \
	$(CXXFLAGS) $(AM_LDFLAGS) $(LDFLAGS) -o $@
else
%C%_bench_ipopt_LINK = $(LIBTOOL) $(AM_V_lt) --tag=CC $(AM_LIBTOOLFLAGS) \
	$(LIBTOOLFLAGS) --mode=link $(CCLD) $(%C%_bench_ipopt_CFLAGS) \
	$(CFLAGS) $(AM_LDFLAGS) $(LDFLAGS) -o $@
endif
EXTRA_DIST += %D%/bench_ipopt.c %D%/bench_ipopt_adolc.cpp

# bench_elemental: a vector elemental against the same function in scalar operations.
EXTRA_PROGRAMS += %D%/bench_elemental
%C%_bench_elemental_SOURCES = %D%/bench_elemental.c %D%/bench_util.c %D%/bench_util.h
%C%_bench_elemental_CPPFLAGS = $(BENCH_CPPFLAGS)
%C%_bench_elemental_CFLAGS = $(BENCH_CFLAGS)
%C%_bench_elemental_LDADD = $(BENCH_LDADD)

# bench_parts: two-level elimination over parts against flat elimination
# and ADOL-C's jacobian() (doc/benchmarks.md).
EXTRA_PROGRAMS += %D%/bench_parts
%C%_bench_parts_SOURCES = %D%/bench_parts.c %D%/jacobian_problems.h %D%/bench_jacobian.h %D%/bj_problem.c
%C%_bench_parts_CPPFLAGS = $(BENCH_CPPFLAGS)
%C%_bench_parts_CFLAGS = $(BENCH_CFLAGS)
%C%_bench_parts_LDADD = $(BENCH_LDADD)
%C%_bench_parts_CXXFLAGS = -O2 -ffp-contract=off
if WITH_ADOLC
%C%_bench_parts_SOURCES += %D%/bench_jacobian_adolc.cpp
%C%_bench_parts_CPPFLAGS += -DBENCH_HAVE_ADOLC $(ADOLC_CPPFLAGS)
%C%_bench_parts_LDADD += $(ADOLC_LIBS)
%C%_bench_parts_LINK = $(LIBTOOL) $(AM_V_lt) --tag=CXX $(AM_LIBTOOLFLAGS) \
	$(LIBTOOLFLAGS) --mode=link $(CXXLD) $(%C%_bench_parts_CXXFLAGS) \
	$(CXXFLAGS) $(AM_LDFLAGS) $(LDFLAGS) -o $@
else
%C%_bench_parts_LINK = $(LIBTOOL) $(AM_V_lt) --tag=CC $(AM_LIBTOOLFLAGS) \
	$(LIBTOOLFLAGS) --mode=link $(CCLD) $(%C%_bench_parts_CFLAGS) \
	$(CFLAGS) $(AM_LDFLAGS) $(LDFLAGS) -o $@
endif
bench: %D%/bench_parts$(EXEEXT)

# order_own: each greedy ordering's own run, uncapped, against the method's
# answer (it calls the internal ade__order_raw, so it links the internal
# library).
EXTRA_PROGRAMS += %D%/order_own
%C%_order_own_SOURCES = %D%/order_own.c
%C%_order_own_CPPFLAGS = $(AM_CPPFLAGS)
%C%_order_own_CFLAGS = $(BENCH_CFLAGS)
%C%_order_own_LDADD = libadelim-core.la $(ADE_DEPS_LIBS)
bench: %D%/order_own$(EXEEXT)

# order_sweeps: the sweeps the edge and face orderings start from and the
# cut bound (internal ade__vector_sweep: the internal library).
EXTRA_PROGRAMS += %D%/order_sweeps
%C%_order_sweeps_SOURCES = %D%/order_sweeps.c
%C%_order_sweeps_CPPFLAGS = $(AM_CPPFLAGS)
%C%_order_sweeps_CFLAGS = $(BENCH_CFLAGS)
%C%_order_sweeps_LDADD = libadelim-core.la $(ADE_DEPS_LIBS)
bench: %D%/order_sweeps$(EXEEXT)

# bench_nested: elimination in levels over nested regions against two levels.
EXTRA_PROGRAMS += %D%/bench_nested
%C%_bench_nested_SOURCES = %D%/bench_nested.c
%C%_bench_nested_CPPFLAGS = $(BENCH_CPPFLAGS)
%C%_bench_nested_CFLAGS = $(BENCH_CFLAGS)
%C%_bench_nested_LDADD = $(BENCH_LDADD)
bench: %D%/bench_nested$(EXEEXT)
