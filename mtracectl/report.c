/* report.c - what mtracectl says when the program has ended: a line for each trace it wrote (or,
 * for many, the totals by program and the largest), then the command that makes a workload. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "hint.h"
#include "report.h"
#include "tool.h"
#include "trace_reader.h"

#define EXIT_TOOL 125   /* (mtracectl's own failure) */

/* ---------------------------------------------------------------------------------------------
   The report
   ------------------------------------------------------------------------------------------- */

#define UNFINISHED_COUNTED (64u << 20)   /* bytes: an unclosed trace up to this is read through */

/* The calls of a trace just opened: the writer's own count, from the header; a trace it did
   not close (the program exec'd, called _exit or was killed) is counted here if it is small:
   reading a big one through would hold the user up.  1 if *n is known. */
static int count_calls(struct trace_reader *r, off_t size, uint64_t *n)
{
	/* finished, or stopped then closed */
	if ((r->hdr.flags & MTRACE_HF_FINISHED) ||
	    ((r->hdr.flags & MTRACE_HF_STOPPED_EARLY) && r->hdr.calls_recorded)) {
		*n = r->hdr.calls_recorded;
		return 1;
	}
	if (size > (off_t)UNFINISHED_COUNTED)
		return 0;
	struct mtrace_record rec;
	int k;
	*n = 0;
	while ((k = trace_next(r, &rec, NULL)) > 0)   /* the allocator's calls, as the writer's */
		*n += rec.call >= 1 && rec.call <= MTRACE_CALL_LAST_API;
	return k == 0;
}

/* The line after the list: the command that makes a workload of the trace (of the one with
   the most calls, when there are several: a workload is made of one process's) and replays it */
static void next_step(const char *trace, const char *exe, int traces)
{
	char wl[300], qwl[700], qtrace[2 * PATH_MAX];
	hint_shell_word(qwl, sizeof qwl, hint_workload_name(wl, sizeof wl, trace, exe));
	fprintf(stderr, "mtracectl: next: %strace2wl %s %s && trace_run %s\n",
		traces > 1 ? "a workload per trace (one process each); of the one with the most "
		"calls: " : "",
		qwl, hint_shell_word(qtrace, sizeof qtrace, trace), qwl);
}

/* A trace of the list: its line, and what the summary of many needs */
struct listed {
	char *line;                  /* "pid N (PROG): FILE, ..." */
	char prog[64];               /* the program's file name */
	uint64_t calls;
};

#define LISTED_ALL 8   /* traces listed a line each; more are summed up in a line */

/* Many traces (a shell script's every command, each exec an image of its own): one line of
   totals by program, then the trace with the most calls */
static void report_many(struct listed *t, int n, int best)
{
	struct { const char *prog; int n; } by[16];
	int nby = 0, others = 0;
	uint64_t calls = 0;
	for (int i = 0; i < n; i++) {
		calls += t[i].calls;
		int k = 0;
		while (k < nby && strcmp(by[k].prog, t[i].prog))
			k++;
		if (k == nby && nby < (int)(sizeof by / sizeof by[0]))
			by[nby++] = (typeof(by[0])){ t[i].prog, 0 };
		if (k < nby)
			by[k].n++;
		else
			others++;
	}
	for (int i = 1; i < nby; i++)   /* most traces first */
		for (int j = i; j > 0 && by[j].n > by[j - 1].n; j--) {
			typeof(by[0]) x = by[j];
			by[j] = by[j - 1], by[j - 1] = x;
		}
	char c[32];
	fprintf(stderr, "mtracectl: %d traces, %s calls in all:", n, fmt_commas(c, calls));
	for (int i = 0; i < nby; i++)
		fprintf(stderr, "%s %d %s", i ? "," : "", by[i].n, by[i].prog);
	if (others)
		fprintf(stderr, ", %d of other programs", others);
	fprintf(stderr, " (--only=PROGRAM traces that one alone)\n");
	if (best >= 0)
		fprintf(stderr, "mtracectl: the most calls: %s\n", t[best].line);
}

void report_traces(const char *manifest)
{
	FILE *f = fopen(manifest, "r");
	if (f == NULL)
		return;
	char line[PATH_MAX + 2], best[PATH_MAX + 2] = "", best_exe[4096] = "";
	int n = 0, opened = 0, best_at = -1, cap = 0;
	uint64_t best_calls = 0;
	struct listed *t = NULL;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		struct stat st;
		if (stat(line, &st) < 0)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			if ((t = realloc(t, (size_t)cap * sizeof *t)) == NULL)
				tool_die(EXIT_TOOL, "out of memory");
		}
		struct trace_reader r;
		char size[32], calls[64], text[2 * PATH_MAX + 600];
		memset(&t[n], 0, sizeof t[n]);
		if (trace_open(&r, line) == 0) {
			const char *exe = strrchr(r.exe, '/');
			uint64_t nc;
			if (count_calls(&r, st.st_size, &nc))
				snprintf(calls, sizeof calls, "%s call%s", fmt_commas(size, nc),
					 nc == 1 ? "" : "s");
			else
				snprintf(calls, sizeof calls,
					 "calls not counted (not closed by the tracer)"), nc = 0;
			if (!opened++ || nc > best_calls) {   /* the next step's example */
				best_calls = nc;
				best_at = n;
				snprintf(best, sizeof best, "%s", line);
				snprintf(best_exe, sizeof best_exe, "%s",
					 r.argv0[0] ? r.argv0 : r.exe);
			}
			char why[200], stopped[260] = "";
			if (r.hdr.flags & MTRACE_HF_STOPPED_EARLY)
				snprintf(stopped, sizeof stopped, " (tracing stopped early: %s)",
					 trace_stop_text(&r.hdr, why, sizeof why));
			/* named as it was run (a link's name: redis-server, not the
			   redis-check-rdb it points to) */
			snprintf(t[n].prog, sizeof t[n].prog, "%.63s",
				 r.argv0[0] ? r.argv0 : exe ? exe + 1 : r.exe[0] ? r.exe : "?");
			t[n].calls = nc;
			snprintf(text, sizeof text, "pid %d (%s): %s, %s, %s bytes%s%s",
				 (int)r.hdr.pid, t[n].prog, line, calls,
				 fmt_commas(size, (unsigned long long)st.st_size),
				 (r.hdr.flags & MTRACE_HF_BYPASSED)
				 ? " (its own allocator comes before the tracer: those calls are "
				   "not traced)" : "",
				 stopped);
		} else {
			snprintf(t[n].prog, sizeof t[n].prog, "?");
			snprintf(text, sizeof text, "%s", r.err.msg);
		}
		trace_close(&r);
		if ((t[n].line = strdup(text)) == NULL)
			tool_die(EXIT_TOOL, "out of memory");
		n++;
	}
	fclose(f);
	if (n == 0)
		fprintf(stderr, "mtracectl: no trace was written\n");
	else if (n <= LISTED_ALL)
		for (int i = 0; i < n; i++)
			fprintf(stderr, "mtracectl: %s\n", t[i].line);
	else
		report_many(t, n, best_at);
	for (int i = 0; i < n; i++)
		free(t[i].line);
	free(t);
	if (opened)
		next_step(best, best_exe, opened);
}

