/* collect.c - trace_stats: a trace's records, in their global order (order.h), counted into
 * struct stats; memory bounded by the live blocks, not the trace's length.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "stats.h"
#include "tool.h"

static int bucket(uint64_t v)
{
	return v == 0 ? 0 : 64 - __builtin_clzll(v);
}

uint64_t stats_ns(const struct stats *s, uint64_t ticks)
{
	return (uint64_t)((double)ticks * 1e9 / (double)s->tps);
}

/* ---------------------------------------------------------------------------------------------
   Blocks
   ------------------------------------------------------------------------------------------- */

static int block_new(struct stats *s, uint64_t a, uint64_t size, uint64_t t, uint32_t thread)
{
	int64_t i = live_new_block(&s->live);
	if (i < 0)
		return -1;
	*(struct block *)live_block(&s->live, (uint64_t)i) =
		(struct block){ size, t, s->idx, thread };
	uint64_t old;
	int k = live_add(&s->live, a, addrmap_hash(a), (uint64_t)i, size, s->idx, &old);
	if (k < 0)
		return -1;
	if (k & LIVE_REPLACED)   /* allocated while live: the old one's free is missing; drop it */
		live_release_block(&s->live, old);
	if (k & LIVE_PEAK)
		s->peak_t = t;
	return 0;
}

/* Release the block at a (by thread, at t, record r); 0 if it was not live. */
static int block_end(struct stats *s, uint64_t a, uint64_t t, uint32_t thread,
		     const struct mtrace_record *r, uint64_t *size)
{
	uint64_t v;
	if (!live_remove(&s->live, a, addrmap_hash(a), &v))
		return 0;
	const struct block *b = live_block(&s->live, v);
	*size = b->size;
	if (r->flags & MTRACE_RF_RESIDENT) {   /* what of it the program had made resident */
		s->res_n++;
		s->res_size += b->size;
		s->res_bytes += r->arg2;
	}
	s->life_calls[bucket(s->idx - b->idx)]++;
	s->life_ns[bucket(t > b->t ? stats_ns(s, t - b->t) : 0)]++;
	if (b->thread != thread)
		s->xfree++;
	live_release_block(&s->live, v);
	return 1;
}

static void count_size(struct stats *s, uint64_t size, uint64_t usable)
{
	s->size_n[bucket(size)]++;
	s->size_b[bucket(size)] += size;
	s->requested += size;
	if (usable > size)
		s->usable += usable - size;
	uint64_t *c = u64map_get(&s->sizes, size + 1);
	if (c)
		(*c)++;
	else if (s->sizes.n < MAX_SIZES)
		u64map_put(&s->sizes, size + 1, 1);
	else
		s->sizes_dropped++;
}

/* ---------------------------------------------------------------------------------------------
   Events, in global order
   ------------------------------------------------------------------------------------------- */

static int on_thread(void *ctx, uint32_t idx, uint32_t tid)
{
	struct stats *s = ctx;
	if (idx == s->capth) {
		uint32_t cap = s->capth ? s->capth * 2 : 64;
		struct tstat *n = realloc(s->th, cap * sizeof *n);
		if (!n)
			return -1;
		s->th = n;
		s->capth = cap;
	}
	s->th[idx] = (struct tstat){ tid, 0, 0, 0, 0, 0 };
	s->nth = idx + 1;
	return 0;
}

static int on_event(struct stats *s, const struct order_ev *e)
{
	const struct mtrace_record *r = e->rec;
	struct tstat *th = &s->th[e->thread];
	uint64_t size;
	if (e->t > s->t_last)
		s->t_last = e->t;
	if (!progmem_is_api(r->call)) {   /* a mapping call or a memory sample */
		uint64_t before = s->pm.peak_anon_t;
		int rc = progmem_event(&s->pm, e);
		if (s->pm.peak_anon_t != before)
			s->peak_anon_idx = s->idx;
		return rc;
	}
	if (e->kind == ORDER_RELEASE) {
		/* a realloc's first half: the old block ends here
		   (a failed one comes as ORDER_CALL) */
		th->re_old = 0;
		if (r->ptr) {
			if (block_end(s, r->ptr, e->t, e->thread, r, &size))
				th->re_old = size + 1;
			else
				s->re_unknown++;
		}
		return 0;
	}
	s->total++;
	s->idx++;
	s->calls[r->call]++;
	th->calls++;
	int cls = (int)lat_class_of_call(r->call);
	if (s->durations == 2 || (s->durations == 1 && cls == LAT_REALLOC)) {
		s->dur->b[cls][hist_bucket(r->duration)]++;
		s->dur->sum[cls] += r->duration;
		if (r->duration > s->dur->max[cls])
			s->dur->max[cls] = r->duration;
	}
	if (r->flags & MTRACE_RF_FAILED)
		s->failed++;
	if (r->flags & MTRACE_RF_MMAP)
		s->mmap_n++;
	if (r->flags & MTRACE_RF_BRK)
		s->brk_n++;
	if (r->call == MTRACE_CALL_FREE) {
		th->frees++;
		if (r->ptr == 0)
			s->free_null++;
		else if (!block_end(s, r->ptr, e->t, e->thread, r, &size))
			s->skipped_free++;
		return 0;
	}
	if (e->kind == ORDER_RESULT) {
		if (r->flags & MTRACE_RF_FAILED)
			return 0;
		uint64_t user = th->re_old, old = user ? user - 1 : 0, b = mtrace_record_bytes(r);
		if (r->ptr == 0)
			s->re_null++;
		else if (!user)
			;   /* of a block not seen allocated: counted at its release */
		else if (r->result == 0)
			s->re_zero++;
		else if (r->result == r->ptr)
			s->re_inplace++;
		else
			s->re_moved++;
		if (user && r->result) {
			if (b > old)
				s->re_grew++;
			else if (b < old)
				s->re_shrank++;
		}
		if (r->result == 0)
			return 0;
		th->allocs++;
		th->bytes += b;
		count_size(s, b, r->usable);
		return block_new(s, r->result, b, e->t, e->thread);
	}
	if ((r->flags & MTRACE_RF_FAILED) || r->result == 0)
		return 0;
	uint64_t b = mtrace_record_bytes(r);
	th->allocs++;
	th->bytes += b;
	count_size(s, b, r->usable);
	return block_new(s, r->result, b, e->t, e->thread);
}

/* order.h callback */
static int on_events(void *ctx, const struct order_ev *ev, size_t n)
{
	struct stats *s = ctx;
	for (size_t i = 0; i < n; i++) {
		order_warm(s->ord);
		if (on_event(s, &ev[i]) < 0)
			return -1;
	}
	return 0;
}

int stats_collect(const char *path, struct stats *s, int progress)
{
	memset(s, 0, sizeof *s);
	live_init(&s->live, NULL, sizeof(struct block));
	struct trace_reader r;
	if (trace_open(&r, path) < 0) {
		tool_warn("%s", r.err.msg);
		trace_close(&r);
		return -1;
	}
	s->name = path = tool_display_name(path);   /* ("<stdin>", as every tool says it) */
	size_t el = strnlen(r.exe, sizeof s->exe - 1);
	memcpy(s->exe, r.exe, el);
	s->exe[el] = 0;
	snprintf(s->settings, sizeof s->settings, "%s", r.settings);
	snprintf(s->allocator, sizeof s->allocator, "%s", r.allocator);
	s->pid = r.hdr.pid;
	s->tps = r.hdr.ticks_per_sec;
	s->clock = r.format == TRACE_FMT_MTRACE ? r.hdr.clock : MTRACE_CLOCK_NONE;
	s->t0 = r.hdr.start_ticks;
	s->glibc = !!(r.hdr.flags & MTRACE_HF_GLIBC);
	if (r.format == TRACE_FMT_MTRACE) {
		s->hflags = r.hdr.flags;
		s->resident_min = r.hdr.resident_min;
		s->memory_ms = r.hdr.memory_interval_ms;
	}
	if (r.format == TRACE_FMT_MTRACE && (r.hdr.flags & MTRACE_HF_BYPASSED))
		tool_warn("warning: %s: " TRACE_BYPASSED_NOTE, path);
	if (r.format == TRACE_FMT_MTRACE && (r.hdr.flags & MTRACE_HF_STOPPED_EARLY)) {
		char why[200];
		tool_warn("warning: %s: " TRACE_STOPPED_NOTE " %s", path,
			  trace_stop_text(&r.hdr, why, sizeof why));
	}
	s->durations = r.format == TRACE_FMT_DJ ? 0 : (r.hdr.flags & MTRACE_HF_DURATIONS) ? 2 : 1;
	if ((s->dur = calloc(1, sizeof *s->dur)) == NULL)
		tool_die(EXIT_SYSTEM, "out of memory");
	struct order o;
	struct tool_progress pr;
	trace_progress_start(&pr, progress, &r);
	r.progress = tool_progress;
	r.progress_arg = &pr;
	int rc = order_begin(&o, on_events, on_thread, s);
	s->ord = &o;
	if (rc == 0)
		rc = order_feed(&o, &r);
	tool_progress_end(&pr);
	if (rc == 0)
		rc = order_end(&o);
	if (rc < 0)
		tool_warn("%s", o.err.msg[0] ? o.err.msg : "out of memory");
	else if ((rc = trace_cut_short(&r, s->total)) < 0)   /* (as a record cut in two is) */
		tool_warn("%s", r.err.msg);
	s->records = o.records;
	s->late = o.late;
	s->nthreads = o.nthreads;
	order_free(&o);
	s->ord = NULL;
	trace_close(&r);
	return rc;
}

uint64_t stats_durations(const struct stats *s, int c, uint64_t *avg, uint64_t *pt)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		n += s->dur->b[c][i];
	memset(pt, 0, LAT_POINTS * sizeof *pt);
	*avg = 0;
	if (!n || !s->dur->max[c])
		return 0;   /* none, or all 0: a trace with no clock (trace_import's) */
	lat_percentiles(s->dur->b[c], s->dur->max[c], pt);
	for (int k = 0; k < LAT_POINTS; k++)
		pt[k] = stats_ns(s, pt[k]);
	*avg = stats_ns(s, s->dur->sum[c] / n);
	return n;
}

void stats_release(struct stats *s)
{
	progmem_free(&s->pm);
	free(s->dur);
	live_free(&s->live);
	u64map_free(&s->sizes);
	free(s->th);
}
