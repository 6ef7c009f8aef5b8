# The convenience library holds everything; libadelim.la re-exports it.
noinst_LTLIBRARIES += libadelim-core.la
libadelim_core_la_CFLAGS = $(AM_CFLAGS) $(ADE_DEPS_CFLAGS)
libadelim_core_la_LIBADD = $(ADE_DEPS_LIBS)
libadelim_core_la_SOURCES = \
	%D%/common_internal.h \
	%D%/error.h \
	%D%/alloc.h \
	%D%/error.c \
	%D%/alloc.c \
	%D%/clock.c \
	%D%/file.c \
	%D%/sparse.c \
	%D%/u64map_internal.h \
	%D%/u64map.c

lib_LTLIBRARIES += libadelim.la
libadelim_la_SOURCES =
libadelim_la_LIBADD = libadelim-core.la
libadelim_la_LDFLAGS = -version-info $(ADE_LT_VERSION)
