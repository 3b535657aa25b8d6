/* stacks_check - test helper: the call stacks of a trace as tools/lib/analysis/stacks.c reads
 * them.  One line per allocating call (the first 1,000), once the whole trace is read: CALL SIZE stack ID: NAME; NAME; ... (innermost first).
 *
 *   stacks_check [-l] [-s] TRACE
 *     -l   names from the trace's SYMBOL records and object+offset only (not the files here)
 *     -s   through the reader's hook (ext_fn) and kept CALLERs, as a tool reading through
 *          order.c does, instead of the records returned in file order
 * Exit 1 with the reader's or the table's message on a bad trace.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "stacks.h"
#include "tool.h"
#include "trace_reader.h"

static struct trace_stacks *st;

static int feed(void *arg, const struct mtrace_record *rec, const struct mtrace_slot *slots,
		uint64_t off)
{
	struct trace_reader *r = arg;
	if (trace_stacks_add(st, rec, slots, off) < 0) {
		r->ext_err = trace_stacks_error(st);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int local = 0, hook = 0, c;
	tool_set_name("stacks_check", argv);
	while ((c = getopt(argc, argv, "ls")) != -1)
		if (c == 'l')
			local = 1;
		else if (c == 's')
			hook = 1;
		else
			return 2;
	if (optind + 1 != argc)
		return 2;
	struct trace_reader r;
	if (trace_open(&r, argv[optind]) < 0)
		tool_die(EXIT_BADFILE, "%s", r.err.msg);
	st = trace_stacks_new();
	trace_stacks_set_name(st, r.name);
	trace_stacks_set_local(st, !local);
	if (hook) {
		r.ext_fn = feed;
		r.ext_arg = &r;
		trace_stacks_keep_callers(st, 1);
	} else
		r.ext_return = 1;
	struct mtrace_record rec;
	uint64_t off;
	int k;
	char line[8192];
	/* the names once every record is read (trace_pack's SYMBOL records come last) */
	static struct { unsigned call; uint64_t size; uint32_t id; } calls[1000];
	size_t ncalls = 0;
	while ((k = trace_next(&r, &rec, &off)) > 0) {
		if (!hook && trace_stacks_add(st, &rec, trace_ext_slots(&r, &rec), off) < 0)
			tool_die(EXIT_BADFILE, "%s", trace_stacks_error(st));
		if (mtrace_call_has(rec.call, MTRACE_OPD_ALLOC) && ncalls < 1000)
			calls[ncalls++] = (__typeof__(calls[0])){ rec.call, rec.size,
								 trace_stacks_caller(st, &rec, off) };
	}
	if (k < 0)
		tool_die(EXIT_BADFILE, "%s", r.err.msg);
	for (size_t j = 0; j < ncalls; j++) {
		const uint64_t *f;
		unsigned n = trace_stacks_frames(st, calls[j].id, &f);
		int at = snprintf(line, sizeof line, "%s %llu stack %u:",
				  mtrace_call_name(calls[j].call),
				  (unsigned long long)calls[j].size, calls[j].id);
		for (unsigned i = 0; i < n && at < (int)sizeof line; i++)
			at += snprintf(line + at, sizeof line - (size_t)at, "%s %s",
				       i ? ";" : "", trace_stacks_name(st, f[i]));
		puts(line);
	}
	printf("stacks %u has %d\n", trace_stacks_count(st), trace_stacks_has(st));
	trace_stacks_free(st);
	trace_close(&r);
	return 0;
}
