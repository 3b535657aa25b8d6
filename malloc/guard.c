/* guard.c - what a program does to its process that the tracer must see before it takes effect.
 *
 *   - a seccomp filter or strict mode: a sandbox may kill the process at the tracer's next
 *     system call, so the trace is finished before the filter is installed, the populating
 *     thread ended, and the tracer makes no system call afterwards;
 *   - the time-stamp counter switched off for a thread (PR_SET_TSC): reading it would raise
 *     SIGSEGV, so that thread's clock is read from the kernel;
 *   - mlockall: the trace's pages are not the program's to lock;
 *   - munmap, mprotect, mmap or mremap over the trace's own windows (the wrappers are in
 *     mapping.c): the program's bug, but records must never be written into memory that is its
 *     own now, so tracing stops first;
 *   - chroot and changes of user or groups (set*id, setgroups; glibc makes them apply to every
 *     thread): the trace file, its directory and the manifest may be out of reach by name
 *     afterwards, so their descriptors are kept from before the call (fds.c).
 * The wrappers pass every call on with its arguments, result and errno unchanged.  Calls made
 * inside libc (glibc's malloc mapping memory) never come through here; the tracer's own calls
 * go to libc's functions directly (mt_libc).
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

struct mt_guard_state mt_guard;

struct mt_libc mt_libc;

static int (*real_prctl)(int, unsigned long, unsigned long, unsigned long, unsigned long);
static int (*real_mlockall)(int);
static int (*real_unshare)(int);
static int (*real_setns)(int, int);
static int (*real_munlockall)(void);

/* Once, at initialisation (and by any wrapper called before it). */
void mt_guard_init(void)
{
	if (mt_libc.syscall)
		return;
	mt_mapping_init();
	mt_libc.mmap = mt_next(MT_NEXT_MMAP);
	mt_libc.munmap = mt_next(MT_NEXT_MUNMAP);
	mt_libc.mprotect = mt_next(MT_NEXT_MPROTECT);
	mt_libc.exit = mt_next(MT_NEXT_EXIT);
	mt_libc.pthread_exit = mt_next(MT_NEXT_PTHREAD_EXIT);
	real_prctl = mt_next(MT_NEXT_PRCTL);
	real_mlockall = mt_next(MT_NEXT_MLOCKALL);
	real_unshare = mt_next(MT_NEXT_UNSHARE);
	real_setns = mt_next(MT_NEXT_SETNS);
	real_munlockall = mt_next(MT_NEXT_MUNLOCKALL);
	__atomic_store_n(&mt_libc.syscall, (long (*)(long, ...))mt_next(MT_NEXT_SYSCALL),
			 __ATOMIC_RELEASE);
}

void mt_guard_ready(void)
{
	if (MT_UNLIKELY(__atomic_load_n(&mt_libc.syscall, __ATOMIC_ACQUIRE) == NULL))
		mt_guard_init();
}

/* prctl for the tracer's own questions and settings, past the wrapper below */
int mt_real_prctl(int option, unsigned long a2, unsigned long a3, unsigned long a4,
		  unsigned long a5)
{
	mt_guard_ready();
	return real_prctl ? real_prctl(option, a2, a3, a4, a5) : -1;
}

/* ---------------------------------------------------------------------------------------------
   Sandboxes
   ------------------------------------------------------------------------------------------- */

/* Before a seccomp filter or strict mode takes effect: finish the trace (its header says why
   the records end), end the populating thread and wait until it is gone, and from now on make
   no system call (mt_guard.sandboxed).  Once only, whatever the call's outcome. */
static void sandbox_coming(void)
{
	if (__atomic_load_n(&mt_guard.sandboxed, __ATOMIC_ACQUIRE))
		return;
	mt_init_once();
	uint8_t busy = mt_tls.busy;
	mt_tls.busy = 1;
	int cancel;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	mt_populate_quit();
	struct mt_lock_state ls;
	mt_lock(&ls);
	if (mt_file.have_file && !mt_file.failed) {
		mt_fail(MTRACE_STOP_SANDBOX, NULL, 0);   /* no failure: nothing to say */
		mt_file_finish(&mt_tls);
	}
	mt_set_active(0);
	mt_new_gen();
	mt_unlock(&ls);
	__atomic_store_n(&mt_guard.sandboxed, 1, __ATOMIC_RELEASE);
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
	if (mt_clock_kind == MTRACE_CLOCK_TSC && real_prctl &&
	    real_prctl(PR_GET_TSC, (unsigned long)&v, 0, 0, 0) == 0)
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
	mt_guard_ready();
	before_prctl(option, a2, a3);
	int r = real_prctl(option, a2, a3, a4, a5);
	int e = errno;
	after_prctl(option, a2, r);
	errno = e;
	return r;
}

MT_API int seccomp(unsigned int operation, unsigned int flags, void *args)
{
	mt_guard_ready();
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
	    mt_guard.sandboxed)
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

MT_API int unshare(int flags)
{
	mt_guard_ready();
	int stopped = solo_for(flags);
	return (int)retry_solo(real_unshare(flags), stopped, SYS_unshare, flags, 0);
}

/* (type 0 lets the descriptor say which namespace: perhaps a user namespace) */
MT_API int setns(int fd, int type)
{
	mt_guard_ready();
	int stopped = solo_for(type == 0 ? CLONE_NEWUSER : type);
	return (int)retry_solo(real_setns(fd, type), stopped, SYS_setns, fd, type);
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
		mt_guard_ready();                                                     \
		if (real == NULL)                                                     \
			real = (int (*) params)mt_next(MT_NEXT_##id);                 \
		mt_keep_access(ids);                                                  \
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
	mt_guard_ready();
	if (number == SYS_seccomp && ((unsigned long)a[0] == SECCOMP_SET_MODE_STRICT ||
				      ((unsigned long)a[0] == SECCOMP_SET_MODE_FILTER && a[2])))
		sandbox_coming();
	if (number == SYS_prctl)
		before_prctl((int)a[0], (unsigned long)a[1], (unsigned long)a[2]);
	int access = access_change(number);
	if (access >= 0)
		mt_keep_access(access);
	int stopped = number == SYS_unshare ? solo_for(a[0]) :
		      number == SYS_setns ? solo_for(a[1] == 0 ? CLONE_NEWUSER : a[1]) : 0;
	long r = mt_libc.syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (stopped)
		r = retry_solo(r, stopped, number, a[0], a[1]);
	if (number == SYS_prctl) {
		int e = errno;
		after_prctl((int)a[0], (unsigned long)a[1], (int)r);
		errno = e;
	}
	return r;
}

/* ---------------------------------------------------------------------------------------------
   mlockall
   ------------------------------------------------------------------------------------------- */

/* Under lock: unlock the trace's pages (mlockall locked them with the program's). */
static void unlock_windows(void)
{
	for (uint32_t w = mt_wnd.win_lo; w < mt_wnd.win_hi; w++)
		if (mt_win[w] != NULL)
			munlock(mt_win[w], MT_WINDOW_SIZE);
	if (mt_file.hdr_map)
		munlock(mt_file.hdr_map, MTRACE_HEADER_SIZE);
}

/* The kernel refuses MCL_CURRENT to an unprivileged process whose address space exceeds
   RLIMIT_MEMLOCK, the trace's windows counted: one that would have succeeded untraced ends its
   trace there (the windows are then given back) and asks again. */
MT_API int mlockall(int flags)
{
	mt_guard_ready();
	int r = real_mlockall(flags);
	int e = errno;
	if (r != 0 && e == ENOMEM && (flags & MCL_CURRENT) && !mt_guard.sandboxed) {
		struct mt_lock_state ls;
		mt_lock(&ls);
		int had = mt_file.have_file && mt_wnd.win_hi > mt_wnd.win_lo;
		if (had) {
			mt_fail(MTRACE_STOP_MAP, "the program locks its memory (mlockall) beyond "
				"what RLIMIT_MEMLOCK allows with the trace's windows: the trace "
				"ends here", ENOMEM);
			mt_file_finish(&mt_tls);
		}
		mt_unlock(&ls);
		if (had) {
			/* the windows are unmapped by the populating thread: once it has ended,
			   they are all gone (and it has nothing left to do) */
			mt_populate_quit();
			r = real_mlockall(flags);
			e = errno;
		}
	}
	if (r == 0 && !mt_guard.sandboxed) {
		struct mt_lock_state ls;
		mt_lock(&ls);
		if (flags & MCL_FUTURE)
			mt_guard.mlock_future = 1;
		unlock_windows();
		mt_unlock(&ls);
	}
	errno = e;
	return r;
}

MT_API int munlockall(void)
{
	mt_guard_ready();
	int r = real_munlockall();
	if (r == 0)
		mt_guard.mlock_future = 0;
	return r;
}

/* ---------------------------------------------------------------------------------------------
   The trace's own windows
   ------------------------------------------------------------------------------------------- */

/* Does [addr, addr + len) meet a window of the trace?  Read without the lock, so it may miss
   a window being mapped this instant (the program cannot know of that one yet).  A few loads:
   the windows mapped now lie between win_live and win_hi. */
int mt_overlaps_trace(const void *addr, size_t len)
{
	if (!mt_file.have_file || len == 0)
		return 0;
	uintptr_t lo = (uintptr_t)addr, hi = lo + len;
	uintptr_t h = (uintptr_t)__atomic_load_n(&mt_file.hdr_map, __ATOMIC_RELAXED);
	if (h && lo < h + MTRACE_HEADER_SIZE && h < hi)
		return 1;
	uint32_t wlo = __atomic_load_n(&mt_wnd.win_live, __ATOMIC_RELAXED);
	uint32_t whi = __atomic_load_n(&mt_wnd.win_hi, __ATOMIC_RELAXED);
	uint64_t size = MT_WINDOW_SIZE;
	for (uint32_t w = wlo; w < whi && w < MT_MAX_WINDOWS; w++) {
		uintptr_t b = (uintptr_t)__atomic_load_n(&mt_win[w], __ATOMIC_RELAXED);
		if (b && lo < b + size && b < hi)
			return 1;
	}
	return 0;
}

/* The program is about to unmap, protect or map over a window: stop tracing (one warning, the
   header says why) and forget those windows, which are the program's from now on. */
void mt_trace_overlapped(const void *addr, size_t len, const char *what)
{
	uint8_t busy = mt_tls.busy;
	mt_tls.busy = 1;
	struct mt_lock_state ls;
	mt_lock(&ls);
	if (mt_overlaps_trace(addr, len)) {
		mt_fail(MTRACE_STOP_OVERLAP, what, 0);
		mt_forget_windows((void *)addr, len);
	}
	mt_unlock(&ls);
	mt_tls.busy = busy;
}
