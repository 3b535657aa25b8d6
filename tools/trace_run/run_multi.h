/* run_multi.h - --compare and --repeat: each run a fresh process of trace_run itself, its
 * figures read back and set side by side. */
#ifndef RUN_MULTI_H
#define RUN_MULTI_H
#include <stdint.h>
#include "run_opts.h"
#include "run_settings.h"

/* What the user named, when the workload is a temporary copy of it (NULL: it is not) */
extern const char *run_copy_of;

/* Run the workload (its plain copy) once a column and repetition; print the table.  The exit
   status. */
int run_multi(const struct run_opts *o, const char *workload, const struct as_traced *traced);

/* The summary of one allocator's run (or the medians of its runs) as text, its settings and
   fidelity lines after it: on a terminal, long lines broken at spaces to fit its width */
void run_print_summary(const struct run_opts *o, const struct as_traced *traced,
		       const char *alloc, const struct run_variant *col, const int64_t *f,
		       const char *name, const char *timer, unsigned runs);
#endif
