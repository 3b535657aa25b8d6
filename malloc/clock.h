/* clock.h - the tick counter behind every timestamp.
 *
 * Two reads with different fences, because of the ordering rules in mtrace-trace.h:
 *   mt_ticks_before(): for a point that must precede what the call does next (a free's release).
 *     RDTSC retires before any later store can become visible, so no fence is needed.
 *   mt_ticks_after(): for a point that must follow what the call did (an allocation's result).
 *     RDTSCP waits until every earlier instruction has executed and earlier loads are globally
 *     visible, so the tick cannot be taken before the allocator read the freed memory.
 * Without an invariant TSC (or off x86) we use CLOCK_MONOTONIC or the aarch64 virtual counter.
 */
#ifndef MT_CLOCK_H
#define MT_CLOCK_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

extern int mt_clock_kind;   /* enum mtrace_clock chosen by mt_clock_init() */

static inline uint64_t mt_monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t mt_ticks_before(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (__builtin_expect(mt_clock_kind == 1 /* MTRACE_CLOCK_TSC */, 1))
		return __rdtsc();
#elif defined(__aarch64__)
	uint64_t v;
	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
#endif
	return mt_monotonic_ns();
}

static inline uint64_t mt_ticks_after(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (__builtin_expect(mt_clock_kind == 1 /* MTRACE_CLOCK_TSC */, 1)) {
		unsigned aux;
		return __rdtscp(&aux);
	}
#elif defined(__aarch64__)
	uint64_t v;
	/* the barrier makes earlier loads complete before the counter is read */
	__asm__ volatile("dmb ish\n\tisb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
#endif
	return mt_monotonic_ns();
}

/* Pick the clock (once, at initialisation) and estimate its frequency. */
void mt_clock_init(void);
uint64_t mt_clock_estimate_hz(uint64_t ticks0, uint64_t ns0);

#endif
