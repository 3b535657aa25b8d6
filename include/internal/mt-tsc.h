/* mt-tsc.h - what the CPU's time-stamp counter is worth, one definition for the tracer's clock
 * and trace_run's timer.  Header-only: the tracer links no tool code.
 *
 * The TSC orders events across cores only when it is invariant (CPUID 0x80000007 EDX bit 8): it
 * then ticks at one rate in every P- and C-state and the kernel keeps the cores in step.  That
 * bit is what Linux shows as constant_tsc and nonstop_tsc, so /proc/cpuinfo says nothing more.
 * RDTSCP (CPUID 0x80000001 EDX bit 27) reads it after every earlier instruction has executed;
 * without it (common under KVM) LFENCE before RDTSC waits for the same: earlier loads done.
 */
#ifndef MT_TSC_H
#define MT_TSC_H
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

enum mt_tsc { MT_TSC_NONE, MT_TSC_LFENCE, MT_TSC_RDTSCP };   /* best read first: last */

static inline enum mt_tsc mt_tsc_best(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
		return MT_TSC_NONE;
	__get_cpuid(0x80000007u, &a, &b, &c, &d);
	if (!(d & (1u << 8)))
		return MT_TSC_NONE;
	__get_cpuid(0x80000001u, &a, &b, &c, &d);
	return (d >> 27) & 1 ? MT_TSC_RDTSCP : MT_TSC_LFENCE;
#else
	return MT_TSC_NONE;
#endif
}

/* The read a name forces (MTRACE_CTL_CLOCK, MTRACE_RUN_TIMER), if the CPU has it: "rdtscp",
   "lfence-rdtsc" (where RDTSCP is, its fenced read works as well), else -1 (not a TSC name,
   or one the CPU cannot do, which leaves the choice to the caller). */
static inline int mt_tsc_forced(const char *want, enum mt_tsc best)
{
	if (!strcmp(want, "rdtscp"))
		return best >= MT_TSC_RDTSCP ? MT_TSC_RDTSCP : -1;
	if (!strcmp(want, "lfence-rdtsc"))
		return best >= MT_TSC_LFENCE ? MT_TSC_LFENCE : -1;
	return -1;
}

/* LFENCE as an instruction, not _mm_lfence(): that one needs SSE2 enabled at compile time,
   which 32-bit x86 builds do not assume (every CPU with an invariant TSC has it) */
#if defined(__x86_64__) || defined(__i386__)
#define mt_lfence() __asm__ volatile("lfence" ::: "memory")
#endif

#endif
