/* clock.c - choosing the tick counter and measuring its frequency. */
#include "clock.h"
#include "mtrace-trace.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

int mt_clock_kind = MTRACE_CLOCK_MONOTONIC;

#if defined(__x86_64__) || defined(__i386__)
/* The TSC is usable across cores only when it is invariant (CPUID 0x80000007 EDX bit 8): it then
   ticks at a constant rate in every P/C-state, and the kernel keeps the cores in step. */
static int tsc_invariant(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
		return 0;
	__get_cpuid(0x80000007u, &a, &b, &c, &d);
	if (!(d & (1u << 8)))
		return 0;
	/* RDTSCP is CPUID 0x80000001 EDX bit 27 */
	__get_cpuid(0x80000001u, &a, &b, &c, &d);
	return (d >> 27) & 1;
}
#endif

void mt_clock_init(void)
{
#if defined(__aarch64__)
	mt_clock_kind = MTRACE_CLOCK_CNTVCT;
#elif defined(__x86_64__) || defined(__i386__)
	mt_clock_kind = tsc_invariant() ? MTRACE_CLOCK_TSC : MTRACE_CLOCK_MONOTONIC;
#endif
}

/* Ticks per second, from a reference pair (ticks0, ns0) taken earlier.  When less than 50 us
   have passed we spin until they have: the error of one clock_gettime (~20 ns) is then < 0.05%. */
uint64_t mt_clock_estimate_hz(uint64_t ticks0, uint64_t ns0)
{
	if (mt_clock_kind == MTRACE_CLOCK_MONOTONIC)
		return 1000000000u;
#if defined(__aarch64__)
	uint64_t f;
	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(f));
	if (f)
		return f;
#endif
	uint64_t ns, ticks;
	do {
		ns = mt_monotonic_ns();
		ticks = mt_ticks_before();
	} while (ns - ns0 < 50000);
	return (uint64_t)((double)(ticks - ticks0) * 1e9 / (double)(ns - ns0));
}
