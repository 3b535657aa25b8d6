/* trace_stats - what a trace says about a program's allocations. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lat_hist.h"
#include "order.h"
#include "progmem.h"
#include "tool.h"
#include "u64map.h"

static const char usage_text[] =
	"Usage: trace_stats [OPTION]... TRACE...\n"
	"       trace_stats --diff TRACE_A TRACE_B\n"
	"Statistics of each trace (mtrace, dj/malloc, or compressed): calls by type and by thread,\n"
	"request sizes and lifetimes (power-of-two histograms), the ideal RSS peak and when it\n"
	"happened, blocks live at the end (leaks at stop) with the largest, allocator overhead,\n"
	"cross-thread frees, realloc behaviour, mmap and heap-growth calls (glibc traces), the most\n"
	"frequent sizes, and how long calls took where the trace says (realloc's always; every\n"
	"call's in a trace taken with mtracectl -d): average and percentiles by call type.  Records\n"
	"are taken in their global order; memory is bounded by the live blocks, not the trace's\n"
	"length.\n"
	"\n"
	"      --tsv        tab-separated: section, key, value(s)\n"
	"      --json       one JSON object per trace\n"
	"      --diff       two traces side by side, with the difference and the ratio\n"
	"  -L, --latency=FILE  the recorded call durations (of one trace) as trace_run --latency\n"
	"                   writes call times, in the trace's clock ticks: trace_plot draws them\n"
	"                   beside a replay's\n"
	"  -p, --progress   show progress even when standard error is not a terminal (on a\n"
	"                   terminal it shows after a second)\n"
	"  -h, --help       show this help and exit\n"
	"  -V, --version    show the version and exit\n"
	"\n"
	"Exit status: 0 done; 1 a trace is missing, corrupt or truncated; 2 bad command line.\n";

static int progress;   /* tool_progress's on: on a terminal, or 2 with -p */

#define NB 65                      /* power-of-two buckets: [0], [1], [2,4), ... */
#define TOP 20
#define LARGEST 10
#define MAX_SIZES (1u << 20)       /* distinct sizes counted for the top list */

struct block { uint64_t size, t, idx; uint32_t thread; uint32_t next_free; };

struct tstat {
	uint32_t tid;
	uint64_t calls, allocs, frees, bytes;
	uint64_t re_old;   /* its realloc between release and result: old size + 1, 0 unknown */
};

struct stats {
	const char *name;
	struct order *ord;            /* while it is read */
	char exe[256];
	char settings[1400];          /* the allocators' settings the program ran with */
	char allocator[512];          /* and the allocator's path */
	int32_t pid;
	uint64_t tps, t0, t_last;
	int glibc;
	/* counts */
	uint64_t calls[MTRACE_CALL_LAST_API + 1], total, failed, free_null, skipped_free;
	uint64_t size_n[NB], size_b[NB], life_calls[NB], life_ns[NB];
	uint64_t live, live_n, peak, peak_t, peak_idx;
	uint64_t requested, usable;
	uint64_t xfree;
	uint64_t re_moved, re_inplace, re_zero, re_null, re_unknown, re_grew, re_shrank;
	uint64_t mmap_n, brk_n;
	struct progmem pm;              /* the program's own mappings and memory samples */
	uint32_t hflags, resident_min, memory_ms;   /* the header's (version 2 records) */
	uint64_t res_n, res_size, res_bytes;   /* released blocks that say what was resident */
	uint64_t peak_anon_idx;         /* calls handed out at the peak sample */
	uint64_t idx;                   /* calls handed out so far: the lifetime clock in calls */
	/* state */
	struct u64map addr;             /* address -> block index + 1 */
	struct block *b;
	uint32_t nb, capb, freeb;       /* freeb: first free block + 1 */
	struct u64map sizes;            /* size -> count (at most MAX_SIZES sizes) */
	uint64_t sizes_dropped;
	struct tstat *th;
	uint32_t nth, capth;
	uint64_t records, late;
	uint32_t nthreads;
	/* how long calls took, where the trace says (0: nowhere, dj's; 1: realloc's, always
	   recorded; 2: every call's, a trace taken with durations): a histogram per call class
	   (lat_hist.h), in ticks */
	int durations;
	unsigned clock;                 /* the trace's, MTRACE_CLOCK_*: what durations count */
	struct durations { uint64_t b[LAT_CLASSES][HIST_BUCKETS], max[LAT_CLASSES], sum[LAT_CLASSES]; } *dur;
};

static int lat_class_of(unsigned call)
{
	switch (call) {
	case MTRACE_CALL_MALLOC: return LAT_MALLOC;
	case MTRACE_CALL_CALLOC: return LAT_CALLOC;
	case MTRACE_CALL_REALLOC: case MTRACE_CALL_REALLOCARRAY: return LAT_REALLOC;
	case MTRACE_CALL_FREE: return LAT_FREE;
	default: return LAT_MEMALIGN;
	}
}

static int bucket(uint64_t v)
{
	return v == 0 ? 0 : 64 - __builtin_clzll(v);
}

static uint64_t ns_of(const struct stats *s, uint64_t ticks)
{
	return (uint64_t)((double)ticks * 1e9 / (double)s->tps);
}

/* ---------------------------------------------------------------------------------------------
   Blocks
   ------------------------------------------------------------------------------------------- */

/* Block i (1-based) ends: its bytes stop being live, its entry goes on the free list. */
static void block_free(struct stats *s, uint64_t i)
{
	s->live -= s->b[i - 1].size;
	s->live_n--;
	s->b[i - 1].next_free = s->freeb;
	s->freeb = (uint32_t)i;
}

static int block_new(struct stats *s, uint64_t a, uint64_t size, uint64_t t, uint32_t thread)
{
	uint32_t i;
	if (s->freeb) {
		i = s->freeb - 1;
		s->freeb = s->b[i].next_free;
	} else {
		if (s->nb == s->capb) {
			uint32_t cap = s->capb ? s->capb * 2 : 4096;
			struct block *nb = realloc(s->b, cap * sizeof *nb);
			if (!nb)
				return -1;
			s->b = nb;
			s->capb = cap;
		}
		i = s->nb++;
	}
	s->b[i] = (struct block){ size, t, s->idx, thread, 0 };
	uint64_t old;
	int had = u64map_swap(&s->addr, a, (uint64_t)i + 1, &old);
	if (had < 0)
		return -1;
	if (had)   /* allocated while live: the old one's free is missing; drop it */
		block_free(s, old);
	s->live += size;
	s->live_n++;
	if (s->live > s->peak) {
		s->peak = s->live;
		s->peak_t = t;
		s->peak_idx = s->idx;
	}
	return 0;
}

/* Release the block at a (by thread, at t, record r); 0 if it was not live. */
static int block_end(struct stats *s, uint64_t a, uint64_t t, uint32_t thread, const struct mtrace_record *r,
		     uint64_t *size)
{
	uint64_t v;
	if (!u64map_take(&s->addr, a, &v))
		return 0;
	struct block *b = &s->b[v - 1];
	*size = b->size;
	if (r->flags & MTRACE_RF_RESIDENT) {   /* what of it the program had made resident */
		s->res_n++;
		s->res_size += b->size;
		s->res_bytes += r->arg2;
	}
	s->life_calls[bucket(s->idx - b->idx)]++;
	s->life_ns[bucket(t > b->t ? ns_of(s, t - b->t) : 0)]++;
	if (b->thread != thread)
		s->xfree++;
	block_free(s, v);
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
		/* a realloc's first half: the old block ends here (a failed one comes as ORDER_CALL) */
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
	int cls = lat_class_of(r->call);
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

static int collect(const char *path, struct stats *s)
{
	memset(s, 0, sizeof *s);
	struct trace_reader r;
	if (trace_open(&r, path) < 0) {
		tool_warn("%s", r.err);
		trace_close(&r);
		return -1;
	}
	s->name = path;
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
		tool_warn("warning: %s: " TRACE_STOPPED_NOTE " %s", path, trace_stop_text(&r.hdr, why, sizeof why));
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
		tool_warn("%s", o.err[0] ? o.err : "out of memory");
	s->records = o.records;
	s->late = o.late;
	s->nthreads = o.nthreads;
	order_free(&o);
	s->ord = NULL;
	trace_close(&r);
	return rc;
}

/* ---------------------------------------------------------------------------------------------
   Output
   ------------------------------------------------------------------------------------------- */

enum { TEXT, TSV, JSON };
static int fmt = TEXT;

static double secs(const struct stats *s, uint64_t t)
{
	return t > s->t0 ? (double)(t - s->t0) / (double)s->tps : 0.0;
}

static void range(char *buf, size_t cap, int k)
{
	if (k == 0)
		snprintf(buf, cap, "0");
	else if (k == 1)
		snprintf(buf, cap, "1");
	else if (k >= 64)
		snprintf(buf, cap, "2^63-");
	else
		snprintf(buf, cap, "%llu-%llu", 1ull << (k - 1), (1ull << k) - 1);
}

static int cmp_desc(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;   /* pairs (count, key): by count, then key */
	if (x[0] != y[0])
		return x[0] < y[0] ? 1 : -1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* the n largest of a (count,key) list */
static size_t top_sizes(const struct stats *s, uint64_t (*out)[2], size_t n)
{
	size_t m = 0, cap = s->sizes.n + 1;
	uint64_t (*all)[2] = malloc(cap * sizeof *all);
	if (!all)
		return 0;
	for (size_t i = 0; i < s->sizes.cap; i++)
		if (s->sizes.slots[i].key)
			all[m][0] = s->sizes.slots[i].val, all[m][1] = s->sizes.slots[i].key - 1, m++;
	qsort(all, m, sizeof *all, cmp_desc);
	if (m > n)
		m = n;
	memcpy(out, all, m * sizeof *all);
	free(all);
	return m;
}

static size_t largest_live(const struct stats *s, uint64_t (*out)[2], size_t n)
{
	size_t m = 0;
	uint64_t (*all)[2] = malloc((s->live_n + 1) * sizeof *all);
	if (!all)
		return 0;
	for (size_t i = 0; i < s->addr.cap; i++)
		if (s->addr.slots[i].key)
			all[m][0] = s->b[s->addr.slots[i].val - 1].size, all[m][1] = s->addr.slots[i].val - 1, m++;
	if (s->addr.has_zero)
		all[m][0] = s->b[s->addr.zero_val - 1].size, all[m][1] = s->addr.zero_val - 1, m++;
	qsort(all, m, sizeof *all, cmp_desc);
	if (m > n)
		m = n;
	memcpy(out, all, m * sizeof *all);
	free(all);
	return m;
}

/* one scalar: text "  key  value", TSV "section\tkey\tvalue", JSON "key": value */
static int json_first;
static void kv(const char *section, const char *key, uint64_t v)
{
	char c1[32];
	if (fmt == TSV)
		printf("%s\t%s\t%" PRIu64 "\n", section, key, v);
	else if (fmt == JSON) {
		printf("%s\"%s_%s\": %" PRIu64, json_first ? "" : ", ", section, key, v);
		json_first = 0;
	} else
		printf("  %-26s %s\n", key, fmt_commas(c1, v));
}

static void histogram(const char *section, const char *unit, const uint64_t *n, const uint64_t *b)
{
	int lo = NB, hi = -1;
	for (int k = 0; k < NB; k++)
		if (n[k]) {
			if (k < lo)
				lo = k;
			hi = k;
		}
	if (fmt == TEXT)
		printf("%s\n    %-26s %14s%s\n", section, unit, "count", b ? "           bytes" : "");
	for (int k = lo; k <= hi; k++) {
		char r[64], c1[32], c2[32], key[80];
		range(r, sizeof r, k);
		if (fmt == TSV) {
			printf("%s\t%s\t%" PRIu64, section, r, n[k]);
			if (b)
				printf("\t%" PRIu64, b[k]);
			printf("\n");
		} else if (fmt == JSON) {
			snprintf(key, sizeof key, "%s_%s", section, r);
			printf(", \"%s\": %" PRIu64, key, n[k]);
			if (b)
				printf(", \"%s_bytes\": %" PRIu64, key, b[k]);
		} else {
			printf("    %-26s %14s", r, fmt_commas(c1, n[k]));
			if (b)
				printf(" %15s", fmt_commas(c2, b[k]));
			printf("\n");
		}
	}
}

/* What the program held beside its allocator, where the trace says (version 2): the memory it
   mapped itself, its memory samples, and how much of large blocks it had made resident */
static void program_memory(const struct stats *s)
{
	const struct progmem *p = &s->pm;
	char a[40], b[40], c[40], d[32], e[32];
	if (!(s->hflags & (MTRACE_HF_MAPPINGS | MTRACE_HF_MEMORY | MTRACE_HF_RESIDENT)))
		return;
	if (fmt == TEXT)
		printf("program memory\n");
	if (s->hflags & MTRACE_HF_MAPPINGS) {
		if (fmt == TEXT) {
			printf("  mapped directly by the program: %s at peak, %s mapping%s (munmap %s, mremap %s, brk %s)\n",
			       progmem_mb(a, sizeof a, p->prog.peak), fmt_commas(d, p->prog.maps), p->prog.maps == 1 ? "" : "s",
			       fmt_commas(b, p->prog.unmaps), fmt_commas(c, p->prog.remaps),
			       fmt_commas(e, p->prog.brks));
			if (p->own.maps || p->own.brks)
				printf("  mapped by the allocator itself: %s at peak, %s mapping%s (its own, apart)\n",
				       progmem_mb(a, sizeof a, p->own.peak), fmt_commas(d, p->own.maps),
				       p->own.maps == 1 ? "" : "s");
		} else {
			kv("program", "mapped_peak_bytes", p->prog.peak);
			kv("program", "mappings", p->prog.maps);
			kv("program", "unmaps", p->prog.unmaps);
			kv("program", "remaps", p->prog.remaps);
			kv("program", "break_moves", p->prog.brks);
			kv("program", "allocator_mapped_peak_bytes", p->own.peak);
			kv("program", "allocator_mappings", p->own.maps);
		}
	}
	if (s->hflags & MTRACE_HF_MEMORY) {
		uint64_t growth = p->peak_anon > p->first_anon ? p->peak_anon - p->first_anon : 0;
		if (fmt == TEXT && !p->samples)
			printf("  memory samples: none\n");
		else if (fmt == TEXT) {
			printf("  memory samples: %s (every %u ms at most)\n", fmt_commas(d, p->samples), s->memory_ms);
			printf("  peak anonymous RSS: %s at %.6f s, call %s; growth %s from the first sample's %s\n",
			       progmem_mb(a, sizeof a, p->peak_anon), secs(s, p->peak_anon_t), fmt_commas(d, s->peak_anon_idx),
			       progmem_mb(b, sizeof b, growth), progmem_mb(c, sizeof c, p->first_anon));
			printf("  peak RSS %s, peak virtual size %s\n", progmem_mb(a, sizeof a, p->peak_rss),
			       progmem_mb(b, sizeof b, p->peak_vsz));
		} else {
			kv("program", "memory_samples", p->samples);
			kv("program", "anon_rss_first_bytes", p->first_anon);
			kv("program", "anon_rss_peak_bytes", p->peak_anon);
			kv("program", "anon_rss_peak_at_ns", ns_of(s, p->peak_anon_t > s->t0 ? p->peak_anon_t - s->t0 : 0));
			kv("program", "anon_rss_peak_at_call", s->peak_anon_idx);
			kv("program", "anon_rss_growth_bytes", growth);
			kv("program", "rss_peak_bytes", p->peak_rss);
			kv("program", "vmsize_peak_bytes", p->peak_vsz);
		}
	}
	if (s->hflags & MTRACE_HF_RESIDENT) {
		if (fmt == TEXT)
			printf("  resident at release: %s of %s (%.0f%%) in %s blocks of %s bytes or more\n",
			       progmem_mb(a, sizeof a, s->res_bytes), progmem_mb(b, sizeof b, s->res_size),
			       s->res_size ? 100.0 * (double)s->res_bytes / (double)s->res_size : 0.0,
			       fmt_commas(d, s->res_n), fmt_commas(c, s->resident_min));
		else {
			kv("program", "released_large_blocks", s->res_n);
			kv("program", "released_large_bytes", s->res_size);
			kv("program", "released_large_resident_bytes", s->res_bytes);
		}
	}
}

/* A class's recorded durations in nanoseconds: calls, average, then the LAT_POINTS; 0 calls:
   none recorded */
static uint64_t duration_points(const struct stats *s, int c, uint64_t *avg, uint64_t *pt)
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
		pt[k] = ns_of(s, pt[k]);
	*avg = ns_of(s, s->dur->sum[c] / n);
	return n;
}

/* How long the calls took (realloc's always recorded; every call's in a trace taken with
   durations), by class: average and percentiles in nanoseconds */
static void durations(const struct stats *s)
{
	static const char *const pts[LAT_POINTS] = { "p50", "p90", "p99", "p999", "max" };
	int head = 0;
	for (int c = 0; c < LAT_CLASSES; c++) {
		uint64_t avg, pt[LAT_POINTS], n = duration_points(s, c, &avg, pt);
		if (!n)
			continue;
		if (fmt == TEXT) {
			char b[LAT_POINTS + 2][32];
			if (!head++)
				printf("call durations (ns)\n    %-10s %14s %10s %10s %10s %10s %10s %12s\n", "call", "count",
				       "avg", "p50", "p90", "p99", "p99.9", "max");
			printf("    %-10s %14s %10s", lat_class_names[c], fmt_commas(b[0], n), fmt_commas(b[1], avg));
			for (int k = 0; k < LAT_POINTS; k++)
				printf(k == LAT_MAX ? " %12s" : " %10s", fmt_commas(b[k + 2], pt[k]));
			printf("\n");
			continue;
		}
		char key[40];
		snprintf(key, sizeof key, "%s_calls", lat_class_names[c]);
		kv("durations_ns", key, n);
		snprintf(key, sizeof key, "%s_avg", lat_class_names[c]);
		kv("durations_ns", key, avg);
		for (int k = 0; k < LAT_POINTS; k++) {
			snprintf(key, sizeof key, "%s_%s", lat_class_names[c], pts[k]);
			kv("durations_ns", key, pt[k]);
		}
	}
}

static void report(const struct stats *s)
{
	char c1[32], c2[32];
	json_first = 1;
	if (fmt == JSON)
		printf("{\"file\": "), print_json_string(stdout, s->name), json_first = 0,
		printf(", \"pid\": %d, \"threads\": %u, \"allocator\": ", (int)s->pid, s->nthreads),
		print_json_string(stdout, s->allocator), printf(", \"settings\": "),
		print_json_string(stdout, s->settings);
	else if (fmt == TEXT) {
		printf("%s: %s (pid %d), %u thread%s, %s call%s over %.6f s\n", s->name, s->exe[0] ? s->exe : "?",
		       (int)s->pid, s->nthreads, s->nthreads == 1 ? "" : "s", fmt_commas(c1, s->total),
		       s->total == 1 ? "" : "s", secs(s, s->t_last));
		if (s->allocator[0])
			printf("allocator: %s\n", s->allocator);
		if (s->settings[0])
			printf("settings: %s (the allocators' settings it ran with)\n", s->settings);
		printf("calls\n");
	} else
		printf("trace\tfile\t"), print_tsv_field(stdout, s->name),
		printf("\ntrace\tthreads\t%u\ntrace\tallocator\t", s->nthreads), print_tsv_field(stdout, s->allocator),
		printf("\ntrace\tsettings\t"), print_tsv_field(stdout, s->settings), printf("\n");
	for (unsigned c = 1; c <= MTRACE_CALL_LAST_API; c++)
		if (s->calls[c] || fmt != TEXT)
			kv("calls", mtrace_call_name(c), s->calls[c]);
	kv("calls", "total", s->total);
	kv("calls", "failed", s->failed);
	kv("calls", "free_null", s->free_null);
	kv("calls", "free_of_unknown_block", s->skipped_free);
	if (fmt == TEXT)
		printf("memory\n");
	kv("memory", "ideal_rss_peak", s->peak);
	kv("memory", "ideal_rss_peak_at_call", s->peak_idx);
	kv("memory", "ideal_rss_peak_at_ns", ns_of(s, s->peak_t > s->t0 ? s->peak_t - s->t0 : 0));
	kv("memory", "live_blocks_at_end", s->live_n);
	kv("memory", "live_bytes_at_end", s->live);
	kv("memory", "requested_bytes", s->requested);
	kv("memory", "overhead_bytes", s->usable);
	if (fmt == TEXT && s->requested)
		printf("  %-26s %.2f%% of requested\n", "overhead", 100.0 * (double)s->usable / (double)s->requested);
	kv("threads", "cross_thread_frees", s->xfree);
	if (fmt == TEXT)
		printf("realloc\n");
	kv("realloc", "moved", s->re_moved);
	kv("realloc", "in_place", s->re_inplace);
	kv("realloc", "to_zero", s->re_zero);
	kv("realloc", "from_null", s->re_null);
	kv("realloc", "of_unknown_block", s->re_unknown);
	kv("realloc", "grew", s->re_grew);
	kv("realloc", "shrank", s->re_shrank);
	if (s->glibc) {
		if (fmt == TEXT)
			printf("glibc\n");
		kv("glibc", "served_by_mmap", s->mmap_n);
		kv("glibc", "grew_the_heap", s->brk_n);
	}
	program_memory(s);
	durations(s);
	histogram("sizes", "requested bytes", s->size_n, s->size_b);
	histogram("lifetime_calls", "calls lived", s->life_calls, NULL);
	histogram("lifetime_ns", "nanoseconds lived", s->life_ns, NULL);
	uint64_t top[TOP][2];
	size_t nt = top_sizes(s, top, TOP);
	if (fmt == TEXT)
		printf("top sizes\n    %-26s %14s\n", "bytes", "count");
	for (size_t i = 0; i < nt; i++) {
		if (fmt == TSV)
			printf("top_sizes\t%" PRIu64 "\t%" PRIu64 "\n", top[i][1], top[i][0]);
		else if (fmt == JSON)
			printf(", \"top_size_%zu\": [%" PRIu64 ", %" PRIu64 "]", i + 1, top[i][1], top[i][0]);
		else
			printf("    %-26s %14s\n", fmt_commas(c1, top[i][1]), fmt_commas(c2, top[i][0]));
	}
	uint64_t big[LARGEST][2];
	size_t nl = largest_live(s, big, LARGEST);
	if (fmt == TEXT && nl)
		printf("largest blocks live at the end\n    %-26s %14s %10s\n", "bytes", "thread", "at (s)");
	for (size_t i = 0; i < nl; i++) {
		const struct block *b = &s->b[big[i][1]];
		if (fmt == TSV)
			printf("largest_live\t%" PRIu64 "\t%u\t%.9f\n", b->size, s->th[b->thread].tid, secs(s, b->t));
		else if (fmt == JSON)
			printf(", \"largest_live_%zu\": [%" PRIu64 ", %u]", i + 1, b->size, s->th[b->thread].tid);
		else
			printf("    %-26s %14u %10.6f\n", fmt_commas(c1, b->size), s->th[b->thread].tid, secs(s, b->t));
	}
	if (fmt == TEXT)
		printf("threads\n    %-10s %14s %14s %14s %16s\n", "tid", "calls", "allocations", "frees", "bytes");
	for (uint32_t i = 0; i < s->nth && i < 64; i++) {
		const struct tstat *t = &s->th[i];
		char a[32], b[32], c[32], d[32];
		if (fmt == TSV)
			printf("thread\t%u\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", t->tid, t->calls, t->allocs, t->frees, t->bytes);
		else if (fmt == JSON)
			printf(", \"thread_%u\": [%" PRIu64 ", %" PRIu64 ", %" PRIu64 "]", t->tid, t->calls, t->allocs, t->frees);
		else
			printf("    %-10u %14s %14s %14s %16s\n", t->tid, fmt_commas(a, t->calls), fmt_commas(b, t->allocs),
			       fmt_commas(c, t->frees), fmt_commas(d, t->bytes));
	}
	if (fmt == TEXT && s->nth > 64)
		printf("    (%u more threads)\n", s->nth - 64);
	if (s->late && fmt == TEXT)
		printf("(%s records came out of order and were taken late)\n", fmt_commas(c1, s->late));
	if (fmt == JSON)
		printf("}\n");
}

static uint64_t p99(const struct stats *s, int c)   /* of the recorded durations, ns; 0: none */
{
	uint64_t avg, pt[LAT_POINTS];
	duration_points(s, c, &avg, pt);
	return pt[LAT_P99];
}

static void diff(const struct stats *a, const struct stats *b)
{
	struct { const char *k; uint64_t x, y; } rows[] = {
		{ "calls", a->total, b->total }, { "malloc", a->calls[1], b->calls[1] },
		{ "calloc", a->calls[2], b->calls[2] }, { "free", a->calls[3], b->calls[3] },
		{ "realloc", a->calls[4], b->calls[4] }, { "failed", a->failed, b->failed },
		{ "threads", a->nthreads, b->nthreads }, { "ideal_rss_peak", a->peak, b->peak },
		{ "live_bytes_at_end", a->live, b->live }, { "live_blocks_at_end", a->live_n, b->live_n },
		{ "requested_bytes", a->requested, b->requested }, { "overhead_bytes", a->usable, b->usable },
		{ "cross_thread_frees", a->xfree, b->xfree }, { "realloc_moved", a->re_moved, b->re_moved },
		{ "served_by_mmap", a->mmap_n, b->mmap_n }, { "grew_the_heap", a->brk_n, b->brk_n },
		{ "malloc_p99_ns", p99(a, LAT_MALLOC), p99(b, LAT_MALLOC) },
		{ "free_p99_ns", p99(a, LAT_FREE), p99(b, LAT_FREE) },
		{ "realloc_p99_ns", p99(a, LAT_REALLOC), p99(b, LAT_REALLOC) },
		{ "mapped_by_program_peak", a->pm.prog.peak, b->pm.prog.peak },
		{ "anon_rss_peak", a->pm.peak_anon, b->pm.peak_anon },
	};
	if (fmt == TEXT)
		printf("%-22s %16s %16s %16s %9s\n", "", "A", "B", "B - A", "B / A");
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		char c1[32], c2[32], c3[40];
		int64_t d = (int64_t)(rows[i].y - rows[i].x);
		if (fmt == TSV) {
			printf("diff\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRId64 "\n", rows[i].k, rows[i].x, rows[i].y, d);
			continue;
		}
		if (fmt == JSON) {
			printf("%s\"%s\": [%" PRIu64 ", %" PRIu64 "]", i ? ", " : "{", rows[i].k, rows[i].x, rows[i].y);
			continue;
		}
		snprintf(c3, sizeof c3, "%s%s", d < 0 ? "-" : "+", fmt_commas(c2, (unsigned long long)(d < 0 ? -d : d)));
		printf("%-22s %16s %16s %16s", rows[i].k, fmt_commas(c1, rows[i].x), fmt_commas(c2, rows[i].y), c3);
		if (rows[i].x)
			printf(" %8.2fx", (double)rows[i].y / (double)rows[i].x);
		printf("\n");
	}
	if (fmt == JSON)
		printf("}\n");
}

/* -L: the recorded durations' histograms, as trace_run --latency writes its call times (in
   the trace's clock ticks; on x86 the same TSC cycles as trace_run's).  0, or -1 when the
   trace holds no durations (nothing written). */
static int write_latency(const char *path, const struct stats *s)
{
	int any = 0;
	for (int c = 0; c < LAT_CLASSES; c++)
		any |= s->dur->max[c] != 0;
	if (!any) {
		tool_warn("%s: no call durations in it (a trace taken with mtracectl -d has every call's)",
			  s->name);
		return -1;
	}
	if (s->durations == 1)
		tool_warn("warning: %s: only realloc's durations are recorded without mtracectl -d", s->name);
	const char *exe = strrchr(s->exe, '/') ? strrchr(s->exe, '/') + 1 : s->exe[0] ? s->exe : "program";
	char title[400], tmp[TOOL_TMP_CAP];
	snprintf(title, sizeof title, "trace_stats latency: %s as traced, %s", exe, trace_clock_name(s->clock));
	int fd = tool_output_open(path, tmp);
	int e = lat_write_tsv(fd, title, (const uint64_t (*)[HIST_BUCKETS])s->dur->b, s->dur->max) < 0 ? errno : 0;
	tool_output_finish(path, fd, tmp, e);
	return 0;
}

static void release(struct stats *s)
{
	progmem_free(&s->pm);
	free(s->dur);
	u64map_free(&s->addr);
	u64map_free(&s->sizes);
	free(s->b);
	free(s->th);
}

int main(int argc, char **argv)
{
	tool_set_name("trace_stats", argv);
	static const struct option longopts[] = {
		{ "tsv", no_argument, 0, 1 }, { "json", no_argument, 0, 2 }, { "diff", no_argument, 0, 3 },
		{ "progress", no_argument, 0, 'p' }, { "latency", required_argument, 0, 'L' },
		{ "help", no_argument, 0, 'h' }, { "version", no_argument, 0, 'V' }, { 0, 0, 0, 0 },
	};
	int c, want_diff = 0;
	const char *latency = NULL;
	progress = isatty(2);
	while ((c = getopt_long(argc, argv, "L:phV", longopts, NULL)) != -1) {
		switch (c) {
		case 1: case 2:
			if (fmt != TEXT && fmt != (c == 1 ? TSV : JSON))
				tool_die(EXIT_USAGE, "--tsv and --json: choose one");
			fmt = c == 1 ? TSV : JSON;
			break;
		case 3: want_diff = 1; break;
		case 'p': progress = 2; break;
		case 'L': latency = optarg; break;
		case 'h': fputs(usage_text, stdout); return EXIT_OK;
		case 'V': tool_version();
		default: fputs("Try 'trace_stats --help'.\n", stderr); return EXIT_USAGE;
		}
	}
	if (optind == argc || (want_diff && argc - optind != 2)) {
		fprintf(stderr, "trace_stats: %s\nTry 'trace_stats --help'.\n",
			want_diff ? "--diff wants exactly two traces" : "no trace given");
		return EXIT_USAGE;
	}
	if (latency && (want_diff || argc - optind != 1))
		tool_die(EXIT_USAGE, "--latency takes one trace");
	if (latency)
		latency = tool_check_output(latency, argv + optind, 1, 0);
	int bad = 0;
	if (want_diff) {
		struct stats a, b;
		if (collect(argv[optind], &a) < 0 || collect(argv[optind + 1], &b) < 0)
			return EXIT_BADFILE;
		if (fmt == TEXT)
			for (int k = 0; k < 2; k++) {
				/* what each ran on and with: a difference there explains the figures' */
				const struct stats *x = k ? &b : &a;
				printf("%c: %s", k ? 'B' : 'A', argv[optind + k]);
				if (x->allocator[0] || x->settings[0])
					printf(" (on %s, with %s)", x->allocator[0] ? x->allocator : "an allocator not named",
					       x->settings[0] ? x->settings : "no settings");
				printf("\n");
			}
		diff(&a, &b);
		release(&a);
		release(&b);
	} else
		for (int i = optind; i < argc; i++) {
			struct stats s;
			if (collect(argv[i], &s) < 0)
				bad = 1;
			else {
				report(&s);
				if (latency && write_latency(latency, &s) < 0)
					bad = 1;
			}
			release(&s);
		}
	if (fflush(stdout) != 0)
		tool_die(EXIT_SYSTEM, "cannot write output: %s", strerror(errno));
	return bad ? EXIT_BADFILE : EXIT_OK;
}
