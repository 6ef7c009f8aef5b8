# elim/local.mk: Jacobians by elimination.
libadelim_core_la_SOURCES += \
	%D%/elim_internal.h \
	%D%/graph.c \
	%D%/cgraph.c \
	%D%/eliminate.c \
	%D%/face.c \
	%D%/planrec.c \
	%D%/sequence.c \
	%D%/order.c \
	%D%/cuts.c \
	%D%/tasks.c \
	%D%/vmark.c \
	%D%/pqueue.c \
	%D%/pqueue_impl.h \
	%D%/pkq_inline.h \
	%D%/bkq_inline.h \
	%D%/face_inline.h \
	%D%/jacobian.c

check_PROGRAMS += tests/check_elim
tests_check_elim_SOURCES = tests/check_elim.c tests/randprog.h
tests_check_elim_CPPFLAGS = $(TEST_CPPFLAGS)
tests_check_elim_CFLAGS = $(TEST_CFLAGS)
tests_check_elim_LDADD = $(TEST_LDADD)
TESTS += tests/check_elim

check_PROGRAMS += tests/check_order
tests_check_order_SOURCES = tests/check_order.c tests/randprog.h tests/sweeps.h
tests_check_order_CPPFLAGS = $(TEST_CPPFLAGS)
tests_check_order_CFLAGS = $(TEST_CFLAGS)
tests_check_order_LDADD = $(TEST_LDADD)
TESTS += tests/check_order

# Connected components, CPR compression and baselines, DOT output.
libadelim_core_la_SOURCES += \
	%D%/component.c \
	%D%/cpr.c \
	%D%/dot.c \
	%D%/plan.c \
	%D%/parts.c \
	%D%/auto.c \
	%D%/cache.c \
	%D%/codegen.c

# C generated from plans, compiled by the compiler configure found.
check_PROGRAMS += tests/check_codegen
tests_check_codegen_SOURCES = tests/check_codegen.c tests/randprog.h
tests_check_codegen_CPPFLAGS = $(TEST_CPPFLAGS) -DADE_TEST_CC='"$(CC)"'
tests_check_codegen_CFLAGS = $(TEST_CFLAGS)
tests_check_codegen_LDADD = $(TEST_LDADD) -ldl
TESTS += tests/check_codegen

check_PROGRAMS += tests/check_cpr
tests_check_cpr_SOURCES = tests/check_cpr.c tests/randprog.h
tests_check_cpr_CPPFLAGS = $(TEST_CPPFLAGS)
tests_check_cpr_CFLAGS = $(TEST_CFLAGS)
tests_check_cpr_LDADD = $(TEST_LDADD)
TESTS += tests/check_cpr

EXTRA_DIST += doc/optimizers.md
