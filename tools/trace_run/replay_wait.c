/* replay_wait.c - a wait for another stream that is not already satisfied, and the signal
 * points that end it. */
#define _GNU_SOURCE
#include "replay_int.h"

/* ---------------------------------------------------------------------------------------------
   Waiting: a short spin, then a sleep on the signal point's futex word
   ------------------------------------------------------------------------------------------- */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

__attribute__((noinline)) void replay_wait_slow(struct rthread *me, uint32_t u, uint64_t k)
{
	struct rthread *o = &me->x->t[u];
	struct seen *e = &me->seen[u & (SEEN_WAYS - 1)];
	for (int i = 0; i < 4000; i++) {
		uint64_t c = __atomic_load_n(&o->count, __ATOMIC_ACQUIRE);
		if (c >= k) {
			e->u = u, e->count = c;
			return;
		}
		cpu_relax();
	}
	me->slept++;
	__atomic_store_n(&me->waiting, u + 1, __ATOMIC_RELAXED);
	/* Sleep on the futex word of u's signal point k (every count waited for is one): u sets
	   it and wakes its sleepers when it gets there, and no one else (waking every sleeper of
	   u at each of its signal points made a thousand-thread replay crawl).  We count ourselves
	   in, then the kernel checks the word; u sets the word, then reads the count of sleepers
	   (both sequentially consistent): either u sees us, or we see the word set.  The timeout
	   is a safety net only, growing to 64 ms. */
	size_t lo = 0, hi = o->nsig;   /* lower bound of k in sig0 */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (o->sig0[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	struct sigw *w = lo < o->nsig && o->sig0[lo] == k ? &o->sigw[lo] : NULL;
	if (w)
		__atomic_fetch_add(&w->sleepers, 1, __ATOMIC_SEQ_CST);
	long ns = 1000000;
	for (;;) {
		uint64_t c = __atomic_load_n(&o->count, __ATOMIC_ACQUIRE);
		if (c >= k)
			break;
		/* a stream no worker has taken yet (more streams than workers, every worker
		   waiting): workers enough to take it, or this wait would be for ever */
		for (uint32_t n = __atomic_load_n(&me->x->next, __ATOMIC_ACQUIRE); u >= n; n++)
			if (!replay_add_worker(me->x))
				break;
		struct timespec ts = { 0, ns };
		if (w)
			futex(&w->done, FUTEX_WAIT_PRIVATE, 0, &ts);
		else
			nanosleep(&ts, NULL);   /* (not a signal point: cannot happen) */
		ns = ns < 32000000 ? ns * 2 : 64000000;
	}
	__atomic_store_n(&me->waiting, 0, __ATOMIC_RELAXED);
	e->u = u, e->count = __atomic_load_n(&o->count, __ATOMIC_ACQUIRE);
}

/* ---------------------------------------------------------------------------------------------
   Signal points: the counts some thread waits for, each with a futex word
   ------------------------------------------------------------------------------------------- */

int replay_signal_points(const struct replay_plan *p, struct rthread *t, uint32_t nt,
			 uint64_t *harness)
{
	struct sigw *words = replay_map_zero(p->npoints * sizeof *words, harness);
	if (!words)
		return -1;
	replay_prefault(words, p->npoints * sizeof *words, (size_t)sysconf(_SC_PAGESIZE));
	*harness += p->map_bytes;
	for (uint32_t u = 0; u < nt; u++) {
		t[u].sig = t[u].sig0 = p->points + p->start[u];
		t[u].sigw = words + p->start[u];
		t[u].nsig = p->count[u];
	}
	return 0;
}
