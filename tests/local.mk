# Check suites, one per module, plus end-to-end tests.
TEST_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(ADE_DEPS_CFLAGS)
TEST_LDADD = libadelim-core.la $(CHECK_LIBS) $(ADE_DEPS_LIBS)
EXTRA_DIST += %D%/testutil.h

check_PROGRAMS += %D%/check_ops
%C%_check_ops_SOURCES = %D%/check_ops.c
%C%_check_ops_CPPFLAGS = $(TEST_CPPFLAGS)
%C%_check_ops_CFLAGS = $(TEST_CFLAGS)
%C%_check_ops_LDADD = $(TEST_LDADD)
TESTS += %D%/check_ops
