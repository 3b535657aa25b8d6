/* run_opts.h - trace_run's command line: its options, parsed and checked. */
#ifndef RUN_OPTS_H
#define RUN_OPTS_H
#include "replay.h"
#include "run_env.h"

/* Some call failed in the replay that succeeded in the program (unless --allow-failures) */
#define EXIT_CALLS_FAILED 4

#define RUN_COLUMNS 16    /* --compare's columns at most */

struct run_opts {
	const char *malloc_name, *compare, *log, *latency, *tunables, *format;
	const char *mallopts[32];
	int nmallopt, allow_failures;
	int dj_summary;               /* the summary's first 12 lines as dj/malloc's, for parsers */
	unsigned repeat;
	struct replay_opts ro;
	struct run_variant *cols;     /* --compare's columns, ncompare of them */
	int ncompare;
	/* A run of --compare or --repeat (run_multi.c: the command the user ran started it, a
	   process of its own): the label of its progress line ("": none) and the column it is
	   ("": none); both NULL in the command the user ran.  Told by the environment, read once. */
	const char *child_label, *child_column;
};

/* Parse argv into o: -1 to go on with the workload at argv[*workload]; otherwise the exit
   status to end with (--help, --version, a command line without one workload).  Other usage
   errors exit 2 with a message. */
int run_opts_parse(int argc, char **argv, struct run_opts *o, int *workload);
#endif
