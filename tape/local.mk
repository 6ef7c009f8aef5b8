libadelim_core_la_SOURCES += \
	%D%/tape_internal.h
