/* memory.c - what the program's memory looks like: how much of a block is resident, and samples
 * of the whole process's memory over time.
 *
 * A replay that writes every page of every block it allocates uses memory the program never
 * did (sort mallocs 10.5 GB of buffers and touches 1.3 GB of them).  So when a block of at least
 * MT_RESIDENT_MIN bytes is freed or reallocated, the tracer asks the kernel (mincore) how many of
 * its whole pages are resident, and the record says so (MTRACE_RF_RESIDENT, arg2): the replay
 * then touches as many.  Below that size a block shares its pages with others and the
 * allocator's call costs less than the question would.
 *
 * Samples of the process's memory (MTRACE_CALL_MEMORY records: anonymous resident, resident and
 * virtual bytes, from /proc/self/statm) are taken by whichever thread makes the first call after
 * the interval has passed: one compare per call against mt_hot->sample_due, and the thread that
 * moves it takes the sample.  No thread, no allocation, and the descriptor is open only under
 * the lock (fds.c): a fork child never inherits it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "mt_int.h"

struct mt_memory_state mt_mem;

/* ---------------------------------------------------------------------------------------------
   Resident bytes of a block
   ------------------------------------------------------------------------------------------- */

uint64_t mt_memory_resident(const void *p, size_t size)
{
	uintptr_t ps = (uintptr_t)getpagesize();
	uintptr_t lo = ((uintptr_t)p + ps - 1) & ~(ps - 1), hi = ((uintptr_t)p + size) & ~(ps - 1);
	unsigned char vec[512];   /* 2 MiB of 4 KiB pages a call: small, for a handler's stack */
	uint64_t pages = 0;
	int e = errno;
	while (lo < hi) {
		size_t n = (hi - lo) / ps < sizeof vec ? (size_t)((hi - lo) / ps) : sizeof vec;
		if (mincore((void *)lo, n * ps, vec) != 0)
			break;
		for (size_t i = 0; i < n; i++)
			pages += vec[i] & 1;
		lo += n * ps;
	}
	errno = e;
	return pages * ps;
}

/* ---------------------------------------------------------------------------------------------
   Samples
   ------------------------------------------------------------------------------------------- */

/* The interval in ticks (0: no samples), from MTRACE_CTL_MEMORY_MS at initialisation. */
static uint64_t interval_ticks;

void mt_memory_init(void)
{
	const char *v = secure_getenv("MTRACE_CTL_MEMORY_MS");
	long ms = MT_MEMORY_MS;
	if (v && *v) {
		char *end;
		ms = strtol(v, &end, 10);
		if (*end || ms < 0 || ms > 3600000)
			ms = MT_MEMORY_MS;
	}
	mt_mem.memory_ms = (uint32_t)ms;
}

/* Under lock, at a file's start: the first call takes a sample. */
void mt_memory_file_open(void)
{
	MT_ASSERT_LOCKED();
	interval_ticks = mt_mem.memory_ms ? mt_calib.ticks_per_sec / 1000 * mt_mem.memory_ms : 0;
	mt_mem.sample_early = interval_ticks - interval_ticks / 10;
	mt_hot->sample_due = interval_ticks ? 0 : UINT64_MAX;
}

static uint64_t field(const char **s)
{
	while (**s == ' ')
		(*s)++;
	return mt_procstat_dec(s);
}

/* Under lock: a sample of the process's memory now (/proc/self/statm's size, resident and
   shared pages): anonymous resident, resident and virtual bytes. */
static int sample(uint64_t *anon, uint64_t *resident, uint64_t *size)
{
	uint64_t shared, ps = (uint64_t)getpagesize();
	char buf[128];
	if (mt_fds_read_proc("/proc/self/statm", buf, sizeof buf) < 0)
		return -1;
	const char *s = buf;
	*size = field(&s);
	*resident = field(&s);
	shared = field(&s);
	*anon = (*resident > shared ? *resident - shared : 0) * ps;
	*resident *= ps;
	*size *= ps;
	return 0;
}

/* The sample of ts, by the thread that moves sample_due on from due (another may have). */
static void take_sample(struct mt_thread *t, uint64_t ts, uint64_t due)
{
	uint64_t anon, resident, size;
	if (t->exiting)
		return;   /* (left due for the next call of another thread: a large release after
		             this thread's end, sort's, would find it used up and the peak missed) */
	if (!__atomic_compare_exchange_n(&mt_hot->sample_due, &due, ts + interval_ticks, 0,
					 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return;   /* another thread took it */
	if (mt_sandbox.sandboxed)
		return;
	struct mt_lock_state ls;
	mt_lock(&ls);
	/* (again under the lock: a sandbox may have come while it waited, the trace finished for
	   it, and no system call of ours is to follow) */
	int ok = !mt_sandbox.sandboxed && mt_hot->active && sample(&anon, &resident, &size) == 0;
	mt_unlock(&ls);
	if (!ok)
		return;
	struct mtrace_slot *r = mt_reserve_n(t, 2, 0);
	if (r == NULL || t->gen != mt_hot->gen)
		return;
	t->extra += 2;   /* not a call: left out of the count of calls */
	mt_put_wide(r, MTRACE_CALL_MEMORY, 0, 0, mt_thread_ticks(&mt_tls.clk), 0, 0, anon, resident,
		    size, 0);
}

/* A call found a sample due at ts: the thread that moves sample_due on takes it, into its own
   chunk.  Out of line: once every interval. */
void mt_memory_sample_due(struct mt_thread *t, uint64_t ts)
{
	if (MT_UNLIKELY(mt_control_due())) {   /* (a request from outside: looked for here too) */
		mt_control_act();
		if (!mt_hot->active)
			return;
	}
	uint64_t due = mt_hot->sample_due;
	if (ts >= due)
		take_sample(t, ts, due);
}

/* A large release before the sample is due (mt_memory_before_release): it is taken now, and
   the next comes an interval later. */
void mt_memory_sample_early(struct mt_thread *t, uint64_t ts, uint64_t due)
{
	if (mt_hot->active)
		take_sample(t, ts, due);
}

/* Under lock, by the thread that finishes the trace: the last sample, into record r. */
int mt_memory_sample_last(struct mt_thread *t, struct mtrace_slot *r)
{
	MT_ASSERT_LOCKED();
	uint64_t anon, resident, size;
	(void)t;
	if (sample(&anon, &resident, &size) != 0)
		return -1;
	mt_put_wide(r, MTRACE_CALL_MEMORY, 0, 0, mt_thread_ticks(&mt_tls.clk), 0, 0, anon, resident,
		    size, 0);
	return 0;
}
