libadelim_core_la_SOURCES += \
	%D%/ops_internal.h \
	%D%/ops_rules.h \
	%D%/ops.c
