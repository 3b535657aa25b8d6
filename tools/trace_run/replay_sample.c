/* replay_sample.c - the sampler thread: RSS and live bytes every interval, the timeline, the
 * progress line, and the end of a replay that no longer makes progress. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include "cycles.h"
#include "replay_int.h"
#include "tool.h"

/* ---------------------------------------------------------------------------------------------
   The program's time the replay is at: the latest time before which it has made every call the
   program made, as well as three bounds tell it.  A paced replay is no further than its clock;
   a replay that has completed c calls in all is before the first sample of the program's that
   counts more than c (the program had made more calls by then); a stream not finished is before
   the time of its next AT (its next call after an idle time).  The last keeps a stream that has
   fallen behind (touching a large block) from being outrun by the others' calls, as a total
   alone would be.
   ------------------------------------------------------------------------------------------- */

int replay_clock_init(struct replay_state *x, const struct replay_plan *plan, uint64_t *harness)
{
	struct prog_clock *c = &x->clock;
	const struct wl_reader *r = x->r;
	x->at_sample_us = UINT64_MAX;
	if (!(r->h.flags & MTRACE_WL_HF_SAMPLES) || !r->h.nsamples)
		return 0;
	c->n = r->h.nsamples;
	if (!(c->s = replay_map_zero(c->n * sizeof *c->s, harness)))
		return -1;
	struct mtrace_wl_sample s;
	for (uint64_t i = 0; i < c->n; i++) {
		wl_sample(r, i, &s);
		/* (a hostile file's may go back: kept from doing so) */
		c->s[i].calls = i && s.calls < c->s[i - 1].calls ? c->s[i - 1].calls : s.calls;
		c->s[i].us = i && s.time_us < c->s[i - 1].us ? c->s[i - 1].us : s.time_us;
		c->s[i].anon = s.anon;
	}
	c->end_us = r->h.duration_us > c->s[c->n - 1].us ? r->h.duration_us : c->s[c->n - 1].us;
	c->at_start = plan->at_start;
	c->at = (const uint64_t (*)[2])plan->at;
	c->on = c->end_us > 0;   /* (a count of order points has no times) */
	x->at_sample_us = c->on && !(x->o->pace > 0) ? 0 : UINT64_MAX;
	return 0;
}

/* The first of the program's samples whose calls (us: time) reach v (c->n if none) */
static uint64_t first_sample(const struct prog_clock *c, int us, uint64_t v)
{
	uint64_t lo = 0, hi = c->n;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if ((us ? c->s[mid].us : c->s[mid].calls) < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first of a stream's n ATs that comes after k calls (n if none) */
static uint64_t first_at(const uint64_t (*a)[2], uint64_t n, uint64_t k)
{
	uint64_t lo = 0, hi = n;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (a[mid][0] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* usec of the program's time, for a replay that has completed calls in all, now_ns */
static uint64_t program_us(struct replay_state *x, uint64_t calls, uint64_t now_ns)
{
	const struct prog_clock *c = &x->clock;
	double paced = x->o->pace > 0 ? (double)(now_ns - x->t0_ns) * x->o->pace / 1e3 : 9e18;
	if (!c->on)
		return paced < 9e18 ? (uint64_t)paced : 0;
	uint64_t us = paced < (double)c->end_us ? (uint64_t)paced : c->end_us;
	uint64_t i = first_sample(c, 0, calls + 1);
	if (i < c->n && c->s[i].us < us)
		us = c->s[i].us;
	for (uint32_t t = 0; c->at && t < x->nt; t++) {
		const uint64_t (*a)[2] = c->at + c->at_start[t];
		uint64_t n = c->at_start[t + 1] - c->at_start[t];
		if (!n || __atomic_load_n(&x->t[t].end_ticks, __ATOMIC_RELAXED))
			continue;
		uint64_t j = first_at(a, n, replay_calls_done(&x->t[t]));
		if (j < n && a[j][1] < us)
			us = a[j][1];
	}
	return us;
}

/* The program's calls (anon: anonymous RSS) at time us, linear between its samples */
static double program_at(const struct prog_clock *c, uint64_t us, int anon)
{
	uint64_t i = first_sample(c, 1, us + 1);   /* the first sample after us */
	const struct prog_sample *p = &c->s[i ? i - 1 : 0];
	double v = anon ? (double)p->anon : (double)p->calls;
	if (i == 0 || i == c->n)
		return i == 0 && !anon ? 0 : v;
	const struct prog_sample *q = &c->s[i];
	return v + ((anon ? (double)q->anon : (double)q->calls) - v) * (double)(us - p->us) /
		   (double)(q->us - p->us);
}

/* ---------------------------------------------------------------------------------------------
   The sampler
   ------------------------------------------------------------------------------------------- */

/* One whole line to the timeline; the first failure (a full disk) is kept for the caller. */
void replay_log_line(struct replay_state *x, const char *line, size_t n)
{
	while (n && !x->log_errno) {
		ssize_t w = write(x->o->log_fd, line, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			x->log_errno = w < 0 ? errno : ENOSPC;
		else
			line += w, n -= (size_t)w;
	}
}

/* A timeline row of these figures, at the time since the start, ns, and the program's, us */
static void log_row(struct replay_state *x, uint64_t ns, uint64_t rss_kb, uint64_t vsz_kb,
		    uint64_t live_kb, uint64_t calls, uint64_t anon_kb, uint64_t mapped_kb,
		    uint64_t us)
{
	char line[192];
	size_t k = replay_fmt_u(line, ns / 1000000);
	uint64_t v[] = { rss_kb, vsz_kb, live_kb, calls, anon_kb, mapped_kb };
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		line[k++] = '\t';
		k += replay_fmt_u(line + k, v[i]);
	}
	if (replay_clock_known(x)) {   /* (in ms to the microsecond: a program may last 4 ms) */
		line[k++] = '\t';
		k += replay_fmt_u(line + k, us / 1000);
		line[k++] = '.';
		for (uint64_t d = 100; d; d /= 10)
			line[k++] = (char)('0' + us / d % 10);
	}
	line[k++] = '\n';
	replay_log_line(x, line, k);
}

void replay_log_baseline(struct replay_state *x, uint64_t rss_kb, uint64_t vsz_kb, uint64_t anon_kb)
{
	log_row(x, 0, rss_kb, vsz_kb, 0, 0, anon_kb, 0, 0);
}

/* by: the sampler (not a stream at an AT) */
static void sample_locked(struct replay_state *x, int by_sampler)
{
	int64_t live = 0;
	uint64_t calls = 0;   /* completed (n[] counts the one in flight too: close enough) */
	for (uint32_t i = 0; i < x->r->h.nthreads; i++) {
		live += __atomic_load_n(&x->t[i].live, __ATOMIC_RELAXED);
		for (unsigned k = 0; k < MTRACE_WL_NCOUNTS; k++)
			calls += __atomic_load_n(&x->t[i].n[k], __ATOMIC_RELAXED);
	}
	uint64_t now = clock_ns(), us = program_us(x, calls, now), pcalls = calls;
	if (x->clock.on) {
		double pc = program_at(&x->clock, us, 0);
		pcalls = pc < (double)calls ? (uint64_t)pc : calls;
		if (by_sampler)   /* (before the memory is read: what it touches counts now) */
			replay_fill_tick(x, program_at(&x->clock, us, 1));
	}
	uint64_t vsz, rss, anon;
	if (replay_statm(x->statm, x->page, &vsz, &rss, &anon) < 0)
		return;
	uint64_t rss_kb = rss / 1024, vsz_kb = vsz / 1024;
	if (live < 0)
		live = 0;
	if ((uint64_t)live > x->peak_live)
		x->peak_live = (uint64_t)live;
	if (rss_kb > x->peak_rss_kb)
		x->peak_rss_kb = rss_kb;
	if (vsz_kb > x->peak_vsz_kb)
		x->peak_vsz_kb = vsz_kb;
	x->samples++;
	if (x->curve.n) {   /* (counts read as threads go on: never back) */
		const struct replay_point *last = &x->curve.pt[x->curve.n - 1];
		us = us < last->us ? last->us : us;
		pcalls = pcalls < last->pcalls ? last->pcalls : pcalls;
	}
	replay_curve_add(&x->curve, calls, anon, us, pcalls);
	if (x->o->log_fd >= 0) {
		int64_t mapped = __atomic_load_n(&x->maps.mapped, __ATOMIC_RELAXED);
		log_row(x, now - x->t0_ns, rss_kb, vsz_kb, (uint64_t)live / 1024, calls,
			anon / 1024, mapped > 0 ? (uint64_t)mapped / 1024 : 0, us);
	}
}

/* A sample by the sampler, or by a replay thread at an AT (the two take turns: a spin lock, as
   a sample takes microseconds) */
static void sample(struct replay_state *x, int by_sampler)
{
	while (__atomic_exchange_n(&x->sample_lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
	sample_locked(x, by_sampler);
	__atomic_store_n(&x->sample_lock, 0, __ATOMIC_RELEASE);
}

void replay_sample_at(struct replay_state *x, uint64_t us)
{
	uint64_t due = __atomic_load_n(&x->at_sample_us, __ATOMIC_RELAXED);
	if (us >= due && __atomic_compare_exchange_n(&x->at_sample_us, &due,
						     us + 1 + x->clock.end_us / AT_SAMPLES, 0,
						     __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		sample(x, 0);
}

/* The progress line, at most once a second: the calls the threads have made (each thread's own
   counters, read without a lock: a figure for the eye).  Written with write(2), as nothing here
   may call the allocator under test; end: clear it. */
static void progress(struct replay_state *x, int end)
{
	const struct replay_opts *o = x->o;
	if (!o->progress)
		return;
	uint64_t now = clock_ns();
	if (end) {
		if (x->progress_ns)
			tool_progress_clear(&x->progress_len);
		return;
	}
	if (x->progress_ns ? now - x->progress_ns < 1000000000u
			   : o->progress == 1 && now - x->t0_ns < 1000000000u)
		return;
	x->progress_ns = now;
	uint64_t done = 0, total = x->r->h.ncalls;
	for (uint32_t i = 0; i < x->r->h.nthreads; i++)
		for (unsigned k = 0; k < MTRACE_WL_NCOUNTS; k++)
			done += __atomic_load_n(&x->t[i].n[k], __ATOMIC_RELAXED);
	if (done > total)
		total = done;
	char pct[32], detail[96], num[32];
	size_t k = replay_fmt_u(pct, total ? done * 100 / total : 100);
	pct[k++] = '%';
	pct[k] = 0;
	k = 0;
#define PUT(s) replay_put(detail, sizeof detail - 1, &k, (s))
	PUT(fmt_commas(num, done));
	PUT(" of ");
	PUT(fmt_commas(num, total));
	PUT(" calls");
#undef PUT
	detail[k] = 0;
	k = tool_progress_line(x->progress_line, sizeof x->progress_line,
			       o->progress_name ? o->progress_name : "replaying", pct, detail,
			       &x->progress_len);
	ssize_t w = write(2, x->progress_line, k);
	(void)w;
}

/* A replay in which no call has completed for timeout_s seconds (an allocator that deadlocked,
   most likely) is ended as a crash is: where it stands, then exit 3.  Time is counted in the
   sampler's intervals, which a stopped process (^Z) or a loaded machine only lengthens.
   still_ms: how long no call has completed so far; *last: the calls then. */
static void check_stalled(struct replay_state *x, uint64_t *still_ms, uint64_t *last)
{
	unsigned limit = x->o->timeout_s;
	*still_ms += x->o->interval_ms;
	if (!limit || (*still_ms < 1000 && *still_ms < (uint64_t)limit * 1000))
		return;   /* (the calls are added up at most once a second) */
	uint64_t done = 0;
	for (uint32_t i = 0; i < x->nt; i++)
		done += replay_calls_done(&x->t[i]);
	if (done != *last) {
		*last = done;
		*still_ms = 0;
		return;
	}
	if (*still_ms < (uint64_t)limit * 1000)
		return;
	/* the stream to blame: the first one taken, not finished and not waiting for another */
	const struct rthread *stuck = NULL;
	uint32_t taken = __atomic_load_n(&x->next, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < x->nt && i < taken && !stuck; i++)
		if (!__atomic_load_n(&x->t[i].end_ticks, __ATOMIC_RELAXED) &&
		    !__atomic_load_n(&x->t[i].waiting, __ATOMIC_RELAXED))
			stuck = &x->t[i];
	char what[120], num[32];
	size_t k = 0;
	progress(x, 1);
	replay_put(what, sizeof what - 1, &k, "the replay made no progress for ");
	num[replay_fmt_u(num, limit)] = 0;
	replay_put(what, sizeof what - 1, &k, num);
	replay_put(what, sizeof what - 1, &k, " s (--timeout): no call completed");
	what[k] = 0;
	replay_say_where(what, stuck);
	tool_remove_temps();
	_exit(EXIT_SYSTEM);
}

void *replay_sampler(void *arg)
{
	struct replay_state *x = arg;
	struct timespec iv = { x->o->interval_ms / 1000,
			       (long)(x->o->interval_ms % 1000) * 1000000 };
	uint64_t still_ms = 0, last = 0;
	while (__atomic_load_n(&x->go, __ATOMIC_ACQUIRE) == 0)
		futex(&x->go, FUTEX_WAIT_PRIVATE, 0, NULL);
	while (!__atomic_load_n(&x->done, __ATOMIC_ACQUIRE)) {
		sample(x, 1);
		progress(x, 0);
		check_stalled(x, &still_ms, &last);
		nanosleep(&iv, NULL);
	}
	sample(x, 1);
	progress(x, 1);
	return NULL;
}
