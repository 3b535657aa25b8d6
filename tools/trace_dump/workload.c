/* workload.c - trace_dump: a workload's header and each stream's operations, numbered as
 * trace_run counts calls, after the check trace_run makes before a replay.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include "dump.h"
#include "replay_check.h"
#include "tool.h"
#include "wl_reader.h"
#include "wl_input.h"

#define S(n) ((n) == 1 ? "" : "s")   /* the plural's s */

static void print_wl_header(const struct wl_reader *w, const char *shown)
{
	const struct mtrace_wl_header *h = &w->h;
	char a[32], b[32], c[32], d[32], e[32];
	printf("# file      %s\n", shown);
	printf("# format    mtrace workload v%u, %u-byte header, %s bytes%s\n",
	       (unsigned)h->version, (unsigned)h->header_size, fmt_commas(a, h->file_size),
	       (h->flags & MTRACE_WL_HF_FROM_DJ) ? ", from a dj/malloc trace or workload" : "");
	printf("# program   %s (pid %d)\n", h->program[0] ? h->program : "(unknown)", (int)h->pid);
	if (h->allocator[0])
		printf("# allocator %s (the one it ran on)\n", h->allocator);
	if (h->settings[0])
		printf("# settings  %s (the allocators' settings it ran with)\n", h->settings);
	if (wl_settings_set(h)[0])
		printf("# run time  %s (of those, set by the program as it ran)\n",
		       wl_settings_set(h));
	printf("# streams   %u", (unsigned)h->nthreads);
	if (h->max_live_threads)
		printf(" (%u threads alive at once)", (unsigned)h->max_live_threads);
	/* the calls counted are the allocator's, in every tool; the mappings apart */
	uint64_t maps = MTRACE_WL_MAP_OPS(h->counts), calls = h->ncalls - maps;
	printf(", %s slot%s, %s call%s", fmt_commas(a, h->nslots), S(h->nslots),
	       fmt_commas(b, calls), S(calls));
	if (maps)
		printf(" and %s mapping call%s", fmt_commas(a, maps), S(maps));
	printf(", %s wait%s, %s failed\n", fmt_commas(c, h->nwaits), S(h->nwaits),
	       fmt_commas(d, h->failed));
	printf("# calls    ");
	for (unsigned op = 1; op <= MTRACE_WL_LAST_MAP; op++)
		if (h->counts[op])
			printf(" %s %s", mtrace_wl_op_name(op), fmt_commas(a, h->counts[op]));
	printf("\n# ideal RSS %s bytes, after %s calls\n", fmt_commas(a, h->ideal_rss),
	       fmt_commas(b, h->ideal_rss_call));
	if (h->flags & MTRACE_WL_HF_MAPPINGS)
		printf("# mappings  %s map id%s; the program mapped %s bytes itself at the most\n",
		       fmt_commas(a, h->nmaps), S(h->nmaps), fmt_commas(b, h->mapped_peak));
	if (h->flags & MTRACE_WL_HF_RESIDENT)
		printf("# resident  blocks of %s bytes or more "
		       "say how much the program had resident\n",
		       fmt_commas(a, h->resident_min));
	if (h->flags & MTRACE_WL_HF_PACE)
		printf("# pace      idle times of %s us or more marked; the trace ran %s us\n",
		       fmt_commas(a, h->pace_us), fmt_commas(b, h->duration_us));
	if (h->flags & MTRACE_WL_HF_SAMPLES) {
		struct mtrace_wl_sample first = { 0 }, peak = { 0 }, x;
		for (uint64_t i = 0; i < h->nsamples; i++) {
			wl_sample(w, i, &x);
			if (i == 0)
				first = x;
			if (x.anon >= peak.anon)
				peak = x;
		}
		printf("# samples   %s of the program's memory: "
		       "anonymous RSS %s bytes at the first, %s at the most "
		       "(after %s calls, at %s us)\n",
		       fmt_commas(a, h->nsamples), fmt_commas(b, first.anon),
		       fmt_commas(c, peak.anon), fmt_commas(d, peak.calls),
		       fmt_commas(e, peak.time_us));
	}
}

static void print_slot(uint64_t s)
{
	if (s)
		printf("slot %" PRIu64, s);
	else
		printf("NULL");
}

static void print_op(const struct wl_op *op, uint64_t call)
{
	switch (op->op) {
	case MTRACE_WL_WAIT:
		printf("%12" PRIu64 " %10s  wait for stream %" PRIu64
		       " to finish its call %" PRIu64 "\n",
		       op->offset, "", op->a[0], op->a[1]);
		return;
	case MTRACE_WL_RESIDENT:
		if (op->a[0])
			printf("%12" PRIu64 " %10s  resident: %" PRIu64 " KiB of it\n", op->offset,
			       "", op->a[0] - 1);
		else
			printf("%12" PRIu64 " %10s  resident: not known\n", op->offset, "");
		return;
	case MTRACE_WL_AT:
		printf("%12" PRIu64 " %10s  at %.6f s (after an idle time)\n", op->offset, "",
		       (double)op->a[0] / 1e6);
		return;
	case MTRACE_WL_MAP: case MTRACE_WL_REMAP:
		printf("%12" PRIu64 " %10" PRIu64 "  %s(map %" PRIu64 ", %" PRIu64 ")\n",
		       op->offset, call, mtrace_wl_op_name(op->op), op->a[0], op->a[1]);
		return;
	case MTRACE_WL_UNMAP:
		printf("%12" PRIu64 " %10" PRIu64 "  unmap(map %" PRIu64 ", offset %" PRIu64
		       ", %" PRIu64 ")\n",
		       op->offset, call, op->a[0], op->a[1], op->a[2]);
		return;
	}
	printf("%12" PRIu64 " %10" PRIu64 "  %s(", op->offset, call, mtrace_wl_op_name(op->op));
	if (!(mtrace_wl_call_operands(op->op) & MTRACE_OPD_RESULT)) {   /* free: its block */
		print_slot(op->a[0]);
		printf(")\n");
		return;
	}
	/* the operands after the result slot: the old block's slot (realloc's kind), then
	   alignment, count and size as the call takes them, in one printf whose format is made
	   once an opcode */
	static char fmts[MTRACE_WL_LAST_CALL + 1][40];
	int i = 1;
	if (mtrace_wl_resizes(op->op))
		print_slot(op->a[i++]);
	char *f = fmts[op->op];
	if (!f[0]) {
		size_t k = 0;
		for (int j = i; j < op->n && k < sizeof fmts[0]; j++)
			k += (size_t)snprintf(f + k, sizeof fmts[0] - k, "%s%%" PRIu64,
					      j > 1 ? ", " : "");
	}
	const uint64_t *a = op->a + i;   /* (3 at most: 2 after an old slot) */
	printf(f, a[0], a[1], i == 1 ? a[2] : 0);
	printf(")");
	if (op->failed)
		printf(" failed\n");
	else if (op->a[0])
		printf(" -> slot %" PRIu64 "\n", op->a[0]);
	else
		printf("\n");
}

int dump_workload(const char *path, const char *shown)
{
	struct wl_reader w;
	if (wl_open(&w, path) < 0) {
		wl_input_name(w.err.msg, sizeof w.err.msg, path, shown);
		tool_warn("%s", w.err.msg);
		return -1;
	}
	w.name = shown;
	if (opt.stream >= 0 && (uint64_t)opt.stream >= w.h.nthreads)
		tool_die(EXIT_USAGE, "%s: --stream %" PRId64 ": it has streams 0 to %u", shown,
			 opt.stream, (unsigned)w.h.nthreads - 1);
	/* what trace_run checks before replaying: every stream decodes, every wait can be
	   satisfied.  A workload that fails is still printed (what it holds shows why), and the
	   exit status says it failed. */
	struct replay_plan plan;
	struct tool_err err;
	/* validation trims the slot count to the slots used (the replay's table): the header
	   shown is the file's, as trace2wl wrote it */
	uint64_t file_nslots = w.h.nslots;
	int valid = replay_validate(&w, &plan, &err) == 0;
	w.h.nslots = file_nslots;
	if (valid)
		replay_plan_free(&plan);
	else
		tool_warn("%s", err.msg);
	if (opt.check) {
		if (!valid) {
			wl_close(&w);
			return -1;
		}
		char a[32], b[32];
		printf("%s: valid workload: %s call%s in %u stream%s, %s wait%s, all satisfiable\n",
		       shown, fmt_commas(a, w.h.ncalls), S(w.h.ncalls), (unsigned)w.h.nthreads,
		       S(w.h.nthreads), fmt_commas(b, w.h.nwaits), S(w.h.nwaits));
		wl_close(&w);
		return 0;
	}
	print_wl_header(&w, shown);
	int rc = 0;
	for (uint32_t t = 0; t < w.h.nthreads && !opt.header_only && rc == 0; t++) {
		if (opt.stream >= 0 && t != (uint64_t)opt.stream)
			continue;
		char a[32], b[32], c[32];
		const struct mtrace_wl_thread *th = &w.threads[t];
		printf("# stream %u: thread %u, %s call%s, %s bytes at offset %s\n", (unsigned)t,
		       (unsigned)th->tid, fmt_commas(a, th->ncalls), S(th->ncalls),
		       fmt_commas(b, th->length), fmt_commas(c, th->offset));
		printf("#     offset       call  operation\n");
		struct wl_cursor cur;
		struct wl_op op;
		wl_cursor_init(&w, t, &cur);
		uint64_t call = 0, shown_ops = 0;
		while (shown_ops < opt.limit && (rc = wl_next(&w, &cur, &op)) > 0) {
			int is_call = mtrace_wl_is_call(op.op);
			call += is_call;
			/* a wait or an AT belongs to the call after it, a RESIDENT to the one
			   before: shown from --from's call on */
			if (call + (op.op == MTRACE_WL_WAIT || op.op == MTRACE_WL_AT) < opt.from)
				continue;
			print_op(&op, call);
			shown_ops++;
		}
		if (rc > 0)
			rc = 0;   /* stopped by --limit */
	}
	if (rc < 0 && valid)   /* (an invalid one: said above) */
		tool_warn("%s", w.err.msg);
	wl_close(&w);
	return rc < 0 || !valid ? -1 : 0;
}
