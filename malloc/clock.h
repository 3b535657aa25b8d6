/* clock.h - the tick counter behind every timestamp.
 *
 * mt_ticks(): the one read at every order point, on both sides of the rules in mtrace-trace.h:
 * an allocation's point must follow the allocator's loads, and a free's must follow the
 * program's load that gave it the pointer (a plain RDTSC may execute before that load
 * completes, and so read a time before the allocation of the block in the thread that passed
 * it: seen under a lock-free handoff, tests/prog/order_point.c).  RDTSCP waits until every
 * earlier instruction has executed and earlier loads are globally visible, and retires before
 * any later store can be seen; on a CPU without RDTSCP, LFENCE then RDTSC does the same
 * (MTRACE_CLOCK_TSC_LFENCE).
 * Without an invariant TSC (or off x86 and aarch64) the ticks are CLOCK_MONOTONIC's, read
 * through the vDSO or the kernel, never through libc (clock.c); where no clock advances, a
 * count taken at each order point (MTRACE_CLOCK_COUNTER).  clock.c chooses, once.
 */
#ifndef MT_CLOCK_H
#define MT_CLOCK_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif
#include "mtrace-trace.h"
#include "internal/mt-tsc.h"

extern int mt_clock_kind;   /* enum mtrace_clock chosen by mt_clock_init() */

uint64_t mt_clock_read(void);      /* the ticks of a clock that is not the CPU's counter */
uint64_t mt_monotonic_ns(void);    /* CLOCK_MONOTONIC, through the vDSO if there is one */
uint64_t mt_ns_soft(void);         /* CLOCK_MONOTONIC from the kernel (the vDSO may read the
                                      TSC, which faults in a thread that switched it off) */
uint64_t mt_clock_soft_ns(void);   /* the clock of the order points (not the CPU's), the same */
int64_t  mt_realtime_ns(int soft); /* CLOCK_REALTIME, ns since the epoch; soft as above */
void mt_clock_fall_back(uint64_t above);  /* the count from now on, from above */
uint64_t mt_ticks_soft(void);      /* clock_watch.c: the ticks without the CPU's counter */
void    *mt_vdso_sym(const char *name);   /* vdso.c: a vDSO function, or NULL */

/* Is the clock the CPU's TSC, however read? */
static inline int mt_clock_is_tsc(int kind)
{
	return kind == MTRACE_CLOCK_TSC || kind == MTRACE_CLOCK_TSC_LFENCE;
}

/* The clock at an order point */
static inline uint64_t mt_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (__builtin_expect(mt_clock_kind == MTRACE_CLOCK_TSC, 1)) {
		unsigned aux;
		return __rdtscp(&aux);
	}
	if (mt_clock_kind == MTRACE_CLOCK_TSC_LFENCE) {
		mt_lfence();
		return __rdtsc();
	}
#elif defined(__aarch64__)
	if (__builtin_expect(mt_clock_kind == MTRACE_CLOCK_CNTVCT, 1)) {
		uint64_t v;
		/* the barrier makes earlier loads complete before the counter is read */
		__asm__ volatile("dmb ish\n\tisb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
		return v;
	}
#endif
	return mt_clock_read();
}

/* A thread's clock.  A thread the program switched the time-stamp counter off for (PR_SET_TSC)
   would die of SIGSEGV reading it, and so reading CLOCK_MONOTONIC through the vDSO, which reads
   it too: such a thread asks the kernel.  The setting is inherited by a new thread, so it is
   asked of the kernel at a thread's first slow path (checked).

   While one thread at a time makes traced calls (mt_clock_solo), program order is the causal
   order: the owner of the count (mt_solo.owner) reads the clock at one order point in
   mt_clock_every, when another thread made an order point since its last read, or when
   CLOCK_MONOTONIC_COARSE (which the kernel's tick updates) moved, so an idle time longer than a
   tick is never hidden; in between each stamps the last one plus 1.  A call takes more than one
   tick of any clock, so a count never overtakes the clock.  "Did the tick move" is the load of
   the coarse clock's (seconds, nanoseconds) from the vDSO's data page where they were found
   there and seen to follow the clock (mt_coarse_word, clock.c), else the vDSO's function.
   Each other thread's order point reads the clock and raises mt_solo.others_ts to its stamp
   (before a free's release, before an allocation returns: whatever follows it causally sees
   that value or a later one); the owner's next order point then reads the clock, and its
   stamps stay above that value.  A new thread's first slow path takes the count over, before
   its first order point; the new owner counts only once its clock is one mt_clock_every of
   ticks past the takeover, above any stamp the old owner may still make from its count before
   it sees the takeover.  Too many takeovers or order points of the others end the count for
   good (threads that make calls side by side). */
struct mt_thread_clock {
	uint8_t notsc;                  /* the TSC is off for this thread */
	uint8_t checked;                /* notsc was asked of the kernel for this thread */
	uint8_t calls;                  /* the thread has reached the slow path of a traced call */
	uint32_t left;                  /* solo: order points to stamp from the count */
	uint64_t last;                  /* solo: the thread's last stamp */
	uint64_t coarse;                /* solo: CLOCK_MONOTONIC_COARSE at the last clock read */
	uint64_t since;                 /* solo: the clock when it took the count over */
	uint64_t seen;                  /* solo: mt_solo.others_ts at the last clock read */
	uint32_t other_points;          /* solo: its order points while another owned the count */
};
extern int mt_clock_solo;           /* one thread at a time makes calls (and it is worth it) */
struct mt_solo {                    /* written at a takeover and by the others' order points */
	struct mt_thread_clock *owner;  /* the thread that counts */
	uint64_t others_ts;             /* the highest stamp of the other threads */
	uint32_t takeovers;
} __attribute__((aligned(64)));
extern struct mt_solo mt_solo;
void mt_thread_clock_check(struct mt_thread_clock *c);      /* sandbox.c: PR_GET_TSC */
uint64_t mt_thread_ticks_unsure(struct mt_thread_clock *c); /* checked first if it was not */
uint64_t mt_thread_ticks_soft(struct mt_thread_clock *c);   /* clock_watch.c: the TSC off */
void mt_clock_thread_calls(struct mt_thread_clock *c);      /* a thread's first slow path */
void mt_clock_every_call(void);     /* durations: no order point from the count */
uint64_t mt_clock_coarse(void);     /* CLOCK_MONOTONIC_COARSE through the vDSO */
uint64_t mt_solo_read(struct mt_thread_clock *c);   /* the clock, for the count */
/* The vDSO data page's CLOCK_MONOTONIC_COARSE seconds, nanoseconds after them; or NULL */
extern const volatile uint64_t *mt_coarse_word;
void mt_clock_coarse_page(uintptr_t lo, uintptr_t len);   /* where to look for it, at start */
void mt_clock_coarse_recheck(void); /* a new time namespace: seen to agree again */
void mt_clock_fork_child(struct mt_thread_clock *c);   /* the child's one thread owns the count */
uint64_t mt_solo_other(struct mt_thread_clock *c, uint64_t ts);   /* a stamp of a thread that
                                                                     does not count */

/* CLOCK_MONOTONIC_COARSE in ns, for "did it move": without a seqlock, as the kernel writes it (a
   read torn by an update differs from the last value too, and the read that follows agrees) */
static inline uint64_t mt_coarse_word_ns(const volatile uint64_t *w)
{
	return w[0] * 1000000000u + w[1];
}

static inline uint64_t mt_coarse_now(void)
{
	const volatile uint64_t *w = __atomic_load_n(&mt_coarse_word, __ATOMIC_RELAXED);
	if (__builtin_expect(w != NULL, 1))
		return mt_coarse_word_ns(w);
	return mt_clock_coarse();
}

static inline uint64_t mt_solo_ticks(struct mt_thread_clock *c)
{
	if (__builtin_expect(c->left != 0, 1) &&
	    __atomic_load_n(&mt_solo.owner, __ATOMIC_RELAXED) == c &&
	    __atomic_load_n(&mt_solo.others_ts, __ATOMIC_RELAXED) == c->seen &&
	    mt_coarse_now() == c->coarse) {
		c->left--;
		return ++c->last;
	}
	return mt_solo_read(c);
}

/* At an order point of a traced call (its slow path has checked the setting) */
static inline uint64_t mt_call_ticks(struct mt_thread_clock *c)
{
	if (__builtin_expect(c->notsc, 0))
		return mt_thread_ticks_soft(c);
	if (__atomic_load_n(&mt_clock_solo, __ATOMIC_RELAXED))
		return mt_solo_ticks(c);
	return mt_ticks();
}

/* An order point anywhere else (a chunk, a sample, a large release): the clock itself,
   and the setting may not be known yet (a free's sample may come before the thread's first
   record) */
static inline uint64_t mt_thread_ticks(struct mt_thread_clock *c)
{
	if (__builtin_expect(c->notsc | !c->checked, 0))
		return mt_thread_ticks_unsure(c);
	if (__atomic_load_n(&mt_clock_solo, __ATOMIC_RELAXED))
		return mt_solo_read(c);
	return mt_ticks();
}

/* CLOCK_MONOTONIC as libc reads it, for pthread_cond_timedwait's deadlines: a library preloaded
   for the program (libfaketime) may change both alike */
static inline uint64_t mt_thread_ns_libc(const struct mt_thread_clock *c)
{
	struct timespec ts;
	if (__builtin_expect(c->notsc, 0))
		return mt_ns_soft();
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Pick the clock (once, at initialisation) and estimate its frequency. */
void mt_clock_init(void);
uint64_t mt_clock_estimate_hz(uint64_t ticks0, uint64_t ns0);
/* clock_watch.c */
int64_t  mt_clock_start(void);          /* a new file's calibration; CLOCK_REALTIME now */
uint64_t mt_clock_refine(uint64_t hz);  /* the rate measured so far, or hz */
uint64_t mt_chunk_ticks(void);          /* under lock: a new chunk's clock value */
void mt_clock_coarse_find(void);        /* at initialisation: the vDSO's data page */

#endif
