libadelim_core_la_SOURCES += \
	%D%/ops_internal.h \
	%D%/ops_rules.h \
	%D%/record_internal.h \
	%D%/ops.c \
	%D%/tape.c \
	%D%/writer.c \
	%D%/keep.c \
	%D%/thread.c \
	%D%/callsite.c \
	%D%/reader.c \
	%D%/inspect.c \
	%D%/shash.c \
	%D%/elemental.c
