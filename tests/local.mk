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

check_PROGRAMS += %D%/check_record
%C%_check_record_SOURCES = %D%/check_record.c %D%/randprog.h
%C%_check_record_CPPFLAGS = $(TEST_CPPFLAGS)
%C%_check_record_CFLAGS = $(TEST_CFLAGS)
%C%_check_record_LDADD = $(TEST_LDADD)
TESTS += %D%/check_record

check_PROGRAMS += %D%/check_tape
%C%_check_tape_SOURCES = %D%/check_tape.c %D%/randprog.h
%C%_check_tape_CPPFLAGS = $(TEST_CPPFLAGS)
%C%_check_tape_CFLAGS = $(TEST_CFLAGS)
%C%_check_tape_LDADD = $(TEST_LDADD)
TESTS += %D%/check_tape
EXTRA_DIST += %D%/data/good-v1.adt %D%/data/bad-version.adt %D%/data/bad-magic.adt \
	%D%/data/bad-checksum.adt %D%/data/truncated.adt %D%/data/empty.adt
check_PROGRAMS += %D%/check_eval
%C%_check_eval_SOURCES = %D%/check_eval.c
%C%_check_eval_CPPFLAGS = $(TEST_CPPFLAGS)
%C%_check_eval_CFLAGS = $(TEST_CFLAGS)
%C%_check_eval_LDADD = $(TEST_LDADD)
TESTS += %D%/check_eval

check_PROGRAMS += %D%/check_threads
%C%_check_threads_SOURCES = %D%/check_threads.c %D%/randprog.h
%C%_check_threads_CPPFLAGS = $(TEST_CPPFLAGS)
%C%_check_threads_CFLAGS = $(TEST_CFLAGS) -pthread
%C%_check_threads_LDADD = $(TEST_LDADD)
%C%_check_threads_LDFLAGS = -pthread
TESTS += %D%/check_threads

check_PROGRAMS += %D%/check_plancache
%C%_check_plancache_SOURCES = %D%/check_plancache.c %D%/randprog.h
%C%_check_plancache_CPPFLAGS = $(TEST_CPPFLAGS)
%C%_check_plancache_CFLAGS = $(TEST_CFLAGS) -pthread
%C%_check_plancache_LDADD = $(TEST_LDADD)
%C%_check_plancache_LDFLAGS = -pthread
TESTS += %D%/check_plancache

check_PROGRAMS += %D%/check_elemental
%C%_check_elemental_SOURCES = %D%/check_elemental.c %D%/randprog.h
%C%_check_elemental_CPPFLAGS = $(TEST_CPPFLAGS)
%C%_check_elemental_CFLAGS = $(TEST_CFLAGS) -pthread
%C%_check_elemental_LDADD = $(TEST_LDADD)
%C%_check_elemental_LDFLAGS = -pthread
TESTS += %D%/check_elemental

check_PROGRAMS += %D%/check_writer
%C%_check_writer_SOURCES = %D%/check_writer.c %D%/randprog.h
%C%_check_writer_CPPFLAGS = $(TEST_CPPFLAGS)
%C%_check_writer_CFLAGS = $(TEST_CFLAGS) -pthread
%C%_check_writer_LDADD = $(TEST_LDADD)
%C%_check_writer_LDFLAGS = -pthread
TESTS += %D%/check_writer

include tests/fuzz/local.mk

# Build an example against the installed library through pkg-config.
EXTRA_DIST += %D%/pkgconfig.sh
installcheck-local:
	CC='$(CC)' $(SHELL) $(srcdir)/%D%/pkgconfig.sh '$(DESTDIR)$(pkgconfigdir)' \
	  '$(DESTDIR)$(libdir)' '$(srcdir)'

check_PROGRAMS += %D%/check_save
%C%_check_save_SOURCES = %D%/check_save.c
%C%_check_save_CPPFLAGS = $(TEST_CPPFLAGS)
%C%_check_save_CFLAGS = $(TEST_CFLAGS)
%C%_check_save_LDADD = $(TEST_LDADD)
TESTS += %D%/check_save

check_PROGRAMS += %D%/check_oom
%C%_check_oom_SOURCES = %D%/check_oom.c
%C%_check_oom_CPPFLAGS = $(TEST_CPPFLAGS)
%C%_check_oom_CFLAGS = $(TEST_CFLAGS)
%C%_check_oom_LDADD = $(TEST_LDADD)
TESTS += %D%/check_oom

check_PROGRAMS += %D%/check_memlimit
%C%_check_memlimit_SOURCES = %D%/check_memlimit.c
%C%_check_memlimit_CPPFLAGS = $(TEST_CPPFLAGS)
%C%_check_memlimit_CFLAGS = $(TEST_CFLAGS)
%C%_check_memlimit_LDADD = $(TEST_LDADD)
TESTS += %D%/check_memlimit
