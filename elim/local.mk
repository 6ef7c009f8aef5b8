# elim/local.mk: Jacobians by elimination.
libadelim_core_la_SOURCES += \
	%D%/elim_internal.h \
	%D%/graph.c \
	%D%/cgraph.c \
	%D%/eliminate.c \
	%D%/face.c \
	%D%/sequence.c \
	%D%/order.c \
	%D%/jacobian.c

check_PROGRAMS += tests/check_elim
tests_check_elim_SOURCES = tests/check_elim.c tests/randprog.h
tests_check_elim_CPPFLAGS = $(TEST_CPPFLAGS)
tests_check_elim_CFLAGS = $(TEST_CFLAGS)
tests_check_elim_LDADD = $(TEST_LDADD)
TESTS += tests/check_elim

# The motivating example of the face-elimination paper (Section 2). Its
# build rule lives here while examples/local.mk is being edited elsewhere.
noinst_PROGRAMS += examples/motivating
examples_motivating_SOURCES = examples/motivating.c
examples_motivating_CPPFLAGS = -I$(top_srcdir)/include
examples_motivating_LDADD = libadelim.la $(ADE_DEPS_LIBS)
TESTS += examples/motivating.test
EXTRA_DIST += examples/motivating.test examples/motivating.out
# The expected output is a source (make's built-in `%.out: %' must not remake it).
examples/motivating.out: ;
