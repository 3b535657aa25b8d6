/* run_multi.h - --compare and --repeat: each run a fresh process of trace_run itself, its
 * figures read back and set side by side. */
#ifndef RUN_MULTI_H
#define RUN_MULTI_H
#include "run_opts.h"
#include "run_settings.h"

/* What the user named, when the workload is a temporary copy of it (NULL: it is not) */
extern const char *run_copy_of;

/* Run the workload (its plain copy) once a column and repetition; print the table.  The exit
   status. */
int run_multi(const struct run_opts *o, const char *workload, const struct as_traced *traced);
#endif
