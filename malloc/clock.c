/* clock.c - the one place the tracer's clock is chosen, read and watched.
 *
 * In order of preference: the CPU's own counter (an invariant TSC, read with RDTSCP or else
 * LFENCE+RDTSC, not under valgrind, which may not run RDTSCP; aarch64's virtual counter),
 * CLOCK_MONOTONIC, and a count
 * taken at each order point.  CLOCK_MONOTONIC is read through the vDSO's own function, found in
 * its symbol table, or by a system call made here: never through libc's clock_gettime, which a
 * library preloaded for the program may replace (libfaketime stops it).  Each clock is seen to
 * advance before it is chosen, every wait on a clock is bounded by a number of reads, and a
 * clock that stops advancing while tracing (chunks taken at one value, clock_watch.c) is
 * replaced by the count, which orders the calls as well: a free's count precedes what its
 * release allowed.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "clock.h"
#include "mtrace-trace.h"

int mt_clock_kind = MTRACE_CLOCK_MONOTONIC;

#define ADVANCE_READS  (1u << 16)  /* reads a clock gets to show it advances */
#define HZ_READS       (1u << 20)  /* reads the rate estimate waits 50 us for at most */

struct kts { long sec, nsec; };    /* the kernel's timespec: 32-bit fields on i386 */

static int (*vdso_gettime)(clockid_t, struct kts *);
static clockid_t order_clock = CLOCK_MONOTONIC;   /* CLOCK_MONOTONIC_COARSE if asked */
static uint64_t count;             /* MTRACE_CLOCK_COUNTER's last value */

/* One thread making calls: the clock read once in so many of its order points (clock.h).  64:
   a read costs 10 to 30 ns, a call's stamp from the count well under 1 ns more than the
   coarse clock's load; a block's lifetime is still right to about 64 calls. */
#define EVERY_DEFAULT 64u
#define EVERY_MAX     4096u
int mt_clock_solo;
static uint32_t every = EVERY_DEFAULT;
struct mt_solo mt_solo;
/* The count ends for good at the TAKEOVERS_MAX-th takeover (thread churn: each new thread would
   write the line every call reads) and at a thread's OTHERS_MAX-th order point while another
   owns the count (two threads making calls side by side: each makes the owner read the
   clock). */
#define TAKEOVERS_MAX 4u
#define OTHERS_MAX    64u

/* The coarse clock in the vDSO's data page, where the kernel's tick stores its (seconds,
   nanoseconds), as clock_gettime returns them: found once by its value (mt_clock_coarse_page),
   then compared with the vDSO's function at each clock read of the count (coarse_agrees).  Its
   loads replace the function's calls once the two agreed at COARSE_CONFIRM different ticks;
   one disagreement (another layout, another page: a time namespace's) gives it up for good. */
#define COARSE_CONFIRM 3u
#define COARSE_STEP offsetof(struct { char c; uint64_t w; }, w)   /* a u64 field's alignment */
const volatile uint64_t *mt_coarse_word;
static const volatile uint64_t *coarse_found;
static uint64_t coarse_last;       /* the last tick the two agreed at */
static unsigned coarse_ticks;      /* how many ticks they agreed at */

/* ---------------------------------------------------------------------------------------------
   Reading the kernel's clocks
   ------------------------------------------------------------------------------------------- */

static long sys_gettime(long id, struct kts *ts)
{
	long r;
#if defined(__x86_64__)
	__asm__ volatile("syscall" : "=a"(r) : "0"((long)SYS_clock_gettime), "D"(id), "S"(ts)
			 : "rcx", "r11", "memory");
#elif defined(__i386__)
	__asm__ volatile("int $0x80" : "=a"(r) : "0"((long)SYS_clock_gettime), "b"(id), "c"(ts)
			 : "memory");
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = SYS_clock_gettime, x0 __asm__("x0") = id;
	register long x1 __asm__("x1") = (long)ts;
	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1) : "memory");
	r = x0;
#elif defined(__s390x__)
	register long r1 __asm__("r1") = SYS_clock_gettime, r2 __asm__("r2") = id;
	register long r3 __asm__("r3") = (long)ts;
	__asm__ volatile("svc 0" : "+d"(r2) : "d"(r1), "d"(r3) : "memory");
	r = r2;
#else
	r = syscall(SYS_clock_gettime, id, ts);   /* libc's, on the machines not named above */
#endif
	return r;
}

static inline uint64_t ns_of(const struct kts *ts)
{
	return (uint64_t)ts->sec * 1000000000u + (uint64_t)ts->nsec;
}

static uint64_t sys_ns(clockid_t id)
{
	struct kts ts = { 0, 0 };
	sys_gettime(id, &ts);
	return ns_of(&ts);
}

static uint64_t clock_ns(clockid_t id)
{
	struct kts ts = { 0, 0 };
	if (!vdso_gettime || vdso_gettime(id, &ts) != 0)
		sys_gettime(id, &ts);
	return ns_of(&ts);
}

uint64_t mt_monotonic_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t mt_ns_soft(void)
{
	return sys_ns(CLOCK_MONOTONIC);
}

uint64_t mt_clock_soft_ns(void)
{
	return sys_ns(order_clock);
}

int64_t mt_realtime_ns(int soft)
{
	return (int64_t)(soft ? sys_ns(CLOCK_REALTIME) : clock_ns(CLOCK_REALTIME));
}

uint64_t mt_clock_coarse(void)
{
	struct kts ts = { 0, 0 };
	vdso_gettime(CLOCK_MONOTONIC_COARSE, &ts);   /* (there is one while solo) */
	return ns_of(&ts);
}

uint64_t mt_clock_read(void)
{
	if (__atomic_load_n(&mt_clock_kind, __ATOMIC_ACQUIRE) == MTRACE_CLOCK_COUNTER)
		return __atomic_add_fetch(&count, 1, __ATOMIC_SEQ_CST);   /* a full barrier */
	return clock_ns(order_clock);
}

/* ---------------------------------------------------------------------------------------------
   Choosing
   ------------------------------------------------------------------------------------------- */

#if defined(__x86_64__) || defined(__i386__)
/* valgrind's "client request": a rotation of a register by twice its width, which does nothing
   on a CPU, then xchg of a register with itself; valgrind recognises the sequence and answers
   the request in the third register (RUNNING_ON_VALGRIND, 0x1001: how many valgrinds).  Its
   CPUID claims RDTSCP whatever the host has, and it cannot run RDTSCP on a host without it. */
static int under_valgrind(void)
{
	volatile unsigned long req[6] = { 0x1001, 0, 0, 0, 0, 0 };
	unsigned long r = 0;
#if defined(__x86_64__)
	__asm__ volatile("rolq $3, %%rdi\n\trolq $13, %%rdi\n\trolq $61, %%rdi\n\t"
			 "rolq $51, %%rdi\n\txchgq %%rbx, %%rbx"
			 : "+d"(r) : "a"(&req[0]) : "cc", "memory");
#else
	__asm__ volatile("roll $3, %%edi\n\troll $13, %%edi\n\troll $29, %%edi\n\t"
			 "roll $19, %%edi\n\txchgl %%ebx, %%ebx"
			 : "+d"(r) : "a"(&req[0]) : "cc", "memory");
#endif
	return r != 0;
}
#endif

/* Does the clock move within a bounded number of reads? */
static int advances(uint64_t (*read)(void))
{
	uint64_t t0 = read();
	for (unsigned i = 0; i < ADVANCE_READS; i++)
		if (read() != t0)
			return 1;
	return 0;
}

static uint64_t order_ns(void) { return clock_ns(order_clock); }
static uint64_t hw_ticks(void) { return mt_ticks(); }

/* The vDSO's clock_gettime, if there is one that agrees with the kernel's. */
static void vdso_init(void)
{
#if defined(__x86_64__) || defined(__i386__)
	void *f = mt_vdso_sym("__vdso_clock_gettime");
#elif defined(__aarch64__) || defined(__s390x__)
	void *f = mt_vdso_sym("__kernel_clock_gettime");
#else
	void *f = NULL;   /* elsewhere vDSO functions may not follow the C calling convention */
#endif
	vdso_gettime = (int (*)(clockid_t, struct kts *))f;
	struct kts ts = { 0, 0 };
	uint64_t a = sys_ns(CLOCK_MONOTONIC);
	if (vdso_gettime && vdso_gettime(CLOCK_MONOTONIC, &ts) != 0)
		vdso_gettime = NULL;
	uint64_t b = ns_of(&ts), c = sys_ns(CLOCK_MONOTONIC);
	if (b < a || b > c)   /* read between the kernel's two readings, or not at all */
		vdso_gettime = NULL;
}

/* ---------------------------------------------------------------------------------------------
   One thread: the count between reads
   ------------------------------------------------------------------------------------------- */

/* At initialisation: find the coarse clock's pair in the len bytes at lo (the first page of the
   vDSO's data), where it is once and only once.  Retried when a tick came between the clock's
   two reads around the search. */
void mt_clock_coarse_page(uintptr_t lo, uintptr_t len)
{
	if (!mt_clock_solo || !vdso_gettime)
		return;
	for (int tries = 0; tries < 4; tries++) {
		struct kts a = { 0, 0 }, b = { 0, 0 };
		const volatile uint64_t *hit = NULL;
		unsigned hits = 0;
		vdso_gettime(CLOCK_MONOTONIC_COARSE, &a);
		for (uintptr_t off = 0; off + 2 * sizeof(uint64_t) <= len; off += COARSE_STEP) {
			const volatile uint64_t *w = (const volatile uint64_t *)(lo + off);
			if (w[0] == (uint64_t)a.sec && w[1] == (uint64_t)a.nsec)
				hit = w, hits++;
		}
		vdso_gettime(CLOCK_MONOTONIC_COARSE, &b);
		if (ns_of(&a) != ns_of(&b))
			continue;
		if (hits == 1)
			__atomic_store_n(&coarse_found, hit, __ATOMIC_RELAXED);
		return;
	}
}

void mt_clock_coarse_recheck(void)
{
	__atomic_store_n(&mt_coarse_word, NULL, __ATOMIC_RELAXED);
	coarse_ticks = 0;
}

/* The coarse clock now (ns is the vDSO's), checked against the word found: the tick may come
   between the two reads, so the word may be one tick ahead once. */
static uint64_t coarse_agrees(uint64_t ns)
{
	const volatile uint64_t *w = __atomic_load_n(&coarse_found, __ATOMIC_RELAXED);
	for (int i = 0; w && i < 3; i++, ns = mt_clock_coarse()) {
		if (mt_coarse_word_ns(w) != ns)
			continue;
		if (ns != coarse_last && ++coarse_ticks >= COARSE_CONFIRM)
			__atomic_store_n(&mt_coarse_word, w, __ATOMIC_RELAXED);
		coarse_last = ns;
		return ns;
	}
	if (w) {
		__atomic_store_n(&coarse_found, NULL, __ATOMIC_RELAXED);
		__atomic_store_n(&mt_coarse_word, NULL, __ATOMIC_RELAXED);
	}
	return ns;
}

/* The stamp ts of an order point of a thread that does not own the count, raised above its
   last, and made the least stamp the owner's count may follow (before the call goes on: a
   free's release, an allocation's return). */
uint64_t mt_solo_other(struct mt_thread_clock *c, uint64_t ts)
{
	c->left = 0;
	if (ts <= c->last)
		ts = c->last + 1;
	if (!__atomic_load_n(&mt_clock_solo, __ATOMIC_RELAXED))
		return c->last = ts;
	uint64_t top = __atomic_load_n(&mt_solo.others_ts, __ATOMIC_RELAXED);
	while (top < ts && !__atomic_compare_exchange_n(&mt_solo.others_ts, &top, ts, 1,
							__ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		;   /* (bounded by the others' stamps, each made once) */
	if (++c->other_points >= OTHERS_MAX)
		mt_clock_every_call();
	return c->last = ts;
}

/* The clock at an order point of the thread making calls, and the count restarted from it
   (by its owner, once past its takeover), above the others' stamps it has seen.  (A stamp at
   most equal to the last is impossible for a clock that ticks faster than the calls come;
   taking the next value keeps the thread's order if one is not.) */
uint64_t mt_solo_read(struct mt_thread_clock *c)
{
	uint64_t ts = mt_ticks();
	if (__atomic_load_n(&mt_solo.owner, __ATOMIC_RELAXED) != c)
		return mt_solo_other(c, ts);
	uint64_t seen = __atomic_load_n(&mt_solo.others_ts, __ATOMIC_ACQUIRE);
	c->seen = seen;
	c->coarse = coarse_agrees(mt_clock_coarse());
	c->left = ts - c->since >= every ? every - 1 : 0;
	if (ts <= seen)
		ts = seen + 1;
	if (ts <= c->last)
		ts = c->last + 1;
	return c->last = ts;
}

/* A thread's first slow path (before its first order point): it takes the count over.  It
   stores the new owner before its first release, which a thread reusing the block acquires
   (through the allocator's lock or the program's own handoff) before its next order point
   loads the owner.  The old owner may have loaded itself as the owner just before: its stamps
   from the count stay below its last clock read plus mt_clock_every, a read made before this
   store; the new owner's count starts that far past its own read after the store (since). */
void mt_clock_thread_calls(struct mt_thread_clock *c)
{
	if (c->calls)
		return;
	c->calls = 1;
	if (!__atomic_load_n(&mt_clock_solo, __ATOMIC_SEQ_CST))
		return;   /* (the line that every call reads stays clean) */
	struct mt_thread_clock *first = NULL;
	if (__atomic_compare_exchange_n(&mt_solo.owner, &first, c, 0, __ATOMIC_SEQ_CST,
					__ATOMIC_SEQ_CST))
		return;   /* the first thread: nobody counted before it */
	if (__atomic_add_fetch(&mt_solo.takeovers, 1, __ATOMIC_SEQ_CST) >= TAKEOVERS_MAX) {
		mt_clock_every_call();
		return;
	}
	__atomic_store_n(&mt_solo.owner, c, __ATOMIC_SEQ_CST);
	c->since = mt_ticks();
}

/* The child's one thread: no other can be counting */
void mt_clock_fork_child(struct mt_thread_clock *c)
{
	__atomic_store_n(&mt_solo.owner, c, __ATOMIC_RELAXED);
	c->since = 0;
	c->calls = 1;
	mt_clock_coarse_recheck();   /* (its time namespace may be another) */
}

void mt_clock_every_call(void)
{
	__atomic_store_n(&mt_clock_solo, 0, __ATOMIC_SEQ_CST);
}

/* Is the count worth it, and safe?  A clock that ticks (not the count, not the coarse clock,
   which is too slow to order calls), and a coarse clock read from the vDSO, without a system
   call.  MTRACE_CTL_CLOCK_EVERY: a read once in so many calls (1: every call). */
static void solo_init(void)
{
	const char *e = secure_getenv("MTRACE_CTL_CLOCK_EVERY");
	if (e && *e) {
		unsigned long k = strtoul(e, NULL, 10);
		every = k < 1 ? 1 : k > EVERY_MAX ? EVERY_MAX : (uint32_t)k;
	}
	struct kts ts = { 0, 0 };
	mt_clock_solo = every > 1 && mt_clock_kind != MTRACE_CLOCK_COUNTER &&
			order_clock == CLOCK_MONOTONIC && vdso_gettime &&
			vdso_gettime(CLOCK_MONOTONIC_COARSE, &ts) == 0;
}

/* MTRACE_CTL_CLOCK: "monotonic" or "clock_gettime" (not the CPU's counter), "rdtscp" or
   "lfence-rdtsc" (the TSC read so, where the CPU can: each clock a test may try), "counter" (no
   clock: a count), or "coarse" (CLOCK_MONOTONIC_COARSE, which ticks every 1 to 10 ms: too
   coarse to order calls, so the tracer soon falls back to the count, which is what it is there
   to show). */
void mt_clock_init(void)
{
	vdso_init();
	const char *want = secure_getenv("MTRACE_CTL_CLOCK");
	want = want ? want : "";
	int kind = MTRACE_CLOCK_MONOTONIC;
#if defined(__aarch64__)
	kind = MTRACE_CLOCK_CNTVCT;
#elif defined(__x86_64__) || defined(__i386__)
	enum mt_tsc tsc = under_valgrind() ? MT_TSC_NONE : mt_tsc_best();
	int forced = mt_tsc_forced(want, tsc);
	if (forced >= 0)
		tsc = (enum mt_tsc)forced;
	kind = tsc == MT_TSC_RDTSCP ? MTRACE_CLOCK_TSC :
	       tsc == MT_TSC_LFENCE ? MTRACE_CLOCK_TSC_LFENCE : MTRACE_CLOCK_MONOTONIC;
#endif
	if (!strcmp(want, "counter")) {
		mt_clock_kind = MTRACE_CLOCK_COUNTER;
		return;
	}
	if (!strcmp(want, "coarse")) {
		order_clock = CLOCK_MONOTONIC_COARSE;
		mt_clock_kind = MTRACE_CLOCK_MONOTONIC;
		return;
	}
	if (!strcmp(want, "monotonic") || !strcmp(want, "clock_gettime"))
		kind = MTRACE_CLOCK_MONOTONIC;
	mt_clock_kind = kind;
	if (kind != MTRACE_CLOCK_MONOTONIC && !advances(hw_ticks))
		mt_clock_kind = kind = MTRACE_CLOCK_MONOTONIC;
	if (kind == MTRACE_CLOCK_MONOTONIC && !advances(order_ns)) {
		vdso_gettime = NULL;   /* maybe the kernel's own advances */
		if (!advances(order_ns))
			mt_clock_kind = MTRACE_CLOCK_COUNTER;
	}
	solo_init();
}

/* ---------------------------------------------------------------------------------------------
   Calibration
   ------------------------------------------------------------------------------------------- */

void mt_clock_fall_back(uint64_t above)
{
	mt_clock_every_call();
	__atomic_store_n(&count, above, __ATOMIC_RELAXED);
	__atomic_store_n(&mt_clock_kind, MTRACE_CLOCK_COUNTER, __ATOMIC_RELEASE);
}

/* Ticks per second, from a reference pair (ticks0, ns0) taken earlier.  When less than 50 us
   have passed we spin until they have: the error of one clock read (~20 ns) is then < 0.05%.
   A reference that does not get there within HZ_READS reads has stopped: the count takes over
   (its rate is nominal). */
uint64_t mt_clock_estimate_hz(uint64_t ticks0, uint64_t ns0)
{
	if (mt_clock_kind == MTRACE_CLOCK_MONOTONIC || mt_clock_kind == MTRACE_CLOCK_COUNTER)
		return 1000000000u;
#if defined(__aarch64__)
	uint64_t f;
	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(f));
	if (f)
		return f;
#endif
	uint64_t ns = ns0, ticks = ticks0;
	for (unsigned i = 0; i < HZ_READS && ns - ns0 < 50000; i++) {
		ns = mt_monotonic_ns();
		ticks = mt_ticks();
	}
	if (ns - ns0 < 50000 || ticks == ticks0) {
		mt_clock_fall_back(ticks + 1000000000u);
		return 1000000000u;
	}
	return (uint64_t)((double)(ticks - ticks0) * 1e9 / (double)(ns - ns0));
}
