/* run_argv.c - see run_argv.h */
#include <stdarg.h>
#include <stdio.h>
#include "run_argv.h"

void run_argv_init(struct run_argv *a)
{
	a->n = 0;
	a->overflow = 0;
	a->used = 0;
	a->v[0] = NULL;
}

void run_argv_add(struct run_argv *a, const char *s)
{
	if (a->n == RUN_ARGV_MAX) {
		a->overflow = 1;
		return;
	}
	a->v[a->n++] = (char *)s;
	a->v[a->n] = NULL;
}

void run_argv_addf(struct run_argv *a, const char *fmt, ...)
{
	char *at = a->text + a->used;
	size_t room = sizeof a->text - a->used;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(at, room, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= room) {
		a->overflow = 1;
		return;
	}
	a->used += (size_t)k + 1;
	run_argv_add(a, at);
}

char **run_argv_get(struct run_argv *a)
{
	return a->overflow ? NULL : a->v;
}
