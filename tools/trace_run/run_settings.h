/* run_settings.h - the allocators' settings: the program's (the workload's header) and the
 * replay's, set side by side. */
#ifndef RUN_SETTINGS_H
#define RUN_SETTINGS_H
#include <stddef.h>
#include <stdio.h>
#include "run_opts.h"

/* What the traced program ran on and with (the workload header's), for the lines below */
struct as_traced {
	char allocator[64];           /* its file name; "" unknown */
	char settings[384];
	char set[384];                /* of those, the ones it set as it ran ("" none, or unknown) */
};

/* This replay's settings, written as a trace header's are read: its environment's (MALLOC_*,
   ...; and GLIBC_TUNABLES, which --tunables replaces), a --compare column's (col, or NULL), and
   the mallopt parameters (M_NAME=VALUE) of --mallopt and the column; "" if none */
void run_settings_text(const struct run_opts *o, const struct run_variant *col, char *buf,
		       size_t cap);
/* A line after the summary, when the program ran on another allocator than this replay, or
   either with settings */
void run_settings_print(FILE *out, const struct run_opts *o, const struct as_traced *t,
			const char *alloc, const struct run_variant *col);
/* Does this replay run on the allocator the program ran on, with its settings? */
int run_as_the_program(const struct run_opts *o, const struct as_traced *t, const char *alloc);
#endif
