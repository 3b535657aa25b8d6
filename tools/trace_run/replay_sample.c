/* replay_sample.c - the sampler thread: RSS and live bytes every interval, the timeline, the
 * progress line, and the end of a replay that no longer makes progress. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include "cycles.h"
#include "replay_int.h"
#include "tool.h"

/* ---------------------------------------------------------------------------------------------
   The sampler
   ------------------------------------------------------------------------------------------- */

/* One whole line to the timeline; the first failure (a full disk) is kept for the caller. */
void replay_log_line(struct ctx *x, const char *line, size_t n)
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

/* A timeline row of these figures, at the time since the start, ns */
static void log_row(struct ctx *x, uint64_t ns, uint64_t rss_kb, uint64_t vsz_kb,
		    uint64_t live_kb, uint64_t calls, uint64_t anon_kb, uint64_t mapped_kb)
{
	char line[192];
	size_t k = replay_fmt_u(line, ns / 1000000);
	uint64_t v[] = { rss_kb, vsz_kb, live_kb, calls, anon_kb, mapped_kb };
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		line[k++] = '\t';
		k += replay_fmt_u(line + k, v[i]);
	}
	if (x->o->pace > 0) {   /* the program's time the replay is at */
		line[k++] = '\t';
		k += replay_fmt_u(line + k, (uint64_t)((double)ns * x->o->pace / 1e6));
	}
	line[k++] = '\n';
	replay_log_line(x, line, k);
}

void replay_log_baseline(struct ctx *x, uint64_t rss_kb, uint64_t vsz_kb, uint64_t anon_kb)
{
	log_row(x, 0, rss_kb, vsz_kb, 0, 0, anon_kb, 0);
}

static void sample(struct ctx *x)
{
	uint64_t vsz, rss, anon;
	if (replay_statm(x->statm, x->page, &vsz, &rss, &anon) < 0)
		return;
	uint64_t rss_kb = rss / 1024, vsz_kb = vsz / 1024;
	int64_t live = 0;
	uint64_t calls = 0;   /* completed (n[] counts the one in flight too: close enough) */
	for (uint32_t i = 0; i < x->r->h.nthreads; i++) {
		live += __atomic_load_n(&x->t[i].live, __ATOMIC_RELAXED);
		for (unsigned k = 0; k < MTRACE_WL_NCOUNTS; k++)
			calls += __atomic_load_n(&x->t[i].n[k], __ATOMIC_RELAXED);
	}
	if (live < 0)
		live = 0;
	if ((uint64_t)live > x->peak_live)
		x->peak_live = (uint64_t)live;
	if (rss_kb > x->peak_rss_kb)
		x->peak_rss_kb = rss_kb;
	if (vsz_kb > x->peak_vsz_kb)
		x->peak_vsz_kb = vsz_kb;
	x->samples++;
	replay_curve_add(&x->curve, calls, anon);
	if (x->o->log_fd >= 0) {
		int64_t mapped = __atomic_load_n(&x->maps.mapped, __ATOMIC_RELAXED);
		log_row(x, clock_ns() - x->t0_ns, rss_kb, vsz_kb, (uint64_t)live / 1024, calls,
			anon / 1024, mapped > 0 ? (uint64_t)mapped / 1024 : 0);
	}
}

/* The progress line, at most once a second: the calls the threads have made (each thread's own
   counters, read without a lock: a figure for the eye).  Written with write(2), as nothing here
   may call the allocator under test; end: clear it. */
static void progress(struct ctx *x, int end)
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
static void check_stalled(struct ctx *x, uint64_t *still_ms, uint64_t *last)
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
	struct ctx *x = arg;
	struct timespec iv = { x->o->interval_ms / 1000,
			       (long)(x->o->interval_ms % 1000) * 1000000 };
	uint64_t still_ms = 0, last = 0;
	while (__atomic_load_n(&x->go, __ATOMIC_ACQUIRE) == 0)
		futex(&x->go, FUTEX_WAIT_PRIVATE, 0, NULL);
	while (!__atomic_load_n(&x->done, __ATOMIC_ACQUIRE)) {
		sample(x);
		progress(x, 0);
		check_stalled(x, &still_ms, &last);
		nanosleep(&iv, NULL);
	}
	sample(x);
	progress(x, 1);
	return NULL;
}
