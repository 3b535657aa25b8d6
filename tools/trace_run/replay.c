/* replay.c - see replay.h: setting up a replay, releasing its threads, adding up its result.
 * The rest of the replay: replay_int.h lists its files; the check before it is replay_check.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/time.h>
#include "cycles.h"
#include "replay_int.h"
#include "tool.h"

int cycles_timer;

void *replay_map_zero(size_t bytes, uint64_t *total)
{
	*total += bytes;
	void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* ---------------------------------------------------------------------------------------------
   Running
   ------------------------------------------------------------------------------------------- */

int replay_run(struct wl_reader *r, const struct replay_plan *plan, const struct replay_opts *o,
	       struct replay_result *res, struct tool_err *err)
{
	memset(res, 0, sizeof *res);
	cycles_init();
	res->timer = cycles_timer;
	uint32_t nt = r->h.nthreads;
	uint64_t harness = 0;
	struct replay_state *x = replay_map_zero(sizeof *x, &harness);
	if (!x)
		goto nomem;
	x->r = r;
	x->o = o;
	x->page = (uint64_t)sysconf(_SC_PAGESIZE);
	x->t = replay_map_zero((size_t)(nt ? nt : 1) * sizeof *x->t, &harness);
	x->hist = replay_map_zero(sizeof *x->hist, &harness);
	x->slot = replay_map_zero(r->h.nslots * sizeof *x->slot, &harness);
	if (!x->t || !x->hist || !x->slot || replay_signal_points(plan, x->t, nt, &harness) < 0 ||
	    replay_maps_init(&x->maps, r->h.nmaps, x->page, o->touch, &harness) < 0 ||
	    replay_curve_init(&x->curve, &harness) < 0 ||
	    replay_clock_init(x, plan, &harness) < 0 || replay_fill_init(x, &harness) < 0)
		goto nomem;
	x->maps.fill = x->fill.on ? x : NULL;
	/* The slot table's pages now, before Max RSS starts, not during the replay as slots come
	   into use: its growth is then the allocator's.  Every slot of a workload from trace2wl is
	   used (numbers are dense); one whose slots are far more than its calls gets no such help
	   (its table would cost more than the replay). */
	if (r->h.nslots <= r->h.ncalls + 1)
		replay_prefault(x->slot, r->h.nslots * sizeof *x->slot, x->page);
	/* (and the sampler's and the fill's tables: at most a few hundred KiB) */
	replay_prefault(x->curve.pt, x->curve.cap * sizeof *x->curve.pt, x->page);
	replay_prefault(x->fill.e, x->fill.on ? FILL_ENTRIES * sizeof *x->fill.e : 0, x->page);
	x->statm = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	if (x->statm < 0)
		x->at_sample_us = UINT64_MAX;
	if (o->log_fd >= 0) {
		/* what it is of, as a latency file names it; then the columns.  calls: completed
		   by all threads; program_ms: the program's time the replay is at, where it is
		   known (readers take the columns by name, so that columns can be added after the
		   first four) */
		static const char title[] = "# trace_run timeline: ";
		static const char head[] =
			"time_ms\tvmrss_kb\tvmsize_kb\tideal_kb\tcalls\tanon_kb\tmapped_kb";
		const char *name = o->log_name ? o->log_name : "glibc";
		replay_log_line(x, title, sizeof title - 1);
		replay_log_line(x, name, strcspn(name, "\n"));
		replay_log_line(x, "\n", 1);
		replay_log_line(x, head, sizeof head - 1);
		replay_log_line(x, replay_clock_known(x) ? "\tprogram_ms\n" : "\n",
				replay_clock_known(x) ? 12 : 1);
	}
	/* malloc_trim is glibc's even when another allocator serves malloc, and glibc sets up its
	   malloc lazily, without a lock, giving the thread that does it the main arena: two replay
	   threads trimming first at once both take it, and the second to exit trips glibc's
	   attached-threads assertion (seen under ASan).  Set it up here, in the main thread. */
	if (o->trim_every)
		malloc_trim(0);
	x->nt = nt;
	x->timed = !o->no_timing;
	for (uint32_t i = 0; i < nt; i++) {
		x->t[i].x = x;
		x->t[i].idx = i;
		/* (seen[] zeroed: "thread 0 at count 0", which is true) */
	}
	/* as many threads at once as the program had alive at once, unless told (a program whose
	   threads came and went ran 10,000 replay threads, their stacks the harness's RSS) */
	uint32_t most = o->max_threads ? o->max_threads
		      : r->h.max_live_threads && r->h.max_live_threads < REPLAY_MAX_THREADS
		      ? r->h.max_live_threads
		      : REPLAY_MAX_THREADS;
	uint32_t first = nt < most ? nt : most;
	for (uint32_t i = 0; i < first; i++)
		replay_add_worker(x);   /* they wait for `go` */
	for (uint32_t n; (n = __atomic_load_n(&x->ready, __ATOMIC_ACQUIRE)) < first;)
		futex(&x->ready, FUTEX_WAIT_PRIVATE, n, NULL);   /* (their stacks written) */
	replay_crash_state = x;   /* a crash now says where */
	pthread_t sampler_th;
	int have_sampler =
		x->statm >= 0 && pthread_create(&sampler_th, NULL, replay_sampler, x) == 0;

	/* Max RSS is to be the replay's: the workload's pages, all read by validation, go (the
	   replay reads each stream again, and gives back what it has read as it goes), and the
	   high-water mark restarts from here (Linux 4.0 on; elsewhere START keeps what came
	   before) */
	madvise((void *)r->map, r->size, MADV_DONTNEED);
	int cr = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
	if (cr >= 0) {
		ssize_t w = write(cr, "5", 1);
		res->hwm_reset = w == 1;
		close(cr);
	}
	struct rusage ru0, ru1;
	struct timeval tv0, tv1;
	uint64_t vsz0, rss0;
	if (x->statm >= 0 && replay_statm(x->statm, x->page, &vsz0, &rss0, &x->curve.anon0) == 0) {
		replay_curve_add(&x->curve, 0, x->curve.anon0, 0, 0);   /* where growth starts */
		if (o->log_fd >= 0)   /* and the timeline's first row, at time 0 (the sampler's
					 first comes an interval later, thousands of calls on) */
			replay_log_baseline(x, rss0 / 1024, vsz0 / 1024, x->curve.anon0 / 1024);
	}
	getrusage(RUSAGE_SELF, &ru0);
	gettimeofday(&tv0, NULL);
	x->t0_ns = clock_ns();
	uint64_t start = cycles_start();
	__atomic_store_n(&x->go, 1, __ATOMIC_RELEASE);
	futex(&x->go, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
	for (uint32_t n; (n = __atomic_load_n(&x->running, __ATOMIC_ACQUIRE)) != 0;)
		futex(&x->running, FUTEX_WAIT_PRIVATE, n, NULL);
	replay_fill_finish(x);
	uint64_t end = start;
	for (uint32_t i = 0; i < nt; i++)
		if (x->t[i].end_ticks > end)
			end = x->t[i].end_ticks;
	gettimeofday(&tv1, NULL);
	getrusage(RUSAGE_SELF, &ru1);
	__atomic_store_n(&x->done, 1, __ATOMIC_RELEASE);
	if (have_sampler)
		pthread_join(sampler_th, NULL);

	res->cycles = end - start;
	res->wall_usec =
		(uint64_t)((tv1.tv_sec - tv0.tv_sec) * 1000000 + (tv1.tv_usec - tv0.tv_usec));
	res->user_usec = (uint64_t)((ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) * 1000000 +
				    (ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec));
	res->maxrss_start_kb = ru0.ru_maxrss;
	res->maxrss_end_kb = ru1.ru_maxrss;
	res->peak_live = x->peak_live;
	res->peak_vmrss_kb = x->peak_rss_kb;
	res->peak_vmsize_kb = x->peak_vsz_kb;
	res->samples = x->samples;
	res->log_errno = x->log_errno;
	res->nthreads = nt;
	res->workers = x->workers;
	res->harness_kb = harness / 1024;
	for (uint32_t i = 0; i < nt; i++) {
		struct rthread *t = &x->t[i];
		for (unsigned k = 0; k < MTRACE_WL_NCOUNTS; k++) {
			res->n[k] += t->n[k];
			res->cyc[k] += t->cyc[k];
		}
		res->waits += t->waits;
		res->waits_slept += t->slept;
		res->implicit_frees += t->implicit;
		res->failed_replayed += t->failed;
		res->replay_failures += t->rfail;
		if (t->rfail && res->replay_failures == t->rfail) {  /* the first stream with one */
			res->fail_op = t->fail_op;
			res->fail_bytes = t->fail_bytes;
			res->fail_stream = i;
			res->fail_call = t->fail_call;
		}
		res->resident_told += t->res_told;
		res->resident_unknown += t->res_unknown;
		res->resident_unknown_bytes += t->res_unknown_bytes;
	}
	res->resident_told += x->maps.resident_told;
	res->resident_unknown += x->maps.unknown;
	res->resident_unknown_bytes += x->maps.unknown_bytes;
	res->mapped_peak = x->maps.peak > 0 ? (uint64_t)x->maps.peak : 0;
	res->curve = &x->curve;
	if (x->timed) {
		for (unsigned c = 0; c < LAT_CLASSES; c++)
			lat_percentiles(x->hist->b[c], x->hist->max[c], res->lat[c]);
		res->hist = (const uint64_t (*)[HIST_BUCKETS])x->hist->b;
		res->hist_max = x->hist->max;
	}
	if (x->statm >= 0)
		close(x->statm);
	return 0;   /* tables are left mapped: the process ends after reporting */
nomem:
	return tool_fail(err, EXIT_SYSTEM, "cannot map the harness's tables (%llu slots, %u "
			 "threads): %s", (unsigned long long)r->h.nslots, nt, strerror(errno));
}
