/* sandbox.c - what a program does to its process that may cut the tracer off, seen before it
 * takes effect.
 *
 *   - a seccomp filter or strict mode: a sandbox may kill the process at the tracer's next
 *     system call, so the trace is finished before the filter is installed, the populating
 *     thread ended, and the tracer makes no system call afterwards;
 *   - the time-stamp counter switched off for a thread (PR_SET_TSC): reading it would raise
 *     SIGSEGV, so that thread's clock is read from the kernel (clock.h);
 *   - unshare and setns, which the kernel grants some of to a single-threaded process only;
 *   - chroot and changes of user or groups (set*id, setgroups; glibc makes them apply to every
 *     thread): the trace file, its directory and the manifest may be out of reach by name
 *     afterwards, so their descriptors are kept from before the call (fds.c).
 * The same calls made through syscall() are seen too.  The wrappers pass every call on with its
 * arguments, result and errno unchanged.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <sched.h>
#include <stdarg.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/seccomp.h>
#include "mt_int.h"

struct mt_sandbox_state mt_sandbox;

/* ---------------------------------------------------------------------------------------------
   Sandboxes
   ------------------------------------------------------------------------------------------- */

/* Before a seccomp filter or strict mode takes effect: finish the trace (its header says why
   the records end), end the populating thread and wait until it is gone, and from now on make
   no system call (mt_sandbox.sandboxed).  Once only, whatever the call's outcome. */
static void sandbox_coming(void)
{
	if (__atomic_load_n(&mt_sandbox.sandboxed, __ATOMIC_ACQUIRE))
		return;
	mt_run_init_once();
	uint8_t busy = mt_tls.busy;
	mt_tls.busy = 1;
	int cancel;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	mt_populate_quit();
	struct mt_lock_state ls;
	mt_lock(&ls);
	if (mt_file.have_file && !mt_file.failed) {
		mt_file_fail(MTRACE_STOP_SANDBOX, NULL, 0);   /* no failure: nothing to say */
		mt_file_finish(&mt_tls);
	}
	mt_run_set_active(0);
	mt_run_new_gen();
	mt_unlock(&ls);
	__atomic_store_n(&mt_sandbox.sandboxed, 1, __ATOMIC_RELEASE);
	pthread_setcancelstate(cancel, NULL);
	mt_tls.busy = busy;
}

/* ---------------------------------------------------------------------------------------------
   The time-stamp counter
   ------------------------------------------------------------------------------------------- */

/* A thread's first slow path: was it created with the TSC off (the setting is inherited)? */
void mt_thread_clock_check(struct mt_thread_clock *c)
{
	c->checked = 1;
#if defined(__x86_64__) || defined(__i386__)
	int v = 0;
	if (mt_clock_is_tsc(mt_clock_kind) && mt_libc.prctl &&
	    mt_libc.prctl(PR_GET_TSC, (unsigned long)&v, 0, 0, 0) == 0)
		c->notsc = v == PR_TSC_SIGSEGV;
#endif
}

/* ---------------------------------------------------------------------------------------------
   prctl, seccomp, syscall
   ------------------------------------------------------------------------------------------- */

/* A filter given as NULL is a program's probe for seccomp (the kernel answers EFAULT): no
   sandbox comes, and the trace goes on. */
static void before_prctl(int option, unsigned long a2, unsigned long a3)
{
	if (option == PR_SET_SECCOMP && (a2 != SECCOMP_MODE_FILTER || a3 != 0))
		sandbox_coming();
}

static void after_prctl(int option, unsigned long a2, int r)
{
	if (option == PR_SET_TSC && r == 0)
		mt_tls.clk.notsc = a2 == PR_TSC_SIGSEGV, mt_tls.clk.checked = 1;
}

MT_API int prctl(int option, ...)
{
	va_list ap;
	va_start(ap, option);
	unsigned long a2 = va_arg(ap, unsigned long), a3 = va_arg(ap, unsigned long);
	unsigned long a4 = va_arg(ap, unsigned long), a5 = va_arg(ap, unsigned long);
	va_end(ap);
	mt_libc_ready();
	before_prctl(option, a2, a3);
	int r = mt_libc.prctl(option, a2, a3, a4, a5);
	int e = errno;
	after_prctl(option, a2, r);
	errno = e;
	return r;
}

MT_API int seccomp(unsigned int operation, unsigned int flags, void *args)
{
	mt_libc_ready();
	if (operation == SECCOMP_SET_MODE_STRICT || (operation == SECCOMP_SET_MODE_FILTER && args))
		sandbox_coming();
	return (int)mt_libc.syscall(SYS_seccomp, operation, flags, args);
}

/* ---------------------------------------------------------------------------------------------
   unshare, setns: what the kernel grants a single-threaded process only
   ------------------------------------------------------------------------------------------- */

/* A new user namespace (and unsharing the address space or the signal handlers) is refused to
   a process of several threads: a program that has one must not have two because of us.  The
   populating thread ends for good; 1 if it was there. */
static int solo_for(long flags)
{
	if (!(flags & (CLONE_NEWUSER | CLONE_VM | CLONE_SIGHAND | CLONE_THREAD)) ||
	    mt_sandbox.sandboxed)
		return 0;
	int was = __atomic_load_n(&mt_pop.pop_state, __ATOMIC_RELAXED) != MT_POP_NONE;
	mt_populate_quit();
	return was;
}

/* The thread joined may still be leaving the process for an instant after pthread_join: the
   kernel's EINVAL then, for a short while, means "not yet".  Asked again by system call number
   (libc's unshare and setns are nothing more). */
static long retry_solo(long r, int stopped, long number, long a, long b)
{
	if (r == 0 || errno != EINVAL || !stopped)
		return r;
	int cancel;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);   /* (nanosleep is a point) */
	for (int i = 0; r != 0 && errno == EINVAL && i < 200; i++) {
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
		r = mt_libc.syscall(number, a, b);
	}
	int e = errno;
	pthread_setcancelstate(cancel, NULL);
	errno = e;
	return r;
}

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x80
#endif

/* Joining a time namespace puts its page where the vDSO's data was: the coarse clock is read
   through the vDSO's function until its word is seen to agree again (clock.c) */
static void time_ns_for(long type)
{
	if (type == 0 || (type & CLONE_NEWTIME))
		mt_clock_coarse_recheck();
}

MT_API int unshare(int flags)
{
	mt_libc_ready();
	int stopped = solo_for(flags);
	return (int)retry_solo(mt_libc.unshare(flags), stopped, SYS_unshare, flags, 0);
}

/* (type 0 lets the descriptor say which namespace: perhaps a user namespace) */
MT_API int setns(int fd, int type)
{
	mt_libc_ready();
	int stopped = solo_for(type == 0 ? CLONE_NEWUSER : type);
	int r = (int)retry_solo(mt_libc.setns(fd, type), stopped, SYS_setns, fd, type);
	time_ns_for(type);
	return r;
}

/* ---------------------------------------------------------------------------------------------
   chroot, changes of user or groups: the trace file may be out of reach by name after them
   ------------------------------------------------------------------------------------------- */

/* The wrapper of name: the descriptors kept first (ids: a change of user or groups, else of
   the root directory), then the call to the next definition, its result and errno the
   caller's. */
#define KEEP_ACCESS_BEFORE(name, id, ids, params, args)                              \
	MT_API int name params                                                        \
	{                                                                             \
		static int (*real) params;                                            \
		mt_libc_ready();                                                     \
		if (real == NULL)                                                     \
			real = (int (*) params)mt_next(MT_NEXT_##id);                 \
		mt_fds_keep_access(ids);                                                  \
		if (real == NULL) {                                                   \
			errno = ENOSYS;                                               \
			return -1;                                                    \
		}                                                                     \
		return real args;                                                     \
	}
KEEP_ACCESS_BEFORE(chroot, CHROOT, 0, (const char *path), (path))
KEEP_ACCESS_BEFORE(setuid, SETUID, 1, (uid_t u), (u))
KEEP_ACCESS_BEFORE(setgid, SETGID, 1, (gid_t g), (g))
KEEP_ACCESS_BEFORE(seteuid, SETEUID, 1, (uid_t u), (u))
KEEP_ACCESS_BEFORE(setegid, SETEGID, 1, (gid_t g), (g))
KEEP_ACCESS_BEFORE(setreuid, SETREUID, 1, (uid_t r, uid_t e), (r, e))
KEEP_ACCESS_BEFORE(setregid, SETREGID, 1, (gid_t r, gid_t e), (r, e))
KEEP_ACCESS_BEFORE(setresuid, SETRESUID, 1, (uid_t r, uid_t e, uid_t s), (r, e, s))
KEEP_ACCESS_BEFORE(setresgid, SETRESGID, 1, (gid_t r, gid_t e, gid_t s), (r, e, s))
KEEP_ACCESS_BEFORE(setgroups, SETGROUPS, 1, (size_t n, const gid_t *list), (n, list))
KEEP_ACCESS_BEFORE(setfsuid, SETFSUID, 1, (uid_t u), (u))
KEEP_ACCESS_BEFORE(setfsgid, SETFSGID, 1, (gid_t g), (g))

/* The same calls made by number: 1 a change of user or groups, 0 of the root, -1 neither. */
static int access_change(long number)
{
	static const long ids[] = {
		SYS_setuid, SYS_setgid, SYS_setreuid, SYS_setregid, SYS_setresuid, SYS_setresgid,
		SYS_setgroups, SYS_setfsuid, SYS_setfsgid,
#ifdef SYS_setuid32
		SYS_setuid32, SYS_setgid32, SYS_setreuid32, SYS_setregid32, SYS_setresuid32,
		SYS_setresgid32, SYS_setgroups32, SYS_setfsuid32, SYS_setfsgid32,
#endif
	};
	if (number == SYS_chroot)
		return 0;
	for (unsigned i = 0; i < sizeof ids / sizeof ids[0]; i++)
		if (number == ids[i])
			return 1;
	return -1;
}

/* syscall() reads six arguments whatever the call takes, as libc's own does. */
MT_API long syscall(long number, ...)
{
	va_list ap;
	va_start(ap, number);
	long a[6];
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	mt_libc_ready();
	if (number == SYS_seccomp && ((unsigned long)a[0] == SECCOMP_SET_MODE_STRICT ||
				      ((unsigned long)a[0] == SECCOMP_SET_MODE_FILTER && a[2])))
		sandbox_coming();
	if (number == SYS_prctl)
		before_prctl((int)a[0], (unsigned long)a[1], (unsigned long)a[2]);
	int access = access_change(number);
	if (access >= 0)
		mt_fds_keep_access(access);
	int stopped = number == SYS_unshare ? solo_for(a[0]) :
		      number == SYS_setns ? solo_for(a[1] == 0 ? CLONE_NEWUSER : a[1]) : 0;
	long r = mt_libc.syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (stopped)
		r = retry_solo(r, stopped, number, a[0], a[1]);
	if (number == SYS_setns)
		time_ns_for(a[1]);
	if (number == SYS_prctl) {
		int e = errno;
		after_prctl((int)a[0], (unsigned long)a[1], (int)r);
		errno = e;
	}
	return r;
}
