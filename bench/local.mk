# bench/local.mk: benchmark programs. Neither `make` nor `make check` builds
# or runs them; `make bench` builds them (EXTRA_PROGRAMS are built on demand).
# See doc/benchmarks.md for what they measure and how to run them.
BENCH_CPPFLAGS = -I$(top_srcdir)/include -I$(top_srcdir)/bench
BENCH_CFLAGS = $(AM_CFLAGS) $(ADE_DEPS_CFLAGS) -O2
BENCH_LDADD = libadelim.la $(ADE_DEPS_LIBS)

# Makefile.am does not initialize EXTRA_PROGRAMS; this is its one definition.
EXTRA_PROGRAMS = %D%/bench_tape %D%/bench_bigtape

# bench_tape: adelim against ADOL-C on the problems of problems.h.
%C%_bench_tape_SOURCES = %D%/bench_tape.c %D%/bench_util.c %D%/bench_util.h \
	%D%/problems.h %D%/bench_adolc.h
%C%_bench_tape_CPPFLAGS = $(BENCH_CPPFLAGS)
%C%_bench_tape_CFLAGS = $(BENCH_CFLAGS)
%C%_bench_tape_CXXFLAGS = -O2 -ffp-contract=off
%C%_bench_tape_LDADD = $(BENCH_LDADD)
if WITH_ADOLC
%C%_bench_tape_SOURCES += %D%/bench_adolc.cpp
%C%_bench_tape_CPPFLAGS += -DBENCH_HAVE_ADOLC
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

EXTRA_DIST += %D%/.gitignore doc/benchmarks.md
# automake cleans no EXTRA_PROGRAMS by itself.
CLEANFILES += $(EXTRA_PROGRAMS)

.PHONY: bench
bench: %D%/bench_tape$(EXEEXT) %D%/bench_bigtape$(EXEEXT)
