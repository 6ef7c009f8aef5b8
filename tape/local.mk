libadelim_core_la_SOURCES += \
	%D%/tape_internal.h \
	%D%/store.c \
	%D%/format.c \
	%D%/meta.c
