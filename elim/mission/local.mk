# elim/mission/local.mk: AD missions (generalized face elimination over
# vector elementals): the mission DAG, GraphML, planners. Above elim/ and
# beside elim/opt/: neither includes this folder's header.
libadelim_core_la_SOURCES += \
	%D%/mission_internal.h \
	%D%/dag.c \
	%D%/graphml.c \
	%D%/ldag.c \
	%D%/heur.c \
	%D%/dp.c \
	%D%/ttable.c \
	%D%/bnb.c \
	%D%/decomp.c \
	%D%/plan.c \
	%D%/exec.c \
	%D%/tape.c

check_PROGRAMS += tests/check_mission
tests_check_mission_SOURCES = tests/check_mission.c
tests_check_mission_CPPFLAGS = $(TEST_CPPFLAGS) -DMISSION_DATA='"$(top_srcdir)/tests/data/mission"'
tests_check_mission_CFLAGS = $(TEST_CFLAGS)
tests_check_mission_LDADD = $(TEST_LDADD)
TESTS += tests/check_mission
EXTRA_DIST += tests/data/mission/lion.xml tests/data/mission/bat.xml tests/data/mission/README.md

check_PROGRAMS += tests/check_mtape
tests_check_mtape_SOURCES = tests/check_mtape.c
tests_check_mtape_CPPFLAGS = $(TEST_CPPFLAGS)
tests_check_mtape_CFLAGS = $(TEST_CFLAGS)
tests_check_mtape_LDADD = $(TEST_LDADD)
TESTS += tests/check_mtape
