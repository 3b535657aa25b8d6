/* clock_watch.c - the tracer's clock over a trace's life: each file's calibration and the rate
 * refined as it goes, the reads of a thread that switched the TSC off (PR_SET_TSC), a clock
 * that stops advancing given up for a count, and where the coarse clock is in the vDSO's data
 * (clock.c chooses and reads the clocks).
 */
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "mt_int.h"

struct mt_calib_state mt_calib;

#define CHUNK_STALLS 4          /* chunks in a row taken at their predecessor's clock value
                                   before the clock is given up for the count (a clock of 100 ns
                                   steps meets one now and then, never four in a row) */
/* How far above the clock's last value the count starts: above what any thread that read the
   clock's kind before the switch, and the clock after it (preempted between the two), can
   stamp: 2^48 ticks, more than a day at 3 GHz */
#define COUNT_MARGIN ((uint64_t)1 << 48)

static uint64_t chunk_ts;       /* the last chunk's clock value (under lock) */
static unsigned chunk_stalls;

/* ---------------------------------------------------------------------------------------------
   Calibration
   ------------------------------------------------------------------------------------------- */

/* The order points' ticks in a thread that must not read the CPU's counter (PR_SET_TSC): the
   kernel's clock, converted with the calibration the header holds. */
uint64_t mt_ticks_soft(void)
{
	int kind = __atomic_load_n(&mt_clock_kind, __ATOMIC_ACQUIRE);
	if (kind == MTRACE_CLOCK_COUNTER)
		return mt_clock_read();
	uint64_t ns = mt_clock_soft_ns();
	if (!mt_clock_is_tsc(kind) || mt_calib.ticks_per_sec == 0)
		return ns;
	return mt_calib.start_ticks + (uint64_t)((double)(int64_t)(ns - mt_calib.start_ns) *
					     (double)mt_calib.ticks_per_sec / 1e9);
}

/* A "before" order point of a thread whose TSC setting may not be known yet. */
uint64_t mt_thread_ticks_unsure(struct mt_thread_clock *c)
{
	if (!c->checked)
		mt_thread_clock_check(c);
	return c->notsc ? mt_thread_ticks_soft(c) : mt_thread_ticks(c);
}

/* An order point of a thread with the TSC off.  The count, if the thread counts again later,
   starts from the clock again, so its stamps stay in order. */
uint64_t mt_thread_ticks_soft(struct mt_thread_clock *c)
{
	uint64_t ts = mt_ticks_soft();
	if (!__atomic_load_n(&mt_clock_solo, __ATOMIC_RELAXED)) {
		c->left = 0;
		return c->last = ts;
	}
	return mt_solo_other(c, ts);
}

/* A new file's reference: mt_calib's calibration (a thread that cannot read the TSC keeps the
   one it inherited, or takes a nominal one) and the wall clock's time, which it returns. */
int64_t mt_clock_start(void)
{
	if (MT_UNLIKELY(mt_tls.clk.notsc)) {
		mt_calib.start_ticks = mt_ticks_soft();
		mt_calib.start_ns = mt_ns_soft();
		if (mt_calib.ticks_per_sec == 0)
			mt_calib.ticks_per_sec = 1000000000u;
		return mt_realtime_ns(1);
	}
	mt_calib.start_ns = mt_monotonic_ns();
	mt_calib.start_ticks = mt_ticks();
	mt_calib.ticks_per_sec = mt_clock_estimate_hz(mt_calib.start_ticks, mt_calib.start_ns);
	return mt_realtime_ns(0);
}

/* The CPU counter's rate measured over the whole trace so far, once 1 ms has passed; else (or
   for another clock) hz unchanged. */
uint64_t mt_clock_refine(uint64_t hz)
{
	int kind = mt_clock_kind;
	if ((!mt_clock_is_tsc(kind) && kind != MTRACE_CLOCK_CNTVCT) || mt_tls.clk.notsc)
		return hz;
	uint64_t ns = mt_monotonic_ns();
	if (ns - mt_calib.start_ns < 1000000)
		return hz;
	uint64_t ticks = mt_ticks();
	return (uint64_t)((double)(ticks - mt_calib.start_ticks) * 1e9 /
			  (double)(ns - mt_calib.start_ns));
}

/* ---------------------------------------------------------------------------------------------
   Watching
   ------------------------------------------------------------------------------------------- */

/* Under lock: the clock value of a new chunk.  Chunks are taken one at a time under the lock,
   a few hundred ns apart at the very least, so a clock that reads the same for two of them
   cannot tell the calls between apart: after CHUNK_STALLS of those in a row, the count
   replaces it (the header says so from then on). */
uint64_t mt_chunk_ticks(void)
{
	MT_ASSERT_LOCKED();
	uint64_t ts = mt_thread_ticks(&mt_tls.clk);
	if (MT_LIKELY(ts != chunk_ts))
		chunk_stalls = 0;
	else if (mt_clock_kind != MTRACE_CLOCK_COUNTER && ++chunk_stalls == CHUNK_STALLS) {
		mt_clock_fall_back(ts + COUNT_MARGIN);
		mt_file_header_update(0);
		mt_msg_info("the clock did not advance between chunks of calls: order points are",
			"counted from here on (the trace has no time)");
		ts = mt_clock_read();
	}
	chunk_ts = ts;
	return ts;
}

/* ---------------------------------------------------------------------------------------------
   The coarse clock's words
   ------------------------------------------------------------------------------------------- */

/* Can the kernel read the len bytes at p?  Written into a pipe of our own: a page that would
   fault (SIGBUS) fails the copy with EFAULT instead.  Under lock (the descriptors: no fork()
   child inherits them), by system call as the maps file is read (procstat.c). */
static int readable(uintptr_t p, uintptr_t len)
{
	MT_ASSERT_LOCKED();
	int fd[2];
	if (syscall(SYS_pipe2, fd, O_CLOEXEC) != 0)
		return 0;
	long n = syscall(SYS_write, fd[1], (const void *)p, len);
	syscall(SYS_close, fd[0]);
	syscall(SYS_close, fd[1]);
	return n == (long)len;
}

/* The first page of the "[vvar]" mapping holds the kernel's time data for the vDSO (in a time
   namespace, the namespace's offsets: the clock is not found there); its first 4 KiB are
   searched (a pipe takes them at once), once seen to be readable: other pages of the mapping
   fault when their clock is absent, and a kernel not known here may lay it out otherwise. */
void mt_clock_coarse_find(void)
{
	uintptr_t lo, hi, len = 4096;
	struct mt_lock_state ls;
	if (!__atomic_load_n(&mt_clock_solo, __ATOMIC_RELAXED))
		return;
	mt_lock(&ls);
	int found = mt_procstat_mapping(0, "[vvar]", &lo, &hi);
	if (found && hi - lo < len)
		len = hi - lo;
	found = found && hi > lo && readable(lo, len);
	mt_unlock(&ls);
	if (found)
		mt_clock_coarse_page(lo, len);
}
