/* run_argv.h - an argument vector built an argument at a time, for the runs trace_run starts of
 * itself: formatted arguments go into the vector's own bounded text; one that does not fit
 * makes the vector unusable rather than cut short. */
#ifndef RUN_ARGV_H
#define RUN_ARGV_H
#include <stddef.h>

#define RUN_ARGV_MAX 128              /* arguments: ~16 options, 2 a --mallopt (32 + 16 of them) */
#define RUN_ARGV_TEXT (40u << 10)      /* bytes of formatted arguments (paths of 4 KiB and more) */

struct run_argv {
	char *v[RUN_ARGV_MAX + 1];    /* NULL-terminated */
	int n;
	int overflow;                 /* an argument did not fit */
	size_t used;
	char text[RUN_ARGV_TEXT];
};

void run_argv_init(struct run_argv *a);
/* s itself (not copied: it must outlive the vector) */
void run_argv_add(struct run_argv *a, const char *s);
/* printf's formatting, into the vector's text */
void run_argv_addf(struct run_argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* the vector for execv, or NULL if an argument did not fit */
char **run_argv_get(struct run_argv *a);
#endif
