/* follow.c - trace_stats --follow: a compact view of a trace while it is written, every
 * interval, until its writer is done.
 *
 * Records come as each thread's chunk grows (trace_follow.h), not in the global order: a free
 * may come before the allocation it frees, when the two threads' chunks are read in that
 * order.  Such a free is kept aside with its time and cancels the allocation when it comes, so
 * the live bytes are those of the records read, whatever their order.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "follow.h"
#include "stacks.h"
#include "tool.h"
#include "trace_follow.h"
#include "trace_reader.h"
#include "u64map.h"
#include "units.h"

#define LARGEST 5
#define SITES 5
#define EARLY_FREES_MAX (1u << 20)   /* frees met before their allocation, kept at most */
#define SITES_MAX (1u << 16)         /* call sites counted */

struct view {
	const struct trace_reader *r;
	uint64_t calls[MTRACE_CALL_LAST_API + 1], total, prev[MTRACE_CALL_LAST_API + 1];
	uint64_t live_bytes, live_blocks, peak_bytes;
	uint64_t rss, rss_ts;           /* the last memory sample: resident bytes, when */
	uint64_t first_ts, last_ts;
	uint64_t view_ts;               /* last_ts at the last view (0: none yet) */
	struct u64map blocks;           /* address -> bytes asked for */
	struct u64map early;            /* address -> ts of a free met before its allocation */
	struct u64map site_bytes;       /* caller's return address -> bytes allocated */
	uint64_t caller, caller_off;    /* the last CALLER record: its address, its offset */
	struct trace_stacks *st;        /* the objects and names, to name the sites */
};

static void alloc_block(struct view *v, uint64_t p, uint64_t bytes, uint64_t ts)
{
	uint64_t freed_at;
	if (u64map_take(&v->early, p, &freed_at)) {
		if (freed_at >= ts)
			return;   /* (freed already: it came to us after its free) */
	}
	uint64_t *old = u64map_get(&v->blocks, p);
	if (old) {   /* (its free is still to come, in a chunk not read yet) */
		v->live_bytes -= *old;
		v->live_blocks--;
	}
	if (u64map_put(&v->blocks, p, bytes) < 0)
		tool_die(EXIT_SYSTEM, "out of memory");
	v->live_bytes += bytes;
	v->live_blocks++;
	if (v->live_bytes > v->peak_bytes)
		v->peak_bytes = v->live_bytes;
}

static void free_block(struct view *v, uint64_t p, uint64_t ts)
{
	uint64_t bytes;
	if (!p)
		return;
	if (u64map_take(&v->blocks, p, &bytes)) {
		v->live_bytes -= bytes;
		v->live_blocks--;
	} else if (v->early.n < EARLY_FREES_MAX && u64map_put(&v->early, p, ts) < 0)
		tool_die(EXIT_SYSTEM, "out of memory");
}

static int each_record(void *arg, const struct mtrace_record *rec, const struct mtrace_slot *s,
		       uint64_t off)
{
	struct view *v = arg;
	unsigned call = rec->call;
	if (mtrace_call_is_ext(call)) {
		if (trace_stacks_add(v->st, rec, s, off) < 0) {
			tool_warn("%s", trace_stacks_error(v->st));
			return -1;
		}
		return 0;
	}
	if (call == MTRACE_CALL_CALLER) {
		/* (version 6 gives the stack alone: its innermost frame is the return address) */
		const uint64_t *f;
		v->caller = rec->ptr;
		if (!v->caller && rec->size &&
		    trace_stacks_frames(v->st, (uint32_t)rec->size, &f) > 0)
			v->caller = f[0];
		v->caller_off = off;
		return 0;
	}
	if (call == MTRACE_CALL_MEMORY) {
		if (rec->ts >= v->rss_ts) {
			v->rss = rec->arg2;
			v->rss_ts = rec->ts;
		}
		return 0;
	}
	if (call == 0 || call > MTRACE_CALL_LAST_API)
		return 0;
	v->calls[call]++;
	v->total++;
	if (!v->first_ts || rec->ts < v->first_ts)
		v->first_ts = rec->ts;
	if (rec->ts > v->last_ts)
		v->last_ts = rec->ts;
	if (mtrace_call_has(call, MTRACE_OPD_PTR))
		free_block(v, rec->ptr, rec->ts);
	if (mtrace_call_has(call, MTRACE_OPD_RESULT) && rec->result &&
	    !(rec->flags & MTRACE_RF_FAILED)) {
		uint64_t bytes = mtrace_record_bytes(rec);
		alloc_block(v, rec->result, bytes, rec->ts + rec->duration);
		/* (a CALLER is the slot just before its call's record) */
		if (v->caller_off + MTRACE_SLOT_SIZE == off && v->caller) {
			uint64_t *b = u64map_get(&v->site_bytes, v->caller);
			if (b)
				*b += bytes;
			else if (v->site_bytes.n < SITES_MAX &&
				 u64map_put(&v->site_bytes, v->caller, bytes) < 0)
				tool_die(EXIT_SYSTEM, "out of memory");
		}
	}
	return 0;
}

/* the n largest values of m, largest first, with their keys */
static unsigned top(const struct u64map *m, unsigned n, uint64_t *val, uint64_t *key)
{
	unsigned k = 0;
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->slots[i].key)
			continue;
		uint64_t x = m->slots[i].val;
		unsigned j = k < n ? k++ : n;
		if (j == n && x <= val[n - 1])
			continue;
		if (j == n)
			j = n - 1;
		for (; j > 0 && val[j - 1] < x; j--) {
			val[j] = val[j - 1];
			key[j] = key[j - 1];
		}
		val[j] = x;
		key[j] = m->slots[i].key;
	}
	return k;
}

static void print_view(struct view *v, double seconds, double since, int done, int tty)
{
	char a[40], b[40], c[40];
	if (tty)
		fputs("\033[H\033[J", stdout);
	printf("%s  pid %d  %.1f s traced%s\n", v->r->name, (int)v->r->hdr.pid, seconds,
	       done ? "  (writer done)" : "");
	printf("calls      %s; a second over the last %.1f s:", fmt_commas(a,
	       (unsigned long long)v->total), since);
	int col = 0;
	for (unsigned k = 1; k <= MTRACE_CALL_LAST_API; k++) {
		uint64_t d = v->calls[k] - v->prev[k];
		if (!d)
			continue;
		printf("%s%s %s/s", col++ % 3 ? "  " : "\n           ", mtrace_call_name(k),
		       fmt_commas(b, (unsigned long long)(since > 0 ? d / since : 0)));
	}
	printf("\nlive       %s in %s blocks (peak %s)\n",
	       units_bytes(a, sizeof a, v->live_bytes), fmt_commas(b, v->live_blocks),
	       units_bytes(c, sizeof c, v->peak_bytes));
	if (v->rss_ts)
		printf("rss        %s (the program's last sample)\n",
		       units_bytes(a, sizeof a, v->rss));
	uint64_t val[SITES > LARGEST ? SITES : LARGEST], key[SITES > LARGEST ? SITES : LARGEST];
	unsigned n = top(&v->blocks, LARGEST, val, key);
	if (n) {
		printf("largest   ");
		for (unsigned i = 0; i < n; i++)
			printf(" %s", units_bytes(a, sizeof a, val[i]));
		printf("\n");
	}
	n = top(&v->site_bytes, SITES, val, key);
	for (unsigned i = 0; i < n; i++) {
		/* (names cut to the 80 columns of a terminal) */
		printf("%s%9s  %.55s\n", i ? "           " : "sites      ",
		       units_bytes(a, sizeof a, val[i]), trace_stacks_name(v->st, key[i]));
	}
	if (!done)
		printf("\n");
	fflush(stdout);
	memcpy(v->prev, v->calls, sizeof v->prev);
	v->view_ts = v->last_ts;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

int stats_follow(const char *path, unsigned interval_ms)
{
	struct trace_reader r;
	if (trace_open_follow(&r, path, interval_ms, FOLLOW_IDLE_MS) < 0) {
		tool_warn("%s", r.err.msg);
		trace_close(&r);
		return -1;
	}
	struct view v = { .r = &r, .st = trace_stacks_new() };
	if (!v.st)
		tool_die(EXIT_SYSTEM, "out of memory");
	trace_stacks_set_name(v.st, r.name);
	int tty = isatty(1), done = 0;
	double last = now_s();
	while (!done) {
		const char *why;
		uint64_t at;
		done = trace_follow_poll(r.follow, each_record, &v, &why, &at);
		if (done < 0) {
			tool_warn("%s: offset %llu: %s", r.name, (unsigned long long)at,
				  why ? why : "stopped");
			break;
		}
		double t = now_s();
		const struct mtrace_file_header *h = trace_follow_header(r.follow);
		double span = v.last_ts > v.first_ts && h->ticks_per_sec
			      ? (double)(v.last_ts - v.first_ts) / (double)h->ticks_per_sec : 0;
		/* the rates over the program's time since the last view, not the reader's: a
		   trace read faster than it was written (finished already) is not that fast */
		uint64_t from = v.view_ts ? v.view_ts : v.first_ts;
		double since = v.last_ts > from && h->ticks_per_sec
			       ? (double)(v.last_ts - from) / (double)h->ticks_per_sec : t - last;
		if (done || t - last >= interval_ms / 1000.0) {
			print_view(&v, span, since, done, tty);
			last = t;
		}
		if (!done) {
			struct timespec nap = { interval_ms / 1000,
						(long)(interval_ms % 1000) * 1000000 };
			nanosleep(&nap, NULL);
		}
	}
	u64map_free(&v.blocks);
	u64map_free(&v.early);
	u64map_free(&v.site_bytes);
	trace_stacks_free(v.st);
	trace_close(&r);
	return done < 0 ? -1 : 0;
}
