/* mt_int.h - state shared by the files of the instrumented malloc layer.
 *
 *   entry.c      the interposed allocator entry points (the hot path)
 *   resolve.c    finding the next allocator in the symbol search order; bootstrap arena
 *   writer.c     handing out chunks of records to threads; thread exit
 *   window.c     the trace file in memory: disk reserved ahead, windows mapped and unmapped
 *   remote.c     requests from outside (mtracectl --start/--stop) carried out
 *   dlopen.c, mallopt.c   the calls of those names, seen on their way
 *   allocctl.c   the program's settings made through its allocator's control interface
 *                (mallctl, mi_option_set), seen through gotpatch.c: the slots that call them
 *   populate.c   the thread that puts page-cache pages under the trace ahead of the writers
 *   procstat.c   what the kernel says of the process, for that thread: seccomp, threads alive
 *   tracefile.c  creating, naming, finishing the trace file and its header; messages
 *   fds.c        the tracer's descriptors, checked before every use; those kept after a
 *                chroot or a change of user
 *   control.c    initialisation, the lock, and the public mtrace_* API
 *   process.c    new processes (fork, and children made without it), _exit
 *   next.c       the one table of the functions the preload calls past itself (next_int.h),
 *                looked up
 *   libc.c       those of libc the tracer calls for itself (mt_libc)
 *   sandbox.c    what the program does to its process that may cut the tracer off, seen first:
 *                sandboxes, the time-stamp counter switched off, namespaces, chroot and
 *                changes of user
 *   mlock.c      mlockall: the trace's pages are not the program's to lock
 *   mapping.c    the program's own mappings: mmap, munmap, mremap, brk, sbrk
 *   memory.c     resident bytes of large blocks; samples of the process's memory
 *   large.c      the large blocks live, and their resident bytes when the trace ends
 *   clock.c      choosing the clock, its reads (CLOCK_MONOTONIC past libc: vdso.c finds the
 *                vDSO's own function)
 *   clock_watch.c  each file's calibration; a clock that stops given up for a count
 * record_int.h holds the record fast path (reserve, fill, commit), included at the end.
 */
#ifndef MT_INT_H
#define MT_INT_H

#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <signal.h>
#include <sys/types.h>
#include "mtrace-trace.h"
#include "clock.h"

#define MT_API      __attribute__((visibility("default")))
#define MT_LIKELY(x)   __builtin_expect(!!(x), 1)
#define MT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define MT_NOINLINE __attribute__((noinline))
#define MT_NORETURN __attribute__((noreturn))

/* The rules the comments state ("under lock", "not under lock", an order of calls), checked in
   a DEBUG=1 build (MT_DEBUG) from the flags the tracer keeps anyway: a broken one ends the
   process with a line on stderr.  Nothing in other builds. */
#ifdef MT_DEBUG
MT_NORETURN void mt_assert_fail(const char *file, int line, const char *what);   /* control.c */
#define MT_ASSERT(c) (MT_LIKELY(c) ? (void)0 : mt_assert_fail(__FILE__, __LINE__, #c))
#else
#define MT_ASSERT(c) ((void)0)
#endif
#define MT_ASSERT_LOCKED()   MT_ASSERT(mt_tls.locked)    /* this thread holds the lock */
#define MT_ASSERT_UNLOCKED() MT_ASSERT(!mt_tls.locked)   /* it does not (it may take it) */

/* ---------------------------------------------------------------------------------------------
   The allocator beneath us
   ------------------------------------------------------------------------------------------- */

struct mt_real {
	void *(*malloc)(size_t);
	void  (*free)(void *);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void *(*reallocarray)(void *, size_t, size_t);
	int   (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*memalign)(size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
	size_t (*usable)(void *);
	int bypassed;           /* MTRACE_HF_BYPASSED: see mt_check_bypass */
	int is_glibc;           /* chunk headers can be read: MTRACE_RF_MMAP/ARENA/BRK */
	void *const *curbrk;    /* glibc's __curbrk (the program break), or NULL */
	uintptr_t text_lo, text_len;   /* the code of the object that defines malloc (0, 0: not
	                                  known): a mapping call from there is the allocator's */
};
extern struct mt_real mt_real;
extern char mt_allocator_path[256];    /* the object that defines the next malloc ("": unknown) */

#include "next_int.h"

void mt_resolve(void);                 /* idempotent; safe to call from any entry point */
static inline int mt_from_allocator(const void *caller)   /* a return address in its code */
{
	return (uintptr_t)caller - mt_real.text_lo < mt_real.text_len;
}
void mt_check_bypass(void);            /* once, after mt_resolve and mt_stderr_init */

/* The bootstrap arena serves calls made while dlsym runs; free must recognise its blocks. */
#define MT_BOOT_SIZE (256 * 1024)
extern char mt_boot_arena[MT_BOOT_SIZE];
static inline int mt_is_boot_ptr(const void *p)
{
	return (uintptr_t)p - (uintptr_t)mt_boot_arena < MT_BOOT_SIZE;   /* one compare */
}
void *mt_boot_alloc(size_t size, size_t align);
size_t mt_boot_usable(const void *p);

/* ---------------------------------------------------------------------------------------------
   Per-thread state: initial-exec TLS, because global-dynamic TLS access may itself call malloc
   ------------------------------------------------------------------------------------------- */

struct mt_thread {
	struct mtrace_slot *cur;        /* next free slot of this thread's chunk */
	struct mtrace_slot *end;        /* end of the chunk */
	struct mtrace_slot *start;      /* the chunk's own MTRACE_CALL_CHUNK record */
	struct mtrace_slot *last;       /* the chunk's real end: end stops short of it while the
	                                   thread is exiting (see mt_writer_reserve_slow) */
	uint64_t chunk_off;             /* file offset of start */
	uint32_t chunk_len;             /* bytes it asked for last time (chunks double) */
	uint32_t gen;                   /* mt_run.gen when the chunk was taken */
	uint32_t tid;                   /* cached gettid(); 0 until known */
	uint32_t file_id;               /* mt_file.file_id the chunk belongs to */
	uint8_t busy;                   /* inside the tracer or the allocator beneath: don't record;
	                                   MT_BUSY_OWN: and serve from the bootstrap arena */
	uint8_t key_set;                /* the thread-exit key holds a value for this thread */
	uint8_t exiting;                /* its thread-exit destructor ran: few calls are left,
	                                   each counted as it is handed out */
	struct mt_thread_clock clk;     /* its clock (clock.h) */
	uint8_t own_files;              /* the thread has a descriptor table of its own */
	uint8_t locked;                 /* it holds mt_run.lock: not even a mapping call is recorded
	                                   (taking a chunk would wait for that lock) */
	uint16_t extra;                 /* slots of its chunk that hold no call record: samples,
	                                   wide records' second slots */
	uint8_t start_due;              /* a free of this thread found the populating thread due
	                                   and may not start it: end is held at cur, so that its
	                                   next calls come to mt_writer_reserve_slow until one
	                                   allocates */
	uint32_t held_ix;               /* its chunk's entry among those held (writer.c) */
	uint8_t no_call;                /* the slots it reserves now hold no call (a STACK or OBJECT
	                                   record): an exiting thread's are not counted */
};
#define MT_BUSY_OWN 2
#define MT_BUSY_NESTED 3   /* recording a mapping call the allocator made inside a traced call,
                              whose record is still to be written (mapping.c) */
extern __thread struct mt_thread mt_tls __attribute__((tls_model("initial-exec")));

/* ---------------------------------------------------------------------------------------------
   Global state.  The first cache line is read by every call and written only by start/stop.
   ------------------------------------------------------------------------------------------- */

#if UINTPTR_MAX > 0xffffffffu
#define MT_WINDOW_SHIFT 28      /* 256 MiB of address space a window */
#define MT_MAX_WINDOWS  (1u << 16)   /* 16 TiB of trace */
#else
#define MT_WINDOW_SHIFT 24
#define MT_MAX_WINDOWS  (1u << 12)
#endif
#define MT_WINDOW_SHIFT_MIN 22  /* 4 MiB: under an address-space limit (RLIMIT_AS) */
#define MT_WINDOW_SIZE  ((uint64_t)1 << mt_wnd.win_shift)
#define MT_HUGE         ((uint64_t)2 << 20)   /* PMD size on x86-64 and 4K-page aarch64 */
#define MT_FIRST_RESERVE ((uint64_t)64 << 10) /* a new file's first reservation */
#define MT_FIRST_CHUNK  1024u           /* a thread's first chunk: small, threads may be short */
#define MT_EXIT_CHUNK   256u            /* an exiting thread's: the few calls after its exit
                                           destructor (3 records and the chunk record) */
#define MT_CHUNK        65536u          /* the largest: 2,047 slots and one chunk record */
#define MT_NO_WINDOW    UINT32_MAX
#define MT_RESIDENT_MIN ((uint64_t)64 << 10)   /* blocks whose resident bytes are recorded */
#define MT_MEMORY_MS    10u             /* between memory samples, by default */

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23          /* Linux 5.14 */
#endif

/* What every call reads: one cache line in a page of its own that a child made by any kind of
   fork (fork, _Fork, clone, syscall(SYS_fork)) finds zeroed (MADV_WIPEONFORK): it then sees
   tracing off and alive 0, and its first call sets it up as a new process before it could
   write into the parent's file.  Written only under the lock; each field has a cold copy in
   mt_run, which the child keeps. */
struct mt_hot {
	volatile int active;            /* recording now */
	volatile uint32_t gen;          /* bumped by every start/stop/pause/reset: stale chunks */
	int durations;                  /* MTRACE_HF_DURATIONS */
	unsigned stacks;                /* MTRACE_HF_STACKS: frames a stack holds at most; 0 off */
	volatile int alive;             /* 1 in the process that set the page up */
	uint64_t sample_due;            /* the clock at which a memory sample is next due */
};
extern struct mt_hot *mt_hot;

/* Each module's state, in a struct of its own that only its file writes (tests/dev/owners.sh
   checks it); the others read it, or call the owner's functions.  Every field is written
   under the lock unless said otherwise. */

/* control.c: recording on or off; cold copies of struct mt_hot, for a child whose page was
   wiped */
struct mt_run_state {
	pthread_mutex_t lock;
	int active;
	uint32_t gen;
	int durations;
	unsigned stacks;
	int hot_wipes;                  /* mt_hot is a MADV_WIPEONFORK page (Linux 4.14) */
	int hot_set;                    /* mt_hot was set up: a zero alive means a new process */
	int paused;
};
extern struct mt_run_state mt_run;

/* tracefile.c: the trace file */
struct mt_file_state {
	int have_file;                  /* a trace file is open (in the sense of mtrace_init) */
	uint32_t file_id;               /* bumped each time a file is opened */
	int failed;                     /* tracing was stopped by an error */
	pid_t pid;                      /* the process the trace file belongs to */
	int private_header;             /* leave exe/cmdline out */
	int max_size_bad;               /* MTRACE_CTL_MAX_SIZE is set but not a size: no tracing */
	uint64_t max_size;              /* MTRACE_CTL_MAX_SIZE: a trace file's cap; 0 none */
	uint64_t reset_off;             /* mtrace_reset discarded the records below here */
	char *hdr_map;                  /* the file's first page (MTRACE_HEADER_SIZE bytes), mapped
	                                   shared while the file is open, or NULL */
	char path[4200];                /* the open file */
};
extern struct mt_file_state mt_file;

/* window.c: the file's windows and its disk reservation */
struct mt_window_state {
	unsigned win_shift;             /* a window: 1 << win_shift bytes of the file (per file) */
	uint64_t reserved_end;          /* disk blocks are reserved up to here */
	uint32_t win_lo, win_hi;        /* windows ever mapped for this file: [win_lo, win_hi) */
	uint32_t win_live;              /* no window below it is mapped now */
};
extern struct mt_window_state mt_wnd;

/* writer.c: the chunks handed out */
struct mt_chunk_state {
	uint64_t next_off;              /* first file byte not yet handed out */
	unsigned long long released;    /* records counted when their chunk was released */
	int key_ok;
	pthread_key_t key;              /* thread exit: release the chunk */
	/* what the writers populated themselves: the file's pages below wpop_end were asked for
	   by some chunk's madvise, so the small chunks that share a page (a new thread's first, an
	   exiting thread's last) make one call for it, not one each */
	uint64_t wpop_end;
};
extern struct mt_chunk_state mt_chunks;

/* populate.c: the populating thread */
#define MT_DROP_PINS 4                  /* windows writers may drop pages in at once */
struct mt_pop_state {
	int pop_state;                  /* MT_POP_* */
	int pop_waiting;                /* it sleeps, waiting for the writers to come near */
	uint32_t pop_win;               /* the window it is populating now, or MT_NO_WINDOW */
	uint32_t drop_win[MT_DROP_PINS]; /* windows writers drop pages in now, or MT_NO_WINDOW */
	uint64_t pop_end;               /* the file's pages below this are populated */
	uint64_t pop_stuck_at;          /* reserved_end when reserving ahead failed */
};
enum { MT_POP_NONE, MT_POP_STARTING, MT_POP_RUNNING, MT_POP_QUITTING, MT_POP_OFF };
extern struct mt_pop_state mt_pop;

/* process.c */
struct mt_proc_state {
	int main_exited;                /* the main thread ended by pthread_exit (atomic) */
};
extern struct mt_proc_state mt_proc;

/* sandbox.c */
struct mt_sandbox_state {
	int sandboxed;                  /* a seccomp filter is (about to be) in force: no system
	                                   call of ours from now on */
};
extern struct mt_sandbox_state mt_sandbox;

/* mlock.c */
struct mt_mlock_state {
	int mlock_future;               /* the program called mlockall(MCL_FUTURE): new windows are
	                                   mapped unlocked */
};
extern struct mt_mlock_state mt_mlock;

/* memory.c */
struct mt_memory_state {
	uint32_t memory_ms;             /* MTRACE_CTL_MEMORY_MS: between memory samples; 0 none */
	uint64_t sample_early;          /* ticks: how far ahead of sample_due a large release takes
	                                   the sample anyway (see mt_memory_before_release) */
};
extern struct mt_memory_state mt_mem;

/* clock_watch.c: the calibration reference */
struct mt_calib_state {
	uint64_t start_ticks, start_ns;
	uint64_t ticks_per_sec;
};
extern struct mt_calib_state mt_calib;

/* remote.c */
struct mt_remote_state {
	uint32_t ctl_seen;              /* the last request from outside looked at */
	uint32_t window;                /* the trace switched on from outside being opened (its
	                                   number, named BASE.<pid>.w<N>), or 0 */
	int start_threads;              /* with window: the threads alive then */
};
extern struct mt_remote_state mt_remote;

/* mallopt.c */
struct mt_mallopt_state {
	uint32_t mallopt_set;           /* the program's mallopt settings (header fields of the */
	int32_t mallopt_value[MTRACE_MALLOPT_PARAMS];   /* same names), kept for every file */
};
extern struct mt_mallopt_state mt_mallopt;

/* Large tables, zero-initialised so they cost no file size and no memory until touched. */
extern char *mt_win[MT_MAX_WINDOWS];          /* window.c: mapped base of each window, or NULL */
extern uint64_t mt_win_done[MT_MAX_WINDOWS];  /* writer.c: bytes of it handed out and released */
extern uint64_t mt_win_count[MT_MAX_WINDOWS]; /* writer.c: records in it counted as released (an
                                                 exiting thread's one by one, as handed out) */
struct mt_names {                        /* control.c */
	char base[4096];                /* file name base */
	char manifest[4096];            /* MTRACE_CTL_MANIFEST: where to list trace files */
};
extern struct mt_names mt_names;

/* control.c: the lock.  Every path that takes it from a program's thread blocks the signals a
   handler could interrupt it with (a handler that forks, exits or calls the API would wait for
   the lock its own thread holds) and turns cancellation off (the lock is held across system
   calls that are cancellation points); unlocking closes the trace file's descriptor, which is
   open only while the lock is held (fds.c: unless kept after a chroot or a change of user). */
struct mt_lock_state {
	sigset_t old;
	int cancel;
	uint8_t masked; /* the signals were blocked: restored at the unlock, even if a sandbox came
	                   in between (the thread would keep them blocked for good) */
	uint8_t busy;   /* fork_prepare's: the thread's busy before it */
};
void mt_lock(struct mt_lock_state *s);
void mt_unlock(struct mt_lock_state *s);
void mt_lock_plain(void);              /* for a thread with every signal blocked, never cancelled
                                          (the populating thread) */
void mt_unlock_plain(void);
int  mt_lock_timedwait(pthread_cond_t *c, const struct timespec *until);   /* under lock */
void mt_lock_fork_child(void);         /* first thing in a new process */
void mt_run_fork_child(void);          /* in a new process: recording off, chunks stale */
void mt_run_resume(void);              /* under lock: recording on, not paused */
/* The events that cross modules, each calling every module's part in one place (control.c) */
void mt_on_file_opened(void);          /* under lock: a trace file was opened (mt_file_open) */
void mt_run_set_active(int on);            /* under lock: mt_hot->active and its copy */
void mt_run_new_gen(void);                 /* under lock: every chunk goes stale */
void mt_run_init_once(void);
/* under lock: NULL the previous base, or the environment's */
int mt_run_open_base(const char *base);

/* remote.c: switched on and off from outside (include/mtrace-control.h) */
#include "mtrace-control.h"
extern struct mtrace_control mtrace_control;
void mt_control_act(void);             /* not under lock: carry out a request that came */
void mt_control_fork_child(void);      /* in a new process */
void mt_control_fork_child_done(void); /* in a new process, after its file is opened (or not) */
static inline int mt_control_due(void)
{
	return __atomic_load_n(&mtrace_control.request, __ATOMIC_RELAXED) != mt_remote.ctl_seen;
}

/* writer.c (all under lock but where said) */
struct mtrace_slot *mt_writer_reserve_slow(struct mt_thread *t, unsigned n, int may_start);
struct mtrace_slot *mt_writer_take_locked(struct mt_thread *t, unsigned *n);   /* *n slots in a
                                                                          chunk of their own */
void mt_writer_release(struct mt_thread *t);         /* not under lock: takes it */
void mt_writer_release_locked(struct mt_thread *t);
void mt_writer_count_released(uint64_t off, uint64_t n);
unsigned long long mt_writer_count_records(void);    /* every record written */
void mt_writer_key_init(void);                       /* once, at initialisation */
void mt_writer_file_opened(void);                    /* (mt_on_file_opened) */
void mt_writer_reset_counts(void);                   /* mtrace_reset */
/* window.c (all under lock) */
void mt_window_file_opened(void);                    /* (mt_on_file_opened) */
void mt_window_unmap_idle(void);
int  mt_window_reserve(uint64_t need_end, int quiet);
void mt_window_close_range(uint64_t from, uint64_t to);   /* the file's bytes [from, to)
                                                     inaccessible where mapped (the file cut) */
void mt_window_forget(void *lo, size_t len);         /* the program took them */
int  mt_window_map(uint32_t w);                      /* errno ESTALE: the file cannot be had
                                                        (mt_fds_lost) */
void mt_window_maybe_unmap(uint32_t w);
int  mt_window_zero_fill(uint64_t from, uint64_t to);

/* populate.c */
int  mt_populate_covers(uint64_t end);   /* under lock: is the file populated below end? */
int  mt_populate_wanted(int may_start);  /* under lock: 1 the caller is to start the thread,
                                            -1 it is due but may_start is 0 */
int  mt_populate_unmap(char *base);      /* under lock: 1 if the thread will unmap this window */
void mt_populate_quit(void);             /* not under lock: end the thread, wait until it has */
void mt_populate_quit_running(void);     /* the same, if it runs (else it may start later) */
void mt_populate_pause(void);            /* not under lock: ended and gone before a fork, to
                                            start again later */
int  mt_populate_drop_claim(uint64_t *from, uint64_t *to, uint32_t *w);   /* under lock: a pin,
                                                                             or -1 */
void mt_populate_drop_done(int pin);     /* under lock */
int  mt_populate_drop_pinned(uint32_t w);   /* under lock */
void mt_populate_file_opened(void);      /* under lock (mt_on_file_opened) */
void mt_populate_disable(void);          /* at initialisation: MTRACE_CTL_NOTHREAD */
/* procstat.c: what the kernel says of the process */
void mt_procstat_init(void);                /* once, at initialisation */
int  mt_procstat_seccomp_allows(void);      /* no filter in force, or only those there at the
                                               start */
int  mt_procstat_alone(void);               /* the caller is the process's last thread (perhaps
                                               with a main thread ended by pthread_exit) */
int  mt_procstat_threads(void);             /* the process's threads now, or 0 */
uint64_t mt_procstat_dec(const char **s);   /* the digits at *s (of a /proc file), *s past them */
int  mt_procstat_mapping(uintptr_t addr, const char *name, uintptr_t *lo, uintptr_t *hi);
                                            /* under lock: [lo, hi) of the mapping holding addr
                                               (name NULL) or named name: 1, or 0 */
/* populate.c */
void mt_populate_start(void);          /* not under lock */
void mt_populate_fork_child(void);

/* tracefile.c */
void mt_file_init(int private_header);          /* once, at initialisation */
void mt_file_fork_child(void);                  /* in a new process */
void mt_file_header_forget(const void *lo, size_t len);   /* under lock: the program took it */
int  mt_file_open(const char *base, pid_t ppid);          /* under lock */
void mt_file_finish(struct mt_thread *self);              /* under lock */
/* under lock: stop with one warning; reason: enum mtrace_stop_reason */
void mt_file_fail(unsigned reason, const char *what, int err);
void mt_file_header_update(int finished);       /* under lock */
void mt_file_header_mallopt(void);              /* under lock: mt_mallopt's settings in */
void mt_file_header_settings(void);             /* under lock: those noted by allocctl.c in */
void mt_file_header_reset(uint64_t off);        /* under lock: mtrace_reset discarded below */
void mt_file_header_unmap(void);                /* under lock, or in a new process */

/* messages.c: to the stderr the process started with, one write a message */
void mt_msg_init(void);                            /* once, at initialisation */
void mt_msg_warn(const char *msg1, const char *msg2, int err);
void mt_msg_info(const char *msg1, const char *msg2);   /* when verbose only */
void mt_msg_stopped(const char *what, int err);    /* tracing stopped: always said */
size_t mt_fmt_u64(char *buf, unsigned long long v); /* decimal, returns length; no stdio */

/* fds.c: each call on the trace file (under lock) goes through a descriptor checked just
   before it; -1 (MAP_FAILED) with errno ESTALE if the file cannot be had (mt_fds_lost) */
ssize_t mt_fds_pwrite(const void *buf, size_t n, uint64_t off);
int   mt_fds_fallocate(int mode, uint64_t off, uint64_t len);
int   mt_fds_truncate(uint64_t len);
int   mt_fds_sync(void);
void *mt_fds_map(void *at, size_t len, int prot, int flags, uint64_t off);
int   mt_fds_create(const char *path);      /* under lock: 0, or -1 (EEXIST: taken) */
void  mt_fds_remove(const char *path);      /* under lock */
void  mt_fds_release(void);                 /* under lock: the file is done with */
void  mt_fds_close(void);                   /* under lock, as it is let go */
void  mt_fds_lost(void);                    /* under lock: stop, saying why */
int   mt_fds_is(int fd, uint64_t dev, uint64_t ino);   /* fd still names that file */
ssize_t mt_fds_read_proc(const char *path, char *buf, size_t cap);   /* under lock */
struct iovec;
void  mt_fds_manifest_add(const struct iovec *iov, int n);           /* under lock */
void  mt_fds_keep_access(int ids);          /* before chroot (0) or a change of user (1) */
int   mt_fds_ids_changed(void);
void  mt_fds_fork_child(void);

/* process.c */
void mt_new_process(void);             /* a child: trace into a file of its own */
void mt_fork_init(void);
static inline int mt_new_process_due(void)
{
	return !mt_hot->alive && mt_run.hot_set;
}

/* memory.c */
uint64_t mt_memory_resident(const void *p, size_t size);   /* bytes of its whole pages resident */
void mt_memory_init(void);
void mt_memory_file_open(void);                      /* under lock */
void mt_memory_sample_due(struct mt_thread *t, uint64_t ts);
void mt_memory_sample_early(struct mt_thread *t, uint64_t ts, uint64_t due);   /* before it is
                                                                                  due */
int  mt_memory_sample_last(struct mt_thread *t, struct mtrace_slot *r);   /* under lock */
static inline void mt_memory_maybe_sample(struct mt_thread *t, uint64_t ts)
{
	if (MT_UNLIKELY(ts >= mt_hot->sample_due))
		mt_memory_sample_due(t, ts);
}
/* Before a large block or mapping is given back: a sample if one is due (reserved before the
   release's own record, so that it comes first in the thread's order).  A release of
   MT_SAMPLE_FORCE_MIN or more takes one as soon as a tenth of the interval has passed since the
   last: the program's peak is just before it, and a sample due only later would miss it
   (100 blocks of 1 MiB written and freed: the last sample fell 13 MiB below the peak). */
#define MT_SAMPLE_FORCE_MIN ((size_t)1 << 20)
static inline void mt_memory_before_release(struct mt_thread *t, size_t size)
{
	uint64_t now = mt_thread_ticks(&mt_tls.clk), due = mt_hot->sample_due;
	if (now >= due)
		mt_memory_sample_due(t, now);
	else if (size >= MT_SAMPLE_FORCE_MIN && now + mt_mem.sample_early >= due)
		mt_memory_sample_early(t, now, due);
}

/* large.c: blocks of MT_RESIDENT_MIN bytes or more allocated while recording */
void mt_large_add(const void *p, uint64_t size);    /* allocated and recorded */
void mt_large_remove(const void *p);                /* before the allocator takes it back */
void mt_large_file_open(void);                      /* under lock */

/* stacks.c: the call stacks of a file (STACK records) and each allocating call's CALLER */
#define MT_STACK_IDS 0x80000000u   /* in a record's stack: stacks are recorded, ids in the records */
struct mtrace_slot *mt_stacks_reserve(struct mt_thread *t, unsigned n, int may_start,
				      uintptr_t ret, uint32_t *stack);   /* n slots, or NULL */
void mt_stacks_file_open(void);                     /* under lock: a file's stacks anew */
uint64_t mt_stacks_dropped(void);                   /* stacks met with the table full */
void mt_stacks_objects_changed(void);               /* after a dlclose: OBJECT records now */
/* walk.c: up to max return addresses of the calling thread, ret (the allocator call's own)
   first; the frames found, their hash (mt_stack_fold's) in *hash.  *missed set if a pc had no
   rule known (code not met before).  *lazy set: the frames are not in frames yet, and the
   thread's kept stack stays taken until mt_unwind_frames copies them (frames NULL: unwanted). */
unsigned mt_unwind(uintptr_t *frames, unsigned max, uintptr_t ret, int *missed, uint64_t *hash,
		   int *lazy);
void mt_unwind_frames(uintptr_t *frames, unsigned n);
void mt_walk_init(int keep);                        /* keep each thread's last stack or not */
void mt_walk_thread_exit(void);                     /* the thread's kept stack given back */
void mt_walk_fork_child(void);                      /* only this thread's kept in the child */
void mt_unwind_forget(void);                        /* unwind.c: an object went, rules too */

static inline uint64_t mt_mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 33);
}

/* A stack's hash, folded frame by frame from its bottom (pos 0) up, so that the frames under a
   part met before keep theirs (walk.c) */
#define MT_STACK_SEED 0x243f6a8885a308d3ull
static inline uint64_t mt_stack_fold(uint64_t h, uintptr_t pc, unsigned pos)
{
	h = (h ^ (uint64_t)pc) * 0x9e3779b97f4a7c15ull;   /* (stacks.c mixes the whole once more) */
	return (h ^ (h >> 29)) + pos;
}
/* objects.c: OBJECT records for the objects loaded, in a new file or if maybe_new, and for
   those gone (before the STACK records that name their code) */
void mt_objects_check(struct mt_thread *t, uint32_t gen, int maybe_new);
void mt_objects_fork_child(void);                   /* first thing in a new process */
uint64_t mt_large_untracked(void);                  /* blocks the table had no room for */
void mt_large_finish(struct mt_thread *t);          /* under lock: their LIVE records */

/* process.c */
MT_NORETURN void mt_exit_now(int status);   /* libc's _exit, whatever the tracer's state */
void mt_retired_unmap(const struct mt_thread *t);   /* under lock: the parent's windows go */
/* window.c: windows of earlier files that threads still hold chunks in (under lock) */
void mt_window_keep_old(void);
void mt_window_old_chunk_released(const struct mt_thread *t);
void mt_window_hand_over(void (*take)(char *base, size_t size));   /* in a new process: every
                                                   window mapped, to take, and forgotten */
uint64_t mt_window_handed(uint32_t w);   /* under lock: bytes of window w handed out */

/* mapping.c */
void mt_mapping_init(void);

/* allocctl.c */
void mt_ctl_hook(int first);           /* not under lock: after initialisation (first), before
                                          each dlopen */
void mt_ctl_fork_child(void);
size_t mt_ctl_settings(char *buf, size_t cap);   /* under lock: NAME=VALUE\0 ... noted */
/* gotpatch.c: the loaded objects' calls of name through their offset tables go to wrapper
   where they would reach real (not under lock; one caller at a time) */
struct mt_got_fn {
	const char *name;
	void *real, *wrapper;
};
void mt_got_patch(const struct mt_got_fn *fn, unsigned n);
/* the functions names[0..n) of the object that holds the address in, or NULL each (no dlsym:
   a name it lacks would make dlsym allocate, and leave an error for the program's dlerror) */
void mt_got_symbols(const void *in, const char *const *names, void **found, unsigned n);

/* libc.c: the functions of libc the tracer wraps, for its own calls */
int mt_real_prctl(int option, unsigned long a2, unsigned long a3, unsigned long a4,
		  unsigned long a5);
struct mt_libc {
	void *(*mmap)(void *, size_t, int, int, int, int64_t);   /* libc's mmap64 */
	int (*munmap)(void *, size_t);
	int (*mprotect)(void *, size_t, int);
	long (*syscall)(long, ...);
	void (*exit)(int);
	void (*pthread_exit)(void *);
	int (*prctl)(int, unsigned long, unsigned long, unsigned long, unsigned long);
	int (*mlockall)(int);
	int (*munlockall)(void);
	int (*unshare)(int);
	int (*setns)(int, int);
};
extern struct mt_libc mt_libc;
void mt_libc_init(void);
void mt_libc_ready(void);              /* mt_libc_init, once, from any wrapper */
/* window.c: the program's calls over the trace's own windows */
int mt_window_overlaps(const void *addr, size_t len);   /* not under lock */
void mt_window_overlapped(const void *addr, size_t len, const char *what);

#include "record_int.h"

#endif
