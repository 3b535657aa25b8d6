/* cycles.h - the timer around each replayed call.
 *
 * x86 with an invariant TSC: LFENCE, RDTSC, LFENCE before the call (earlier work finishes first,
 * the call does not start early); after it RDTSCP, LFENCE (the call has finished, later work
 * waits), or LFENCE, RDTSC, LFENCE on a CPU without RDTSCP (the same wait).  No CPUID: it traps
 * to the hypervisor on virtual machines and costs more than the calls measured.  Elsewhere: the
 * aarch64 virtual counter, or clock_gettime in nanoseconds; cycles_name() says which, and the
 * summary prints it.
 */
#ifndef CYCLES_H
#define CYCLES_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif
#include "internal/mt-tsc.h"

enum { TIMER_RDTSCP = 1, TIMER_CNTVCT = 2, TIMER_CLOCK = 3, TIMER_LFENCE = 4 };

extern int cycles_timer;

static inline uint64_t clock_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void cycles_init(void)
{
	/* MTRACE_RUN_TIMER=clock (or clock_gettime): clock_gettime whatever the CPU has (a TSC
	   not to be trusted, or the figures of a machine without a cycle counter); rdtscp or
	   lfence-rdtsc: the TSC read so, where the CPU can */
	const char *force = getenv("MTRACE_RUN_TIMER");
	force = force ? force : "";
	if (!strcmp(force, "clock") || !strcmp(force, "clock_gettime")) {
		cycles_timer = TIMER_CLOCK;
		return;
	}
#if defined(__x86_64__) || defined(__i386__)
	/* (CPUID read once here, never in the timed path) */
	enum mt_tsc tsc = mt_tsc_best();
	int forced = mt_tsc_forced(force, tsc);
	if (forced >= 0)
		tsc = (enum mt_tsc)forced;
	if (tsc != MT_TSC_NONE) {
		cycles_timer = tsc == MT_TSC_RDTSCP ? TIMER_RDTSCP : TIMER_LFENCE;
		return;
	}
#elif defined(__aarch64__)
	cycles_timer = TIMER_CNTVCT;
	return;
#endif
	cycles_timer = TIMER_CLOCK;
}

/* What a timed call's count is in: LAT_UNIT_CYCLES, _TICKS or _NS (lat_hist.h) */
static inline const char *cycles_unit(void)
{
	return cycles_timer == TIMER_RDTSCP || cycles_timer == TIMER_LFENCE ? "cycles" :
	       cycles_timer == TIMER_CNTVCT ? "ticks" : "ns";
}

static inline const char *cycles_name(void)
{
	switch (cycles_timer) {
	case TIMER_RDTSCP: return "rdtscp (TSC cycles)";
	case TIMER_LFENCE: return "lfence-rdtsc (TSC cycles)";
	case TIMER_CNTVCT: return "cntvct_el0 (counter ticks)";
	default: return getenv("MTRACE_RUN_TIMER") ? "clock_gettime (nanoseconds; MTRACE_RUN_TIMER)"
						 : "clock_gettime (nanoseconds; no cycle counter)";
	}
}

#if defined(__aarch64__)
/* the virtual counter, between barriers so that the call timed neither starts early nor ends
   late */
static inline uint64_t cycles_cntvct(void)
{
	uint64_t v;
	__asm__ volatile("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(v) : : "memory");
	return v;
}
#endif

static inline uint64_t cycles_start(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (__builtin_expect(cycles_timer == TIMER_RDTSCP || cycles_timer == TIMER_LFENCE, 1)) {
		mt_lfence();
		uint64_t t = __rdtsc();
		mt_lfence();
		return t;
	}
#elif defined(__aarch64__)
	return cycles_cntvct();
#endif
	return clock_ns();
}

static inline uint64_t cycles_end(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (__builtin_expect(cycles_timer == TIMER_RDTSCP, 1)) {
		unsigned aux;
		uint64_t t = __rdtscp(&aux);
		mt_lfence();
		return t;
	}
	if (cycles_timer == TIMER_LFENCE) {
		mt_lfence();
		uint64_t t = __rdtsc();
		mt_lfence();
		return t;
	}
#elif defined(__aarch64__)
	return cycles_cntvct();
#endif
	return clock_ns();
}
#endif
