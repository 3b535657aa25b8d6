/* remote.c - a dormant tracer switched on and off from outside (include/mtrace-control.h).
 *
 * With MTRACE_CTL_START=0 the preload loads, resolves the allocator and records nothing: no
 * file, no thread.  mtracectl --start PID writes a request into mtrace_control; the process's
 * next call that is not recorded (every call, while dormant) sees it by one compare, and the
 * thread that makes it opens a trace file of its own (BASE.<pid>.w<N>, N the window's number,
 * so that one process's windows sort in time) whose header says the trace begins midway.
 * While recording, a request is looked for where the tracer goes anyway: a thread's next chunk
 * and the memory samples (every 10 ms of calls).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "mt_int.h"

struct mt_remote_state mt_remote;

MT_API struct mtrace_control mtrace_control = {
	.magic = MTRACE_CONTROL_MAGIC,
	.size = sizeof(struct mtrace_control),
};

/* Under lock: a trace file for a window switched on from outside. */
static int start_window(const char *base)
{
	mt_remote.window = mtrace_control.windows + 1;
	mt_remote.start_threads = mt_procstat_threads();
	int r = mt_run_open_base(base[0] ? base : NULL);
	int e = errno;
	mt_remote.window = 0;
	if (r < 0)
		return e ? e : EIO;
	mtrace_control.windows++;
	mt_run_resume();
	return 0;
}

void mt_control_act(void)
{
	MT_ASSERT_UNLOCKED();
	int e = errno;   /* (reached from free(), which must leave errno alone) */
	uint8_t busy = mt_tls.busy;
	mt_tls.busy = 1;   /* what this allocates is not the program's */
	mt_run_init_once();
	struct mt_lock_state ls;
	mt_lock(&ls);
	uint32_t req = __atomic_load_n(&mtrace_control.request, __ATOMIC_ACQUIRE);
	/* (a vfork child shares the block, and a child not set up yet has the parent's copy: a
	   request is for the process it was sent to) */
	if (req != mt_remote.ctl_seen && !mt_new_process_due() && getpid() == mt_file.pid) {
		mt_remote.ctl_seen = req;   /* (once, even if refused: no slow path each call) */
		uint32_t cmd = mtrace_control.cmd;
		int err = 0;
		mtrace_control.base[MTRACE_CONTROL_PATH_MAX - 1] = 0;
		if (mtrace_control.check != mtrace_control_check(req, cmd, mtrace_control.base))
			err = EINVAL;
		else if (mt_sandbox.sandboxed)
			err = EPERM;   /* no system call of ours is allowed any more */
		else if (cmd == MTRACE_CMD_START)
			err = mt_file.have_file ? EALREADY : start_window(mtrace_control.base);
		else if (cmd == MTRACE_CMD_STOP) {
			if (mt_file.have_file)
				mt_file_finish(&mt_tls);
			else
				err = EALREADY;
		} else if (cmd == MTRACE_CMD_STOP_BACKLOG) {
			if (mt_file.have_file && !mt_file.failed)
				mt_file_fail(MTRACE_STOP_BACKLOG, "what the sender has not delivered "
					     "passed its bound (mtracectl --backlog)", 0);
			else
				err = EALREADY;
		} else
			err = EINVAL;
		mtrace_control.error = err;
		mtrace_control.state =
			mt_hot->active ? MTRACE_STATE_RECORDING : MTRACE_STATE_DORMANT;
		size_t n = strlen(mt_file.path);
		if (n >= sizeof mtrace_control.file)
			n = sizeof mtrace_control.file - 1;
		memcpy(mtrace_control.file, mt_file.path, n);
		mtrace_control.file[n] = 0;
		__atomic_store_n(&mtrace_control.done, req, __ATOMIC_RELEASE);
	}
	mt_unlock(&ls);
	mt_tls.busy = busy;
	errno = e;
}

/* In a new process: a request the parent had not carried out yet was not sent to it. */
void mt_control_fork_child(void)
{
	mt_remote.ctl_seen = __atomic_load_n(&mtrace_control.request, __ATOMIC_ACQUIRE);
	mtrace_control.done = mt_remote.ctl_seen;
	mtrace_control.windows = 0;   /* (the child's own, as seen from outside) */
}

/* In a new process, its file opened or not: what is seen from outside (no file name until a
   request asks for it). */
void mt_control_fork_child_done(void)
{
	mtrace_control.state = mt_hot->active ? MTRACE_STATE_RECORDING : MTRACE_STATE_DORMANT;
	mtrace_control.file[0] = 0;
}

/* The preload's constructor, with MTRACE_CTL_START=0: everything but a trace file. */
void mtrace_init_dormant(void)
{
	mt_run_init_once();
	mt_ctl_hook(1);   /* (the program's settings are noted while dormant too) */
}
