# tests/fuzz/local.mk: fuzzing the tape reader (libFuzzer), and replaying its findings in `make check`.
#
# Always: tests/fuzz/regress.test replays tests/fuzz/corpus/ (crashers found so
# far plus the minimized seeds) and freshly written seed tapes (tests/fuzz/mkcorpus,
# which also checks that each reads back) through the harness with
# tests/fuzz/replay_corpus, under whatever sanitizer the build uses.
#
# With `CC=clang ./configure --enable-fuzz` also the fuzzers (see tests/fuzz/README):
#   fuzz_tape          the library as shipped: checksums stop most mutations early;
#   fuzz_tape_nocheck  tape/format.c built with -DADE_FUZZ_NO_CHECKSUM, which skips
#                      checksum comparisons, so mutations reach the decoders;
# (mkcorpus writes the seed tapes; `mkcorpus --fix-sums` repairs the checksums
# of a nocheck finding so that the real library sees it.)
# The fuzzers compile the library's sources themselves rather than linking
# libadelim-core.la, so that its code carries libFuzzer's coverage
# instrumentation without special configure flags.

check_PROGRAMS += %D%/replay_corpus %D%/mkcorpus %D%/mutants
%C%_replay_corpus_SOURCES = %D%/replay_corpus.c %D%/fuzz_tape.c %D%/fuzz_tape.h
%C%_replay_corpus_CPPFLAGS = $(AM_CPPFLAGS)
%C%_replay_corpus_CFLAGS = $(AM_CFLAGS) $(ADE_DEPS_CFLAGS)
%C%_replay_corpus_LDADD = libadelim-core.la $(ADE_DEPS_LIBS)
%C%_mkcorpus_SOURCES = %D%/mkcorpus.c %D%/mutate.c %D%/mutate.h
%C%_mkcorpus_CPPFLAGS = $(AM_CPPFLAGS)
%C%_mkcorpus_CFLAGS = $(AM_CFLAGS) $(ADE_DEPS_CFLAGS)
%C%_mkcorpus_LDADD = libadelim-core.la $(ADE_DEPS_LIBS)
%C%_mutants_SOURCES = %D%/mutants.c %D%/mutate.c %D%/mutate.h %D%/fuzz_tape.c %D%/fuzz_tape.h
%C%_mutants_CPPFLAGS = $(TEST_CPPFLAGS)
%C%_mutants_CFLAGS = $(TEST_CFLAGS)
%C%_mutants_LDADD = $(TEST_LDADD)
TESTS += %D%/regress.test %D%/mutants.test
EXTRA_DIST += %D%/regress.test %D%/mutants.test %D%/README %D%/tape.dict %D%/corpus

if ENABLE_FUZZ
FUZZ_SANITIZE = -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -g

noinst_PROGRAMS += %D%/fuzz_tape %D%/fuzz_tape_nocheck
%C%_fuzz_tape_SOURCES = %D%/fuzz_tape.c %D%/fuzz_tape.h $(libadelim_core_la_SOURCES)
%C%_fuzz_tape_CPPFLAGS = $(AM_CPPFLAGS)
%C%_fuzz_tape_CFLAGS = $(AM_CFLAGS) $(ADE_DEPS_CFLAGS) $(FUZZ_SANITIZE)
%C%_fuzz_tape_LDADD = $(ADE_DEPS_LIBS)

%C%_fuzz_tape_nocheck_SOURCES = $(%C%_fuzz_tape_SOURCES)
%C%_fuzz_tape_nocheck_CPPFLAGS = $(AM_CPPFLAGS) -DADE_FUZZ_NO_CHECKSUM
%C%_fuzz_tape_nocheck_CFLAGS = $(%C%_fuzz_tape_CFLAGS)
%C%_fuzz_tape_nocheck_LDADD = $(ADE_DEPS_LIBS)
endif
