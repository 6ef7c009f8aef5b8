# elim/opt/local.mk: optimizers of elimination sequences (exhaustive search,
# branch and bound, hierarchies, annealing, dynamic programming), and the
# two-level and streaming eliminations that use them. Above the
# engine in elim/: the engine includes no header of this folder.
libadelim_core_la_SOURCES += \
	%D%/opt_internal.h \
	%D%/opt_graph.c \
	%D%/opt_bound.c \
	%D%/opt_table.c \
	%D%/opt_common.c \
	%D%/opt_exhaustive.c \
	%D%/opt_bnb.c \
	%D%/opt_hier.c \
	%D%/opt_anneal.c \
	%D%/opt_dp.c \
	%D%/optimize.c \
	%D%/opt_parts.c \
	%D%/stream.c

check_PROGRAMS += tests/check_opt
tests_check_opt_SOURCES = tests/check_opt.c
tests_check_opt_CPPFLAGS = $(TEST_CPPFLAGS)
tests_check_opt_CFLAGS = $(TEST_CFLAGS)
tests_check_opt_LDADD = $(TEST_LDADD)
TESTS += tests/check_opt

check_PROGRAMS += tests/check_parts
tests_check_parts_SOURCES = tests/check_parts.c tests/randprog.h
tests_check_parts_CPPFLAGS = $(TEST_CPPFLAGS)
tests_check_parts_CFLAGS = $(TEST_CFLAGS)
tests_check_parts_LDADD = $(TEST_LDADD)
TESTS += tests/check_parts

check_PROGRAMS += tests/check_stream
tests_check_stream_SOURCES = tests/check_stream.c tests/randprog.h
tests_check_stream_CPPFLAGS = $(TEST_CPPFLAGS)
tests_check_stream_CFLAGS = $(TEST_CFLAGS)
tests_check_stream_LDADD = $(TEST_LDADD)
TESTS += tests/check_stream

check_PROGRAMS += tests/check_hier
tests_check_hier_SOURCES = tests/check_hier.c tests/randprog.h tests/sweeps.h
tests_check_hier_CPPFLAGS = $(TEST_CPPFLAGS)
tests_check_hier_CFLAGS = $(TEST_CFLAGS)
tests_check_hier_LDADD = $(TEST_LDADD)
TESTS += tests/check_hier
