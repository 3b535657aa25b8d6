/* process.c - new processes, and processes that end without exit().
 *
 * A child must never write into its parent's file, which it shares through the MAP_SHARED
 * windows.  fork() runs our atfork handlers: the prepare handler takes the lock (so no chunk
 * hand-out is half done) with the forking thread's guard set; the child handler drops every
 * window and chunk the child inherited and opens a file of its own whose header names the
 * parent.  _Fork(), syscall(SYS_fork) and clone() run no handler: the child finds the page of
 * mt_hot wiped (MADV_WIPEONFORK), so tracing is off for it from its first instruction, and its
 * first call does what the child handler would have done.  A parent thread that was in the
 * middle of a record finishes it in the parent, where its chunk still belongs.
 *
 * _exit and _Exit (dash ends every process so; so do python's multiprocessing workers) finish
 * the trace as exit() does.  A main thread that ends by pthread_exit leaves the process to its
 * last thread, which must be one of the program's (see mt_populate_quit_running).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "mt_int.h"

struct mt_proc_state mt_proc;

/* ---------------------------------------------------------------------------------------------
   A new process
   ------------------------------------------------------------------------------------------- */

/* The parent's windows in a child are covered with private memory, not unmapped: the thread
   that forked may have done so from a signal handler that interrupted the tracer, which then
   goes on to write a record or a chunk's header it had in hand: into that memory, where the
   parent's file never sees it.  They are unmapped when this thread next takes a chunk outside
   any other call of ours (mt_retired_unmap), when no such record is left. */
#define MT_RETIRED_MAX 16
static struct { char *base; size_t size; } retired[MT_RETIRED_MAX];
static int n_retired;

static void retire_window(char *base, size_t size)
{
	if (n_retired < MT_RETIRED_MAX &&
	    mt_libc.mmap(base, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) == base) {
		retired[n_retired].base = base;
		retired[n_retired++].size = size;
		return;
	}
	mt_libc.munmap(base, size);
}

/* Under lock, from take_chunk.  A call nested in a traced one (the allocator's mmap) may be
   inside the interrupted record's call: not then. */
void mt_retired_unmap(const struct mt_thread *t)
{
	MT_ASSERT_LOCKED();
	if (MT_LIKELY(n_retired == 0) || t->busy == MT_BUSY_NESTED)
		return;
	while (n_retired) {
		n_retired--;
		mt_libc.munmap(retired[n_retired].base, retired[n_retired].size);
	}
}

/* In the child, with one thread (the one that forked), whatever state the others left behind:
   the lock may be held by a thread that does not exist here.  The thread's chunk stays where
   it is, stale (a new generation): see retire_window. */
void mt_new_process(void)
{
	int e = errno;   /* (reached from free(), which must leave errno alone) */
	mt_lock_fork_child();
	mt_populate_fork_child();
	mt_ctl_fork_child();
	mt_objects_fork_child();
	mt_walk_fork_child();
	struct mt_thread *t = &mt_tls;
	mt_clock_fork_child(&t->clk);
	t->tid = (uint32_t)gettid();   /* (now: the slow path a handler interrupted has read it) */
	t->file_id = 0;
	t->start_due = 0;
	mt_window_hand_over(retire_window);
	mt_file_header_unmap();
	mt_fds_fork_child();
	int had_file = mt_file.have_file && !mt_file.failed;
	int was_active = mt_run.active;
	mt_run_fork_child();
	mt_file_fork_child();
	mt_proc.main_exited = 0;   /* (the forking thread is the child's main thread) */
	mt_control_fork_child();
	if (had_file) {
		struct mt_lock_state ls;
		mt_lock(&ls);
		if (mt_file_open(mt_names.base, getppid()) == 0)
			mt_run_set_active(was_active);
		mt_unlock(&ls);
	}
	mt_control_fork_child_done();
	errno = e;
}

/* ---------------------------------------------------------------------------------------------
   fork()
   ------------------------------------------------------------------------------------------- */

static struct mt_lock_state fork_ls;   /* busy: the forking thread's before fork_prepare */

/* The lock is held from here to the parent or child handler: no signal handler may run in
   between (one that forks would wait for the lock forever).  Nothing in between goes to the
   parent's file; the prepare handlers that run after ours (registered before it) may map and
   allocate: mt_tls.locked keeps even their mapping calls from waiting for the lock.  The
   state is saved once the lock is held: a handler that interrupts before that and forks
   runs these handlers too.  The populating thread ends first (mt_populate_pause). */
static void fork_prepare(void)
{
	uint8_t busy = mt_tls.busy;
	mt_tls.busy = 1;
	mt_populate_pause();
	struct mt_lock_state ls;
	mt_lock(&ls);
	fork_ls = ls;
	fork_ls.busy = busy;
}

static void fork_parent(void)
{
	struct mt_lock_state ls = fork_ls;
	mt_unlock(&ls);
	mt_tls.busy = ls.busy;
}

static void fork_child(void)
{
	struct mt_lock_state ls = fork_ls;
	mt_new_process();
	if (ls.masked)
		pthread_sigmask(SIG_SETMASK, &ls.old, NULL);
	pthread_setcancelstate(ls.cancel, NULL);
	mt_tls.busy = ls.busy;
}

void mt_fork_init(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* ---------------------------------------------------------------------------------------------
   _exit, _Exit
   ------------------------------------------------------------------------------------------- */

/* Finish the trace as exit() would, unless this is not the process it belongs to: a vfork
   child shares the parent's memory, and must leave the parent's trace alone.  The lock is never
   let go: the signals it blocks stay blocked through the real exit, as a signal that came
   meanwhile would be delivered at the unlock and end with it a process that untraced would
   have exited (and no other thread starts anything of ours in between). */
static void finish_at_exit(void)
{
	/* (t->locked: a fault handler that interrupted the tracer holding its lock exits: waiting
	   for the lock would never end; the trace stays unfinished, as a killed process's) */
	if (!mt_file.have_file || mt_sandbox.sandboxed || mt_new_process_due() ||
	    getpid() != mt_file.pid || mt_tls.locked)
		return;
	struct mt_lock_state ls;
	mt_tls.busy = 1;
	mt_lock(&ls);
	mt_file_finish(&mt_tls);
}

/* libc's _exit, found first if the tracer has not needed it yet (a program linked with
   -lmtrace whose fork child fails its exec before any other call into us) */
void mt_exit_now(int status)
{
	mt_libc_ready();
	if (mt_libc.exit != NULL)
		mt_libc.exit(status);
	abort();   /* (no _exit in the process at all) */
}

MT_API void _exit(int status)
{
	finish_at_exit();
	mt_exit_now(status);
}

MT_API void _Exit(int status)
{
	finish_at_exit();
	mt_exit_now(status);
}

/* ---------------------------------------------------------------------------------------------
   pthread_exit of the main thread
   ------------------------------------------------------------------------------------------- */

MT_API void pthread_exit(void *value)
{
	if (syscall(SYS_gettid) == getpid())   /* (a fork child's main thread is the forking one) */
		__atomic_store_n(&mt_proc.main_exited, 1, __ATOMIC_RELAXED);
	mt_libc_ready();
	mt_libc.pthread_exit(value);
	__builtin_unreachable();
}

