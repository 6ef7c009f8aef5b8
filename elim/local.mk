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
