/* run_settings.c - see run_settings.h */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "mtrace-trace.h"
#include "run_settings.h"

/* ---------------------------------------------------------------------------------------------
   The allocators' settings: the program's (the workload's header) and the replay's
   ------------------------------------------------------------------------------------------- */

/* This replay's, written as a trace header's are read: its environment's (MALLOC_*, ...; and
   GLIBC_TUNABLES, which --tunables replaces), a --compare column's (col, or NULL), and the
   mallopt parameters (M_NAME=VALUE) of --mallopt and the column; "" if none */
void run_settings_text(const struct run_opts *o, const struct run_variant *col, char *buf,
		       size_t cap)
{
	size_t n = 0;
	buf[0] = 0;
	const char *ctun = col ? col->tunables : "";
#define ADD(...) (n < cap ? (n += (size_t)snprintf(buf + n, cap - n, __VA_ARGS__)) : 0)
	for (char **e = environ; e && *e; e++)
		if (mtrace_is_setting(*e) &&
		    !((o->tunables || ctun[0]) && !strncmp(*e, "GLIBC_TUNABLES=", 15)))
			ADD("%s%s", n ? " " : "", *e);
	for (int i = 0; col && i < col->nenv; i++)
		ADD("%s%s", n ? " " : "", col->env[i]);
	if (o->tunables || ctun[0])
		ADD("%sGLIBC_TUNABLES=%s%s%s", n ? " " : "", o->tunables ? o->tunables : "",
		    o->tunables && ctun[0] ? ":" : "", ctun);
	for (int i = 0; i < o->nmallopt; i++)
		ADD("%s%s", n ? " " : "", o->mallopts[i]);
	for (int i = 0; col && i < col->nmallopt; i++)
		ADD("%s%s", n ? " " : "", col->mallopt[i]);
#undef ADD
}


/* A line after the summary, when the program ran on another allocator than this replay, or
   either with settings: a maintainer comparing the two needs to know */
void run_settings_print(FILE *out, const struct run_opts *o, const struct as_traced *t,
			const char *alloc, const struct run_variant *col)
{
	char mine[2048];
	run_settings_text(o, col, mine, sizeof mine);
	const char *slash = strrchr(alloc, '/'), *ours = slash ? slash + 1 : alloc;
	int other = t->allocator[0] &&
		    strcmp(allocator_name_of(t->allocator), allocator_name_of(alloc));
	if (t->settings[0] || mine[0] || other)
		fprintf(out, "Allocator as traced: %s, with %s%s%s%s; this replay: %s, with %s\n",
		       t->allocator[0] ? t->allocator : "unknown",
		       t->settings[0] ? t->settings : "no settings",
		       t->set[0] ? " (set by the program as it ran: " : "", t->set,
		       t->set[0] ? ")" : "", ours, mine[0] ? mine : "no settings");
}

/* Is every setting of a (NAME=VALUE separated by spaces) one of b's? */
static int settings_in(const char *a, const char *b)
{
	for (const char *w = a; *w;) {
		size_t n = strcspn(w, " ");
		int found = n == 0;
		for (const char *v = b; *v && !found;) {
			size_t m = strcspn(v, " ");
			found = m == n && !strncmp(v, w, n);
			v += m + (v[m] == ' ');
		}
		if (!found)
			return 0;
		w += n + (w[n] == ' ');
	}
	return 1;
}

static int same_settings(const char *a, const char *b)
{
	return settings_in(a, b) && settings_in(b, a);
}

/* Does this replay run on the allocator the program ran on, with its settings?  Only then do
   the program's figures beside it measure the replay, not another allocator. */
int run_as_the_program(const struct run_opts *o, const struct as_traced *t, const char *alloc)
{
	char mine[2048];
	run_settings_text(o, NULL, mine, sizeof mine);
	return t->allocator[0] &&
	       !strcmp(allocator_name_of(t->allocator), allocator_name_of(alloc)) &&
	       same_settings(t->settings, mine);
}
