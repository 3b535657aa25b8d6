/* populate.c - a thread that puts page-cache pages under the trace ahead of the writers.
 *
 * Most of what tracing costs a call is not ours but the kernel's: each 4 KiB page of the trace
 * (64 records) needs a fresh page-cache page, zeroed, accounted dirty and mapped, 1-3 us a page
 * on the machines we measured.  A writer that does this itself (madvise MADV_POPULATE_WRITE on
 * each chunk it takes) pays it on the program's time.  Once a trace has grown past
 * MT_POP_AFTER, this thread keeps the file populated up to MT_POP_AHEAD bytes beyond the last
 * chunk handed out, so writers find their pages mapped and skip the madvise; while one core
 * runs the program the work moves to another.  A writer that outruns the thread populates its
 * own chunk itself, so nothing ever waits for the thread.  The thread also unmaps the windows
 * that are finished, more kernel work that the writers are spared.
 *
 * It starts late, so that short programs never see an extra thread, and from an allocating
 * call only (glibc may call free holding a lock pthread_create takes: see mt_populate_wanted),
 * with every signal blocked (signals stay the program's), and never once the program has
 * installed a seccomp filter of its own (a sandbox may kill a process that creates threads);
 * filters it was started under (a container's) are no reason, as every program there creates
 * threads.  What glibc allocates for it comes from our bootstrap arena, so the program's heap
 * and the addresses its allocator returns stay what they are untraced.  What does change: a
 * single-threaded program becomes multi-threaded, and glibc's malloc then takes its arena lock
 * on the paths its per-thread cache does not serve (python with an idle thread: 0.96-1.00x the
 * time, once 6% slower).  MTRACE_CTL_NOTHREAD=1 keeps it from starting at all.  It works under
 * mt_run.lock except for the madvise itself, during which it pins its window (mt_pop.pop_win) so
 * nobody unmaps it.  It ends before a fork, gone from the process when fork returns (programs
 * count their threads then: python warns of forking a multi-threaded process), and starts again
 * once the trace has grown MT_POP_AFTER past the fork; the child starts its own when its own
 * trace grows.
 *
 * A process lives as long as any of its threads, so ours must not outlive the program's: when
 * its main thread has called pthread_exit and the others have ended, the process is to exit
 * with status 0 (POSIX), which glibc does when the last thread ends.  Idle, the thread looks
 * every MT_POP_IDLE_NS whether it is alone (only it, and perhaps the zombie main thread) and
 * then ends, the last thread, so that glibc calls exit(0) there.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "mt_int.h"

struct mt_pop_state mt_pop = { .pop_win = MT_NO_WINDOW,
			      .drop_win = { [0 ... MT_DROP_PINS - 1] = MT_NO_WINDOW } };

/* started once the trace reaches 16 MiB: below that it saves little, and the pages it populates
   beyond a short trace's end are work thrown away (1,000 threads of 20 calls, a 9 MB trace, ran
   10-20% slower when it started at 4 MiB) */
#define MT_POP_AFTER  ((uint64_t)16 << 20)
#define MT_POP_AHEAD  ((uint64_t)4 << 20)    /* how far ahead of next_off it keeps populated */
#define MT_POP_STEP   ((uint64_t)256 << 10)  /* one madvise: the lock is free between steps */
#define MT_POP_IDLE_NS 100000000L            /* idle: how often it looks whether it is alone */
/* Pages the writers have left behind are dropped from the process's page tables (the data stays
   in the page cache, on its way to the disk), so the traced program's RSS does not grow with
   its trace (it grew by a whole 256 MiB window, and without end for a program whose exiting
   threads leave small chunks everywhere).  A writer still holding a chunk back there takes a
   minor fault on its next record.  From MT_DROP_LAG behind the writers, MT_DROP_STEP at once. */
#define MT_DROP_LAG   ((uint64_t)4 << 20)
#define MT_DROP_STEP  ((uint64_t)4 << 20)
/* how far the thread may fall behind (mt_populate_drop_claim) */
#define MT_DROP_FORCE ((uint64_t)4 << 20)
#define MT_SWEEP_EVERY ((uint64_t)32 << 20)  /* see next_sweep */

static pthread_cond_t pop_cond;   /* on CLOCK_MONOTONIC: set up by init_cond() */
static uint64_t page_size = 4096;

/* Windows nobody uses any more, for the thread to unmap: tearing down 256 MiB of mappings
   takes the kernel 20 ms or so, which the writer that released the last chunk of a window
   would otherwise spend under the lock.  Under lock. */
#define MT_POP_UNMAPS 8
static struct { char *base; size_t size; } unmap_queue[MT_POP_UNMAPS];
static int n_unmap;

static pthread_t pop_thread;
static int pop_joinable;    /* pop_thread was started and not joined */
static pid_t pop_tid;       /* its thread id, once it runs (0 until then) */
static pid_t pop_starter;   /* the thread that set MT_POP_STARTING */
/* Ended for a fork (mt_populate_pause): it may start again once the file (resume_file) has
   grown to resume_at, where a fork has ended it for good (a sandbox, a new namespace). */
static int pop_resumable;
static uint32_t resume_file;
static uint64_t resume_at;

/* ---------------------------------------------------------------------------------------------
   Called by the writers (under lock)
   ------------------------------------------------------------------------------------------- */

/* Are the file's pages below end populated?  Wakes the thread when the writers come within half
   its lead of what it has done (nothing of a new file). */
int mt_populate_covers(uint64_t end)
{
	MT_ASSERT_LOCKED();
	if (mt_pop.pop_state != MT_POP_RUNNING)
		return 0;
	if (mt_pop.pop_waiting && mt_pop.pop_end < mt_chunks.next_off + MT_POP_AHEAD / 2) {
		mt_pop.pop_waiting = 0;
		pthread_cond_signal(&pop_cond);
	}
	return end <= mt_pop.pop_end;
}

/* Under lock: have the thread unmap window base (which nobody uses any more): 1, or 0 if the
   caller is to do it (no thread, or its queue is full). */
int mt_populate_unmap(char *base)
{
	MT_ASSERT_LOCKED();
	if (mt_pop.pop_state != MT_POP_RUNNING || n_unmap == MT_POP_UNMAPS)
		return 0;
	unmap_queue[n_unmap].base = base;
	unmap_queue[n_unmap++].size = MT_WINDOW_SIZE;
	if (mt_pop.pop_waiting) {
		mt_pop.pop_waiting = 0;
		pthread_cond_signal(&pop_cond);
	}
	return 1;
}

/* Only an allocating call starts the thread.  glibc frees a joined thread's TLS vector with
   its stack-cache lock held (nptl-stack.c, __nptl_deallocate_stack), and pthread_create takes
   that lock: a free that started the thread there would wait for itself forever.  glibc calls
   no allocating function under that lock; realloc is left out too, as it may free. */
int mt_populate_wanted(int may_start)
{
	MT_ASSERT_LOCKED();
	if (MT_LIKELY(mt_pop.pop_state != MT_POP_NONE) || mt_chunks.next_off < MT_POP_AFTER ||
	    (resume_file == mt_file.file_id && mt_chunks.next_off < resume_at))
		return 0;
	if (!may_start)
		return -1;
	mt_pop.pop_state = MT_POP_STARTING;
	pop_starter = (pid_t)mt_tls.tid;
	return 1;
}

/* ---------------------------------------------------------------------------------------------
   The thread
   ------------------------------------------------------------------------------------------- */

static uint64_t drop_end;       /* the file's pages below this were dropped (or never mapped) */

/* A thread that writes slowly (python's, waiting for the interpreter lock) may hold its chunk
   past the drop line: its pages are then dropped under it and made resident again as it goes
   on.  So every MT_SWEEP_EVERY of dropping, what lies behind the line is dropped once more, a
   step at a time (no page there: the kernel only walks the page tables).  What the trace adds
   to the program's memory is then bounded whatever the number of threads. */
static uint64_t sweep_pos, sweep_to, sweep_next;

/* Under lock: the next step of the sweep, [*from, *to) in window *w, or 0. */
static int next_sweep(uint64_t *from, uint64_t *to, uint32_t *w)
{
	if (sweep_pos >= sweep_to) {
		if (drop_end < sweep_next)
			return 0;
		sweep_pos = (uint64_t)mt_wnd.win_live << mt_wnd.win_shift;
		sweep_to = drop_end;
		sweep_next = drop_end + MT_SWEEP_EVERY;
	}
	while (sweep_pos < sweep_to) {
		uint64_t wend = ((sweep_pos >> mt_wnd.win_shift) + 1) << mt_wnd.win_shift;
		*w = (uint32_t)(sweep_pos >> mt_wnd.win_shift);
		if (mt_win[*w] != NULL) {
			*from = sweep_pos;
			*to = sweep_pos + MT_DROP_STEP < sweep_to ? sweep_pos + MT_DROP_STEP :
				sweep_to;
			if (*to > wend)
				*to = wend;
			sweep_pos = *to;
			return 1;
		}
		sweep_pos = wend;
	}
	return 0;
}

/* Under lock: the next range to drop, [*from, *to) in window *w, or 0 if none is due: pages
   lag bytes behind the writers and more.  Claimed at once (drop_end moves past it). */
static int next_drop(uint64_t *from, uint64_t *to, uint32_t *w, uint64_t lag)
{
	if (!mt_file.have_file || !mt_run.active)
		return 0;
	uint64_t next = mt_chunks.next_off;
	uint64_t goal = next > lag ? (next - lag) & ~(page_size - 1) : 0;
	if (goal < drop_end + MT_DROP_STEP)
		return 0;
	for (;;) {
		uint64_t wend = ((drop_end >> mt_wnd.win_shift) + 1) << mt_wnd.win_shift;
		*w = (uint32_t)(drop_end >> mt_wnd.win_shift);
		if (mt_win[*w] != NULL)
			break;
		drop_end = wend;   /* unmapped already: nothing there to drop */
		if (drop_end >= goal)
			return 0;
	}
	uint64_t wend = ((drop_end >> mt_wnd.win_shift) + 1) << mt_wnd.win_shift;
	*from = drop_end;
	*to = goal < drop_end + MT_DROP_STEP ? goal : drop_end + MT_DROP_STEP;
	if (*to > wend)
		*to = wend;
	drop_end = *to;
	return 1;
}

/* Under lock, by a writer: when the thread lags far behind (the program's threads keep every
   core busy) or there is none, a writer drops a step of pages itself, so that the trace's
   share of the program's memory stays bounded.  A pin for the range, whose window stays
   mapped until mt_populate_drop_done; or -1. */
int mt_populate_drop_claim(uint64_t *from, uint64_t *to, uint32_t *w)
{
	MT_ASSERT_LOCKED();
	int pin = 0;
	while (pin < MT_DROP_PINS && mt_pop.drop_win[pin] != MT_NO_WINDOW)
		pin++;
	if (pin == MT_DROP_PINS || !mt_file.have_file)
		return -1;
	if (mt_chunks.next_off - drop_end <= MT_DROP_LAG + MT_DROP_FORCE ||
	    !next_drop(from, to, w, MT_DROP_LAG)) {
		if (mt_pop.pop_state == MT_POP_RUNNING || !next_sweep(from, to, w))
			return -1;   /* (the thread sweeps when there is one) */
	}
	mt_pop.drop_win[pin] = *w;
	return pin;
}

/* Under lock: the writer's drop is done. */
void mt_populate_drop_done(int pin)
{
	MT_ASSERT_LOCKED();
	uint32_t w = mt_pop.drop_win[pin];
	mt_pop.drop_win[pin] = MT_NO_WINDOW;
	if (mt_chunks.next_off >= ((uint64_t)w + 1) << mt_wnd.win_shift)
		mt_window_maybe_unmap(w);
}

int mt_populate_drop_pinned(uint32_t w)
{
	MT_ASSERT_LOCKED();
	for (int i = 0; i < MT_DROP_PINS; i++)
		if (mt_pop.drop_win[i] == w)
			return 1;
	return 0;
}

/* Under lock: the next range to populate, [*from, *to) in window *w, or 0 if there is none now. */
static int next_range(uint64_t *from, uint64_t *to, uint32_t *w)
{
	if (!mt_file.have_file || !mt_run.active)
		return 0;
	/* what the writers were handed they populated themselves */
	uint64_t lo = mt_pop.pop_end > mt_chunks.next_off ? mt_pop.pop_end : mt_chunks.next_off;
	lo &= ~(page_size - 1);
	/* whole pages: chunks need not end on one, and a range ending inside a page would be
	   populated again and again, pop_end never reaching the next page */
	uint64_t goal = (mt_chunks.next_off + MT_POP_AHEAD + page_size - 1) & ~(page_size - 1);
	if (lo >= goal)
		return 0;
	uint64_t hi = lo + MT_POP_STEP < goal ? lo + MT_POP_STEP : goal;
	uint64_t wend = ((lo >> mt_wnd.win_shift) + 1) << mt_wnd.win_shift;
	if (hi > wend)
		hi = wend;
	if (hi > mt_wnd.reserved_end) {
		/* reserve ahead too, but a failure is for the writer that needs the space to
		   report; no second try until the writers have moved the reservation */
		if (mt_wnd.reserved_end == mt_pop.pop_stuck_at || mt_window_reserve(hi, 1) < 0) {
			mt_pop.pop_stuck_at = mt_wnd.reserved_end;
			hi = mt_wnd.reserved_end;
			if (hi <= lo)
				return 0;
		}
	}
	*w = (uint32_t)(lo >> mt_wnd.win_shift);
	if (*w >= MT_MAX_WINDOWS || mt_window_map(*w) < 0)
		return 0;
	*from = lo;
	*to = hi;
	return 1;
}

/* Under lock: MADV_DONTNEED on [from, to) of window w, pinned while the lock is let go. */
static void drop_pages(uint64_t from, uint64_t to, uint32_t w)
{
	char *base = mt_win[w] + (from & (MT_WINDOW_SIZE - 1));
	mt_pop.pop_win = w;   /* pinned: nobody unmaps it under us */
	mt_unlock_plain();
	madvise(base, (size_t)(to - from), MADV_DONTNEED);
	mt_lock_plain();
	mt_pop.pop_win = MT_NO_WINDOW;
	if (!mt_file.have_file || mt_chunks.next_off >= ((uint64_t)w + 1) << mt_wnd.win_shift)
		mt_window_maybe_unmap(w);
}

/* The thread's descriptors in a table of its own: what it opens (/proc, the trace to extend it)
   would otherwise take the lowest free numbers from under the program's open().  The copy
   unshare makes of the program's is closed at once, so that no pipe end or file the program
   closes stays open here; closing in another table drops none of the program's POSIX locks
   (their owner is the table).  Without close_range (Linux < 5.9) it shares the table. */
static void own_descriptors(void)
{
#ifdef SYS_close_range
	if (mt_proc.main_exited)
		return;   /* it may be the last thread, whose exit(0) needs the program's */
	if (syscall(SYS_close_range, ~0U, ~0U, 0) == 0 && unshare(CLONE_FILES) == 0) {
		syscall(SYS_close_range, 0U, ~0U, 0);
		mt_tls.own_files = 1;
	}
#endif
}

static void *pop_main(void *unused)
{
	(void)unused;
	mt_tls.busy = 1;   /* whatever this thread allocates is not the program's */
	__atomic_store_n(&pop_tid, (pid_t)gettid(), __ATOMIC_RELEASE);
	own_descriptors();
	mt_real_prctl(PR_SET_NAME, (unsigned long)"mtrace-populate", 0, 0, 0);   /* (no file) */
	mt_thread_clock_check(&mt_tls.clk);   /* (created with the TSC off if its creator was) */
	mt_lock_plain();
	for (;;) {
		uint64_t from, to;
		uint32_t w;
		if (mt_pop.pop_state == MT_POP_QUITTING)
			break;
		if (n_unmap) {
			n_unmap--;
			char *base = unmap_queue[n_unmap].base;
			size_t size = unmap_queue[n_unmap].size;
			mt_unlock_plain();
			mt_libc.munmap(base, size);
			mt_lock_plain();
			continue;
		}
		if (next_drop(&from, &to, &w, MT_DROP_LAG)) {
			drop_pages(from, to, w);
			continue;
		}
		if (next_sweep(&from, &to, &w)) {
			drop_pages(from, to, w);
			continue;
		}
		if (!next_range(&from, &to, &w)) {
			uint64_t wake = mt_thread_ns_libc(&mt_tls.clk) + MT_POP_IDLE_NS;
			struct timespec until = { (time_t)(wake / 1000000000u),
						  (long)(wake % 1000000000u) };
			mt_pop.pop_waiting = 1;
			if (mt_lock_timedwait(&pop_cond, &until) == ETIMEDOUT &&
			    mt_pop.pop_waiting && n_unmap == 0 &&
			    mt_pop.pop_state != MT_POP_QUITTING && mt_procstat_alone()) {
				/* the program's threads have all ended: end too, the last thread,
				   and glibc calls exit(0), whose handlers are the program's
				   (traced) */
				break;
			}
			continue;
		}
		uint32_t file_id = mt_file.file_id;
		char *base = mt_win[w] + (from & (MT_WINDOW_SIZE - 1));
		mt_pop.pop_win = w;
		mt_unlock_plain();

		int r = madvise(base, (size_t)(to - from), MADV_POPULATE_WRITE);

		mt_lock_plain();
		mt_pop.pop_win = MT_NO_WINDOW;
		if (r != 0 && errno != EINTR && errno != EAGAIN && file_id == mt_file.file_id &&
		    mt_run.active) {
			/* an old kernel (EINVAL) or something we do not understand: the writers go
			   on populating their own chunks, as without this thread.  (An error after
			   a stop, which cut the file short, is no reason to give up.) */
			break;
		}
		if (r == 0 && file_id == mt_file.file_id && to > mt_pop.pop_end)
			mt_pop.pop_end = to;
		/* the writers left it while we were in it, or the trace ended (a window we had
		   pinned, ahead of them, is not unmapped at the end: it falls to us) */
		if (file_id == mt_file.file_id &&
		    (!mt_file.have_file ||
		     mt_chunks.next_off >= ((uint64_t)w + 1) << mt_wnd.win_shift))
			mt_window_maybe_unmap(w);
	}
	mt_pop.pop_state = pop_resumable ? MT_POP_NONE : MT_POP_OFF;
	pop_resumable = 0;
	mt_pop.pop_waiting = 0;
	while (n_unmap) {   /* (the writers unmap their windows themselves from now on) */
		n_unmap--;
		mt_libc.munmap(unmap_queue[n_unmap].base, unmap_queue[n_unmap].size);
	}
	mt_unlock_plain();
	mt_tls.busy = 0;
	return NULL;
}

/* Before a sandbox forbids what the thread does: have it end, and wait until it has (joined:
   even its last system calls are done).  Not under lock. */
void mt_populate_quit(void)
{
	MT_ASSERT_UNLOCKED();
	struct mt_lock_state ls;
	mt_lock(&ls);
	while (mt_pop.pop_state == MT_POP_STARTING) {   /* another thread is creating it */
		mt_unlock(&ls);
		sched_yield();
		mt_lock(&ls);
	}
	int joinable = pop_joinable;
	pop_joinable = 0;
	pop_resumable = 0;
	mt_pop.pop_state = mt_pop.pop_state == MT_POP_RUNNING ? MT_POP_QUITTING : MT_POP_OFF;
	pthread_cond_signal(&pop_cond);
	mt_unlock(&ls);
	if (joinable)
		pthread_join(pop_thread, NULL);   /* (cancellation is off: see mt_lock) */
}

/* Before fork: the thread ends, and is gone from the process's threads when fork returns, so
   that a program counting its threads right after (python 3.12 warns when it finds more than
   one, and -W error fails) counts its own.  It starts again once the trace has grown
   MT_POP_AFTER past the fork.  Not joined here, as fork may be called from a signal handler
   that interrupted glibc's bookkeeping of threads, whose lock pthread_join takes: the next start
   joins it.  One that is being started by this very thread (interrupted) is left alone.  Not
   under lock. */
void mt_populate_pause(void)
{
	MT_ASSERT_UNLOCKED();
	int state = __atomic_load_n(&mt_pop.pop_state, __ATOMIC_RELAXED);
	if (state == MT_POP_NONE || state == MT_POP_OFF)
		return;
	struct mt_lock_state ls;
	mt_lock(&ls);
	for (int i = 0; i < 10000 && mt_pop.pop_state == MT_POP_STARTING &&
	     pop_starter != (pid_t)mt_tls.tid; i++) {   /* another thread is creating it */
		mt_unlock(&ls);
		sched_yield();
		mt_lock(&ls);
	}
	if (mt_pop.pop_state == MT_POP_RUNNING) {
		mt_pop.pop_state = MT_POP_QUITTING;
		pop_resumable = 1;
		resume_file = mt_file.file_id;
		resume_at = mt_chunks.next_off + MT_POP_AFTER;
		pthread_cond_signal(&pop_cond);
	}
	int ending = mt_pop.pop_state == MT_POP_QUITTING;
	mt_unlock(&ls);
	/* pthread_join returns once the thread has left user space, a moment before the kernel
	   takes it out of the process's count of threads: until then tgkill finds it */
	pid_t tid = 0;
	int e = errno;
	for (int i = 0; ending && i < 100000; i++) {
		if (tid == 0)
			tid = __atomic_load_n(&pop_tid, __ATOMIC_ACQUIRE);
		if (tid != 0 && mt_libc.syscall(SYS_tgkill, (long)getpid(), (long)tid, 0L) != 0)
			break;
		sched_yield();
	}
	errno = e;
}

/* A program thread ends after its main thread has (pthread_exit): it may be the last, and the
   last thread runs exit(0) and the program's atexit handlers, which must not be ours, with
   our small stack, blocked signals and descriptor table.  So ours ends first. */
void mt_populate_quit_running(void)
{
	MT_ASSERT_UNLOCKED();
	if (__atomic_load_n(&mt_pop.pop_state, __ATOMIC_RELAXED) == MT_POP_RUNNING)
		mt_populate_quit();
}

/* The thread's deadlines are on CLOCK_MONOTONIC: the wall clock may jump. */
static void init_cond(void)
{
	pthread_condattr_t a;
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&pop_cond, &a);
	pthread_condattr_destroy(&a);
}

/* Not under lock; called once, by the writer that saw MT_POP_STARTING set. */
void mt_populate_start(void)
{
	MT_ASSERT_UNLOCKED();
	int ok = 0;
	struct mt_lock_state ls;
	mt_lock(&ls);
	int joinable = pop_joinable;   /* one ended for a fork */
	pop_joinable = 0;
	pop_tid = 0;
	mt_unlock(&ls);
	if (joinable)
		pthread_join(pop_thread, NULL);
	init_cond();
	page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	/* a sandbox's filter may kill a process that creates a thread */
	if (mt_procstat_seccomp_allows()) {
		sigset_t all, old;
		sigfillset(&all);
		pthread_attr_t attr;
		pthread_t th;
		if (pthread_attr_init(&attr) == 0) {
			/* joinable, so that a sandbox can wait for it to be gone (it is never
			   joined otherwise: it ends with the process, or alone as the last
			   thread) */
			pthread_attr_setstacksize(&attr, 64 * 1024);
			/* the ordinary policy, whatever the creating thread's: a real-time policy
			   inherited would let our kernel work preempt the program's threads */
			struct sched_param sp = { .sched_priority = 0 };
			pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
			pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
			pthread_attr_setschedparam(&attr, &sp);
			/* the new thread inherits this mask: no signal of the program is
			   delivered there */
			pthread_sigmask(SIG_SETMASK, &all, &old);
			/* what glibc allocates for the thread (its TLS vector) comes from our
			   bootstrap arena, not the program's heap, whose layout then stays what it
			   is untraced */
			uint8_t busy = mt_tls.busy;
			mt_tls.busy = MT_BUSY_OWN;
			ok = pthread_create(&th, &attr, pop_main, NULL) == 0;
			if (ok)
				pop_thread = th, pop_joinable = 1;
			mt_tls.busy = busy;
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			pthread_attr_destroy(&attr);
		}
	}
	mt_lock(&ls);
	if (mt_pop.pop_state == MT_POP_STARTING)
		mt_pop.pop_state = ok ? MT_POP_RUNNING : MT_POP_OFF;
	mt_unlock(&ls);
}

/* The child of fork has only the forking thread, and copies of windows the parent's thread had
   yet to unmap. */
/* Nothing of the file populated or dropped. */
static void forget_file(void)
{
	mt_pop.pop_end = 0;
	drop_end = sweep_pos = sweep_to = sweep_next = 0;
}

void mt_populate_fork_child(void)
{
	init_cond();
	while (n_unmap) {
		n_unmap--;
		mt_libc.munmap(unmap_queue[n_unmap].base, unmap_queue[n_unmap].size);
	}
	pop_joinable = 0;
	pop_tid = 0;
	pop_resumable = 0;
	resume_file = 0;
	if (mt_pop.pop_state != MT_POP_OFF || mt_sandbox.sandboxed)
		mt_pop.pop_state = mt_sandbox.sandboxed ? MT_POP_OFF : MT_POP_NONE;
	mt_pop.pop_waiting = 0;
	mt_pop.pop_win = MT_NO_WINDOW;
	for (int i = 0; i < MT_DROP_PINS; i++)
		mt_pop.drop_win[i] = MT_NO_WINDOW;
	forget_file();
}

/* Under lock, as a file is opened (mt_on_file_opened): nothing of it populated or dropped. */
void mt_populate_file_opened(void)
{
	MT_ASSERT_LOCKED();
	forget_file();
}

/* At initialisation: MTRACE_CTL_NOTHREAD, no populating thread at all. */
void mt_populate_disable(void)
{
	mt_pop.pop_state = MT_POP_OFF;
}
