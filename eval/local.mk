# eval/local.mk: evaluation of a finished tape (sweeps, linearization, new points).
libadelim_core_la_SOURCES += \
	%D%/eval_internal.h \
	%D%/sweep.c \
	%D%/livemap.c \
	%D%/linear.c \
	%D%/lincache.c \
	%D%/point.c \
	%D%/resident.c \
	%D%/elemental.c \
	%D%/pcache.c \
	%D%/ploop.c
