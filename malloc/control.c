/* control.c - initialisation, the lock, and the public mtrace_* API (include/mtrace.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>
#include "mtrace.h"
#include "mt_int.h"

static struct mt_hot hot_static;           /* until initialisation, or if no page can be had */
struct mt_hot *mt_hot = &hot_static;
struct mt_run_state mt_run = { .lock = PTHREAD_MUTEX_INITIALIZER };
struct mt_names mt_names;

#ifdef MT_DEBUG
void mt_assert_fail(const char *file, int line, const char *what)
{
	char num[24];
	struct iovec v[] = { { "mtrace: broken rule at ", 23 }, { (char *)file, strlen(file) },
			     { ":", 1 }, { num, mt_fmt_u64(num, (unsigned)line) }, { ": ", 2 },
			     { (char *)what, strlen(what) }, { "\n", 1 } };
	writev(2, v, (int)(sizeof v / sizeof v[0]));
	abort();
}
#endif

/* ---------------------------------------------------------------------------------------------
   The lock
   ------------------------------------------------------------------------------------------- */

/* Signals a handler can run for while the lock is held: all but those a fault raises in the
   thread itself, which must not be blocked (the kernel would kill the process). */
static sigset_t lock_mask;

void mt_lock(struct mt_lock_state *s)
{
	MT_ASSERT_UNLOCKED();
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &s->cancel);
	s->masked = !mt_sandbox.sandboxed;   /* (a sandbox may forbid even rt_sigprocmask) */
	if (s->masked)
		pthread_sigmask(SIG_BLOCK, &lock_mask, &s->old);
	pthread_mutex_lock(&mt_run.lock);
	mt_tls.locked = 1;
}

void mt_unlock(struct mt_lock_state *s)
{
	mt_unlock_plain();
	if (s->masked)
		pthread_sigmask(SIG_SETMASK, &s->old, NULL);
	pthread_setcancelstate(s->cancel, NULL);
}

void mt_lock_plain(void)
{
	MT_ASSERT_UNLOCKED();
	pthread_mutex_lock(&mt_run.lock);
	mt_tls.locked = 1;
}

void mt_unlock_plain(void)
{
	mt_fds_close();
	mt_tls.locked = 0;
	pthread_mutex_unlock(&mt_run.lock);
}

int mt_lock_timedwait(pthread_cond_t *c, const struct timespec *until)
{
	MT_ASSERT_LOCKED();
	return pthread_cond_timedwait(c, &mt_run.lock, until);
}

/* In a new process, whatever thread held the lock in the parent (it does not exist here). */
void mt_lock_fork_child(void)
{
	pthread_mutex_init(&mt_run.lock, NULL);
	mt_tls.locked = 0;
}

static void lock_mask_init(void)
{
	static const int faults[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS };
	sigfillset(&lock_mask);
	for (unsigned i = 0; i < sizeof faults / sizeof faults[0]; i++)
		sigdelset(&lock_mask, faults[i]);
}

void mt_run_set_active(int on)
{
	mt_run.active = on;
	mt_hot->active = on;
}

void mt_run_new_gen(void)
{
	mt_hot->gen = ++mt_run.gen;
}

/* ---------------------------------------------------------------------------------------------
   Events that cross modules: every module's part, in one place
   ------------------------------------------------------------------------------------------- */

/* Under lock: a trace file was opened (mt_file_open: it has its header, file_id and generation
   are new). */
void mt_on_file_opened(void)
{
	MT_ASSERT_LOCKED();
	mt_writer_file_opened();   /* (first: it clears by the last file's range of windows) */
	mt_window_file_opened();
	mt_populate_file_opened();
	mt_memory_file_open();
	mt_large_file_open();
	mt_stacks_file_open();
}

/* In a new process: the page of mt_hot is its own (a wiped one is set up again), recording
   off, every chunk stale. */
void mt_run_fork_child(void)
{
	mt_hot->durations = mt_run.durations;
	mt_hot->stacks = mt_run.stacks;
	mt_run_set_active(0);
	mt_run_new_gen();
	mt_hot->alive = 1;
}

/* Recording on, by the program (mtrace_start, mtrace_unpause) or from outside. */
void mt_run_resume(void)
{
	MT_ASSERT_LOCKED();
	mt_run.paused = 0;
	mt_run_set_active(1);
}

/* ---------------------------------------------------------------------------------------------
   Initialisation
   ------------------------------------------------------------------------------------------- */

static int env_flag(const char *name)
{
	const char *v = secure_getenv(name);
	return v != NULL && *v != 0 && strcmp(v, "0") != 0;
}

/* MTRACE_CTL_STACKS: a depth (0 or unset: no stacks; past the most: the most; not a number:
   the default) */
static unsigned env_depth(const char *name)
{
	const char *v = secure_getenv(name);
	if (v == NULL || *v == 0)
		return 0;
	unsigned long d = 0;
	for (const char *c = v; *c; c++) {
		if (*c < '0' || *c > '9')
			return MTRACE_STACK_DEPTH_DEFAULT;
		if (d <= MTRACE_STACK_DEPTH_MAX)
			d = d * 10 + (unsigned long)(*c - '0');
	}
	return d > MTRACE_STACK_DEPTH_MAX ? MTRACE_STACK_DEPTH_MAX : (unsigned)d;
}

static void copy_env(char *dst, size_t cap, const char *name, const char *dflt)
{
	const char *v = secure_getenv(name);   /* NULL under secure execution: take no orders */
	if (v == NULL || *v == 0)
		v = dflt;
	size_t n = strlen(v);
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, v, n);
	dst[n] = 0;
}

/* mt_hot in a page a child made by any kind of fork finds zeroed (see struct mt_hot).  Without
   MADV_WIPEONFORK (Linux < 4.14) it stays in static memory, and a slow path compares the pid. */
static void hot_init(void)
{
	void *p = mt_libc.mmap(NULL, (size_t)getpagesize(), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED && madvise(p, (size_t)getpagesize(), MADV_WIPEONFORK) == 0) {
		memcpy(p, &hot_static, sizeof hot_static);
		mt_hot = p;
		mt_run.hot_wipes = 1;
	} else if (p != MAP_FAILED)
		mt_libc.munmap(p, (size_t)getpagesize());
	mt_hot->alive = 1;
	mt_run.hot_set = 1;
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void init(void)
{
	mt_clock_init();
	mt_resolve();
	mt_libc_init();
	mt_memory_init();
	lock_mask_init();
	hot_init();
	mt_run.durations = mt_hot->durations = env_flag("MTRACE_CTL_DURATIONS");
	if (mt_run.durations)
		mt_clock_every_call();   /* (a duration is two clock reads) */
	mt_run.stacks = mt_hot->stacks = env_depth("MTRACE_CTL_STACKS");
	mt_walk_init(!env_flag("MTRACE_CTL_STACKS_NOCACHE"));
	mt_file_init(env_flag("MTRACE_CTL_PRIVATE"));
	if (env_flag("MTRACE_CTL_NOTHREAD"))
		mt_populate_disable();
	mt_procstat_init();
	mt_clock_coarse_find();
	copy_env(mt_names.manifest, sizeof mt_names.manifest, "MTRACE_CTL_MANIFEST", "");
	mt_msg_init();
	mt_check_bypass();
	mt_writer_key_init();
	mt_fork_init();
}

void mt_run_init_once(void)
{
	uint8_t busy = mt_tls.busy;
	mt_tls.busy = 1;   /* what initialisation allocates is not the program's */
	pthread_once(&init_once, init);
	mt_tls.busy = busy;
}

/* ---------------------------------------------------------------------------------------------
   The API.  Each entry sets the guard so our own allocations (if any) stay out of the trace.
   ------------------------------------------------------------------------------------------- */

#define API_ENTER()                          \
	mt_run_init_once();                      \
	uint8_t saved_busy = mt_tls.busy;    \
	mt_tls.busy = 1;                     \
	struct mt_lock_state ls;             \
	mt_lock(&ls)
#define API_LEAVE(ret)                       \
	int saved_errno = errno;             \
	mt_unlock(&ls);                      \
	errno = saved_errno;                 \
	mt_tls.busy = saved_busy;            \
	return (ret)

/* A base naming a directory (ending in '/') means the default file name in it, not hidden
   files named ".<pid>". */
static void complete_base(char *base, size_t cap)
{
	static const char name[] = "mtrace.out";
	size_t n = strlen(base);
	if (n && base[n - 1] == '/' && n + sizeof name <= cap)
		memcpy(base + n, name, sizeof name);
}

/* A relative base is taken from the working directory now: the program may chdir, and its
   forked children must still write beside it, and mt_reopen find its file. */
static void make_absolute(char *base, size_t cap)
{
	char cwd[4096];
	if (base[0] == '/' || !getcwd(cwd, sizeof cwd))   /* (getcwd with a buffer: no malloc) */
		return;
	size_t c = strlen(cwd), n = strlen(base);
	if (c + 1 + n + 1 > cap)
		return;   /* too long: relative, as given */
	memmove(base + c + 1, base, n + 1);
	memcpy(base, cwd, c);
	base[c] = '/';
}

/* Under lock: open a trace file at base (NULL: the previous one's, or the environment's). */
int mt_run_open_base(const char *base)
{
	MT_ASSERT_LOCKED();
	if (base == NULL) {
		/* the base of the previous file, so start after stop goes on beside it */
		if (!mt_names.base[0])
			copy_env(mt_names.base, sizeof mt_names.base, "MTRACE_CTL_FILE",
				 "/tmp/mtrace.out");
	}
	else {
		size_t n = strlen(base);
		if (n == 0 || n >= sizeof mt_names.base) {
			errno = n ? ENAMETOOLONG : EINVAL;
			return -1;
		}
		memcpy(mt_names.base, base, n + 1);
	}
	complete_base(mt_names.base, sizeof mt_names.base);
	make_absolute(mt_names.base, sizeof mt_names.base);
	return mt_file_open(mt_names.base, getppid());
}

MT_API int mtrace_init(const char *base)
{
	API_ENTER();
	int r;
	if (mt_file.have_file) {
		errno = EBUSY;
		r = -1;
	} else
		r = mt_run_open_base(base);
	API_LEAVE(r);
}

MT_API int mtrace_start(void)
{
	mt_run_init_once();
	mt_ctl_hook(1);   /* (not under lock: the loader's lock comes with it) */
	API_ENTER();
	int r = 0;
	if (mt_sandbox.sandboxed) {
		errno = EPERM;   /* no system call of ours is allowed any more */
		r = -1;
	} else if (!mt_file.have_file)
		r = mt_run_open_base(NULL);
	if (r == 0 && mt_file.failed) {
		errno = EIO;
		r = -1;
	}
	if (r == 0) {
		mt_run_resume();
	}
	API_LEAVE(r);
}

MT_API int mtrace_stop(void)
{
	API_ENTER();
	int r = 0;
	if (!mt_file.have_file) {
		errno = EINVAL;
		r = -1;
	} else
		mt_file_finish(&mt_tls);
	API_LEAVE(r);
}

MT_API int mtrace_pause(void)
{
	API_ENTER();
	mt_run.paused = 1;
	mt_run_set_active(0);
	API_LEAVE(0);
}

MT_API int mtrace_unpause(void)
{
	API_ENTER();
	int r = 0;
	if (!mt_file.have_file || mt_file.failed) {
		errno = !mt_file.have_file ? EINVAL : EIO;
		r = -1;
	} else {
		mt_run_resume();
	}
	API_LEAVE(r);
}

MT_API int mtrace_sync(void)
{
	API_ENTER();
	int r = 0;
	if (!mt_file.have_file) {
		errno = EINVAL;
		r = -1;
	} else {
		for (uint32_t w = mt_wnd.win_lo; w < mt_wnd.win_hi && r == 0; w++)
			if (mt_win[w] != NULL)
				r = msync(mt_win[w], MT_WINDOW_SIZE, MS_SYNC);
		mt_file_header_update(0);
		if (r == 0)
			r = mt_fds_sync();   /* (ESTALE: the file cannot be had) */
	}
	API_LEAVE(r);
}

MT_API int mtrace_reset(void)
{
	API_ENTER();
	int r = 0;
	if (!mt_file.have_file) {
		errno = EINVAL;
		r = -1;
	} else {
		/* every thread's chunk goes stale; the space already handed out is never reused,
		   only zeroed, so a thread finishing a record this instant cannot collide with a
		   new one */
		mt_writer_release_locked(&mt_tls);
		mt_stacks_file_open();   /* (first: see mt_stacks_reserve) */
		mt_run_new_gen();
		/* readers skip the calls still being written there */
		mt_file_header_reset(mt_chunks.next_off);
		mt_writer_reset_counts();
		uint64_t from = MTRACE_HEADER_SIZE, to = mt_chunks.next_off;
		if (to > from && mt_fds_fallocate(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, from,
						   to - from) < 0)
			/* no hole punching on this filesystem; ESTALE: the file cannot be had */
			r = errno == ESTALE ? -1 : mt_window_zero_fill(from, to);
	}
	API_LEAVE(r);
}

MT_API const char *mtrace_file(void)
{
	return mt_file.have_file ? mt_file.path : NULL;
}

MT_API unsigned long long mtrace_count(void)
{
	struct mt_thread *t = &mt_tls;
	unsigned long long n = __atomic_load_n(&mt_chunks.released, __ATOMIC_RELAXED);
	if (t->start != NULL && t->file_id == mt_file.file_id && t->gen == mt_hot->gen)
		n += (unsigned long long)(t->cur - t->start - 1) - t->extra;
	return n;
}
