/* replay.h - replaying a workload against the allocator in this process (trace_run's engine).
 *
 * One thread per stream, all released together; beyond max_threads streams (a program that
 * created threads all its life), the others are taken in order as threads come free, and a
 * thread is added whenever one waits for a stream nobody has taken.  Every call is timed alone
 * (cycles.h), its time summed and counted in a histogram of its call class; after
 * an allocation the block is touched so RSS reflects real use.  A thread waits for another by
 * reading that thread's published call count: a local copy first (an already-satisfied wait
 * costs no shared cache line), then a short spin, then a futex sleep.  Everything the harness
 * needs lives in mmap'd memory, so the allocator under test serves only the workload.  A sampler
 * thread reads VmRSS/VmSize from /proc/self/statm every interval and sums the threads' live
 * requested bytes (ideal RSS now), optionally logging a TSV timeline.
 */
#ifndef REPLAY_H
#define REPLAY_H
#include <stdint.h>
#include "lat_hist.h"
#include "replay_check.h"
#include "replay_prog.h"
#include "wl_reader.h"

struct replay_opts {
	int touch;                    /* TOUCH_* (replay_prog.h) */
	double pace;                  /* > 0: each stream waits for its ATs' times, at pace times
	                                 the program's speed; 0: as fast as it can */
	unsigned interval_ms;         /* RSS sampling period */
	int log_fd;                   /* TSV timeline, or -1 */
	const char *log_name;         /* the allocator (a --compare column's label) the timeline
	                                 names in its first line */
	uint64_t trim_every;          /* malloc_trim(0) after every N calls of a thread; 0 never */
	int no_timing;                /* calls are not timed (the replay runs without the timer) */
	unsigned max_threads;         /* replay threads at once; 0: REPLAY_MAX_THREADS */
	int progress;                 /* calls done on stderr, by the sampler: 0 never, 1 after
	                                 the first second, 2 from the start */
	const char *progress_name;    /* what the progress line names */
	unsigned timeout_s;           /* a replay in which no call completes for this long ends,
	                                 saying where (exit 3); 0: never */
};

struct replay_result {
	uint64_t cycles;              /* timer ticks from release to the last thread's end */
	uint64_t wall_usec, user_usec;
	int64_t maxrss_start_kb, maxrss_end_kb;
	uint64_t ideal_rss;           /* bytes: the workload's, or computed by replay_validate */
	uint64_t peak_live;           /* bytes: largest live requested bytes the sampler saw */
	uint64_t peak_vmrss_kb, peak_vmsize_kb, samples;
	uint64_t n[MTRACE_WL_NCOUNTS], cyc[MTRACE_WL_NCOUNTS];   /* calls and ticks by opcode */
	uint64_t lat[LAT_CLASSES][LAT_POINTS];   /* ticks a call: percentiles (the upper end of
	                                 a bucket 1/16 of a power of two wide; exact below 16)
	                                 and the exact largest; 0 when not timed */
	uint64_t waits, waits_slept;  /* WAITs executed; of them, ones that had to sleep */
	uint64_t implicit_frees;      /* allocations into an occupied slot: old block freed first */
	uint64_t failed_replayed;     /* calls that failed in the trace (results freed untimed) */
	uint64_t replay_failures;     /* calls that succeeded in the trace but failed here (the
	                                 program's own mappings too) */
	unsigned fail_op;             /* the first of them (in the first stream that had one): */
	uint32_t fail_stream;         /* its opcode, stream, number in the stream (as the crash */
	uint64_t fail_call, fail_bytes;   /* report counts) and the bytes it asked for */
	uint64_t resident_told;       /* blocks and mappings touched as the program had them
	                                 resident (the workload said) */
	uint64_t resident_unknown;    /* large ones written whole: the workload says it does not
	                                 know what was resident (never released while traced) */
	uint64_t resident_unknown_bytes;
	uint64_t mapped_peak;         /* bytes: the program's own mappings replayed, at the most */
	int hwm_reset;                /* the high-water mark of RSS restarted with the replay: Max
	                                 RSS growth is the replay's own */
	const struct replay_curve *curve;   /* (calls, anonymous RSS) as sampled; valid until the
	                                 process ends */
	uint64_t harness_kb;          /* the harness's own tables */
	uint32_t nthreads;
	uint32_t workers;             /* replay threads that ran them */
	int timer;                    /* cycles.h TIMER_* */
	int log_errno;                /* why a write to log_fd failed (the timeline is short); 0 */
	/* the whole distributions lat[] is taken from, per class (lat_hist.h buckets), and each
	   class's largest; NULL when not timed.  Valid until the process ends. */
	const uint64_t (*hist)[HIST_BUCKETS];
	const uint64_t *hist_max;
};

#define REPLAY_MAX_THREADS 10000   /* replay threads at once, by default */
/* Seconds without a call completed before a replay is ended (--timeout): far beyond the
   longest call and touch of a block that fits in memory, short of a user giving up */
#define REPLAY_TIMEOUT_DEFAULT 60

/* From now on a crash (SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE: the allocator under test,
   most likely) says where the replay was - before it began, or which stream, thread and call -
   removes the tool's temporary files and exits 3. */
void replay_catch_crashes(void);

/* Replay once.  0, or -1 with err. */
int replay_run(struct wl_reader *r, const struct replay_plan *plan, const struct replay_opts *o,
	       struct replay_result *res, struct tool_err *err);
#endif
