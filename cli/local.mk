# cli/local.mk: the adelim command-line tool and its end-to-end test.
# The tool uses only the public API, so it links the shared library.
bin_PROGRAMS += adelim
adelim_SOURCES = \
	%D%/cli.h \
	%D%/stats.h \
	%D%/main.c \
	%D%/cli_util.c \
	%D%/json.c \
	%D%/table.c \
	%D%/cmd_stats.c \
	%D%/stats.c \
	%D%/stats_json.c \
	%D%/stats_lists.c \
	%D%/cmd_verify.c \
	%D%/cmd_jacobian.c \
	%D%/cmd_hessian.c \
	%D%/hess.c \
	%D%/args.c \
	%D%/cmd_compare.c \
	%D%/cmd_dot.c \
	%D%/cmd_codegen.c \
	%D%/cmd_mission.c
adelim_CPPFLAGS = -I$(top_srcdir)/include
adelim_LDADD = libadelim.la $(ADE_DEPS_LIBS)

# tests/cli.test runs the tool on tapes that tests/mktape records.
check_PROGRAMS += tests/mktape
tests_mktape_SOURCES = tests/mktape.c
tests_mktape_CPPFLAGS = -I$(top_srcdir)/include
tests_mktape_LDADD = libadelim.la $(ADE_DEPS_LIBS)
TESTS += tests/cli.test
EXTRA_DIST += tests/cli.test
