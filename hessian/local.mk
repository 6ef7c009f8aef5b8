# hessian/local.mk: Hessians by edge pushing and symmetric vertex elimination.
libadelim_core_la_SOURCES += \
	%D%/hessian_internal.h \
	%D%/shared.c \
	%D%/run.c \
	%D%/dispatch.c \
	%D%/edge_push.c \
	%D%/statement.c \
	%D%/for_over_rev.c \
	%D%/vertex_elim.c \
	%D%/color.c \
	%D%/hvp.c \
	%D%/hess_plan.c \
	%D%/hess_cache.c \
	%D%/hess_loop.c

check_PROGRAMS += tests/check_hessian
tests_check_hessian_SOURCES = tests/check_hessian.c tests/randprog.h
tests_check_hessian_CPPFLAGS = $(TEST_CPPFLAGS)
tests_check_hessian_CFLAGS = $(TEST_CFLAGS)
tests_check_hessian_LDADD = $(TEST_LDADD)
TESTS += tests/check_hessian

check_PROGRAMS += tests/check_hesscolor
tests_check_hesscolor_SOURCES = tests/check_hesscolor.c tests/randprog.h
tests_check_hesscolor_CPPFLAGS = $(TEST_CPPFLAGS)
tests_check_hesscolor_CFLAGS = $(TEST_CFLAGS) -pthread
tests_check_hesscolor_LDADD = $(TEST_LDADD)
tests_check_hesscolor_LDFLAGS = -pthread
TESTS += tests/check_hesscolor

check_PROGRAMS += tests/check_hessloop
tests_check_hessloop_SOURCES = tests/check_hessloop.c tests/randprog.h
tests_check_hessloop_CPPFLAGS = $(TEST_CPPFLAGS)
tests_check_hessloop_CFLAGS = $(TEST_CFLAGS)
tests_check_hessloop_LDADD = $(TEST_LDADD)
TESTS += tests/check_hessloop
