/* hostile_sys - programs that do to their process's resources what a tracer must survive:
 * sandboxes, limits (address space, locked memory), namespaces, descriptors, a stderr nobody
 * reads, the trace's own memory unmapped or mapped over.  Each mode runs correctly untraced;
 * traced it must end the same way (tests/t_hostile.sh).
 *
 *   filter HOW       HOW = prctl|seccomp|syscall: 300,000 pairs, then a seccomp filter that
 *                    kills the process at madvise, fallocate, pwrite64, openat, ftruncate or
 *                    msync (what the tracer does, not libc's malloc), then 300,000 pairs
 *   sandboxmask      4 threads allocate while main installs an allow-all seccomp filter; once
 *                    each has made 100,000 more calls, prints how many were left with SIGTERM
 *                    blocked ("blocked 0" untraced)
 *   probe            100,000 pairs, two probes for seccomp (a NULL filter, by prctl and by
 *                    the system call: EFAULT), 100,000 pairs; prints the probes' results
 *   strict           300,000 pairs, then seccomp strict mode, small allocations, "ok", exit
 *   asgrab MB        takes MB MiB in 1 MiB blocks, touching them, among small allocations;
 *                    prints how many it got
 *   mlock [late]     mlockall(MCL_CURRENT|MCL_FUTURE), 500,000 pairs; prints the result and
 *                    VmLck; late: after 1,200,000 pairs
 *   overlap HOW      HOW = munmap|mprotect|fixed|raw: finds the trace's window in
 *                    /proc/self/maps and unmaps it, protects it, or maps its own memory over it
 *                    (raw: with a system call of its own), writes a pattern there, allocates
 *                    and checks the pattern; prints "pattern intact" or "pattern overwritten"
 *   rss N CALLS      N threads of CALLS pairs each, writing slowly; prints "hwm_kb K"
 *   brokenpipe       stderr a pipe nobody reads any more (SIGPIPE at its default), then the
 *                    trace's window unmapped (the tracer warns); prints what overlap prints
 *   fdsteal          1,000,000 pairs (the tracer's own thread runs by then), then for 1.5 s
 *                    opens /dev/null and checks it gets the lowest free descriptor, as it would
 *                    untraced; prints "lowest always" or how often another was returned
 *   userns           1,200,000 pairs (the tracer's thread runs by then), then
 *                    unshare(CLONE_NEWUSER), which needs a single-threaded process; prints
 *                    "unshare 0" or its error
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "hostile.h"

/* ---------------------------------------------------------------------------------------------
   Sandboxes
   ------------------------------------------------------------------------------------------- */

static int filter_mode(const char *how)
{
	pairs(300000, 100);   /* 38 MB of trace: the populating thread runs */
	static const int forbidden[] = {
		SYS_madvise, SYS_fallocate, SYS_pwrite64, SYS_openat, SYS_ftruncate, SYS_msync,
#ifdef SYS_open
		SYS_open,
#endif
	};
	enum { NF = sizeof forbidden / sizeof forbidden[0] };
	struct sock_filter f[3 + 2 * NF];
	int n = 0;
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, nr));
	for (int i = 0; i < NF; i++) {
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						      (unsigned)forbidden[i], 0, 1);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	}
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { (unsigned short)n, f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return 2;
	int r;
	if (strcmp(how, "prctl") == 0)
		r = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
	else if (strcmp(how, "seccomp") == 0)
		r = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC,
				 &prog);
	else
		r = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
	if (r != 0) {
		perror("seccomp");
		return 2;
	}
	pairs(300000, 100);   /* (no thread now: glibc's thread exit calls madvise) */
	printf("sandboxed ok\n");
	fflush(stdout);
	return 0;
}

static int strict_mode(void)
{
	pairs(300000, 100);
	void *keep = malloc(1 << 20);   /* the heap grown once: no system call for what follows */
	free(keep);
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0) != 0)
		return 2;
	pairs(100000, 100);
	if (write(1, "strict ok\n", 10) != 10)
		syscall(SYS_exit, 3);
	syscall(SYS_exit, 0);   /* strict mode allows exit, not exit_group */
	return 0;
}

/* ---------------------------------------------------------------------------------------------
   Limits
   ------------------------------------------------------------------------------------------- */

static int asgrab_mode(long mb)
{
	long got = 0;
	for (long i = 0; i < mb; i++) {
		char *p = malloc(1 << 20);
		if (p == NULL)
			break;
		memset(p, 1, 1 << 20);
		got++;
		pairs(200, 50);
	}
	printf("got %ld MiB\n", got);
	return 0;
}

static long status_kb(const char *field)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;
	size_t n = strlen(field);
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, field, n) == 0 && line[n] == ':')
			v = atol(line + n + 1);
	if (f)
		fclose(f);
	return v;
}

static int mlock_mode(const char *when)
{
	if (strcmp(when, "late") == 0)
		pairs(1200000, 16);   /* (the tracer's thread runs by then) */
	int r = mlockall(MCL_CURRENT | MCL_FUTURE);
	printf("mlockall %s\n", r == 0 ? "ok" : strerror(errno));
	pairs(500000, 100);
	printf("vmlck_kb %ld\n", status_kb("VmLck"));
	return 0;
}

static int rss_mode(int nthreads, long calls)
{
	pthread_t t[256];
	if (nthreads > 256)
		nthreads = 256;
	for (int i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, pairs_thread, (void *)(intptr_t)calls);
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	printf("hwm_kb %ld\n", status_kb("VmHWM"));
	return 0;
}

/* ---------------------------------------------------------------------------------------------
   The trace's own memory
   ------------------------------------------------------------------------------------------- */

/* The first mapping of a file whose name starts with prefix ($MTRACE_CTL_FILE). */
static int find_window(const char *prefix, char **lo, size_t *len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4352];
	int found = 0;
	while (f && !found && fgets(line, sizeof line, f)) {
		unsigned long a, b;
		char *path = strchr(line, '/');
		if (path && sscanf(line, "%lx-%lx", &a, &b) == 2 &&
		    strncmp(path, prefix, strlen(prefix)) == 0) {
			*lo = (char *)a;
			*len = b - a;
			found = 1;
		}
	}
	if (f)
		fclose(f);
	return found;
}

static void *raw_mmap(void *addr, size_t len, int prot, int flags)
{
#if defined(__x86_64__)
	long r;
	register long r10 __asm__("r10") = flags;
	register long r8 __asm__("r8") = -1;
	register long r9 __asm__("r9") = 0;
	__asm__ volatile("syscall" : "=a"(r) : "0"(SYS_mmap), "D"(addr), "S"(len), "d"(prot),
			 "r"(r10), "r"(r8), "r"(r9) : "rcx", "r11", "memory");
	return (void *)r;
#else
	(void)addr, (void)len, (void)prot, (void)flags;
	return MAP_FAILED;
#endif
}

static int overlap_mode(const char *how)
{
	pairs(20000, 100);
	const char *base = getenv("MTRACE_CTL_FILE");
	char *lo;
	size_t len;
	if (base == NULL || !find_window(base, &lo, &len)) {
		printf("no window found\n");
		return 77;
	}
	char *mine = lo;
	if (strcmp(how, "munmap") == 0)
		mine = munmap(lo, len) == 0 ? mmap(NULL, len, PROT_READ | PROT_WRITE,
					     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : MAP_FAILED;
	else if (strcmp(how, "mprotect") == 0) {
		if (mprotect(lo, len, PROT_READ) != 0) {
			perror(how);
			return 2;
		}
		pairs(100000, 100);   /* records written into a read-only window would fault */
		printf("survived\n");
		return 0;
	}
	else if (strcmp(how, "fixed") == 0)
		mine = mmap(lo, len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	else if (strcmp(how, "raw") == 0) {
		mine = raw_mmap(lo, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED);
		if (mine == MAP_FAILED) {
			printf("no raw system call here\n");
			return 77;
		}
	}
	if (mine == MAP_FAILED) {
		perror(how);
		return 2;
	}
	memset(mine, 0x5a, len);
	pairs(100000, 100);
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)mine[i] != 0x5a) {
			printf("pattern overwritten\n");
			return 0;
		}
	printf("pattern intact\n");
	return 0;
}

/* ---------------------------------------------------------------------------------------------
   Descriptors: the program's open() gets the number it would get untraced
   ------------------------------------------------------------------------------------------- */

static int fdsteal_mode(void)
{
	pairs(1000000, 64);
	int lowest = open("/dev/null", O_RDONLY);
	close(lowest);
	struct timespec from, t;
	clock_gettime(CLOCK_MONOTONIC, &from);
	long opens = 0, other = 0;
	do {
		for (int i = 0; i < 100; i++, opens++) {
			int fd = open("/dev/null", O_RDONLY);
			other += fd != lowest;
			close(fd);
		}
		pairs(100, 64);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - from.tv_sec) * 1000000000L + (t.tv_nsec - from.tv_nsec) < 1500000000L);
	if (other)
		printf("%ld of %ld opens did not get descriptor %d\n", other, opens, lowest);
	else
		printf("lowest always\n");
	return 0;
}

/* sandboxmask: threads in the tracer's lock when the filter comes must get their signal mask
   back (the tracer finishes the trace under its lock then, and the thread waiting for it had
   blocked its signals) */
static volatile int sm_stop;
static long sm_calls[4];

static void *sm_thread(void *arg)
{
	long *n = arg;
	while (!sm_stop) {
		void *volatile p = malloc(64);
		free(p);
		__atomic_add_fetch(n, 1, __ATOMIC_RELAXED);
	}
	sigset_t cur;
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	return (void *)(long)sigismember(&cur, SIGTERM);
}

static void sm_wait(long at[4], long more)
{
	for (int i = 0; i < 4; i++)
		while (__atomic_load_n(&sm_calls[i], __ATOMIC_RELAXED) < at[i] + more)
			sched_yield();
}

static int sandboxmask_mode(void)
{
	pthread_t th[4];
	long at[4] = { 0 };
	for (int i = 0; i < 4; i++)
		if (pthread_create(&th[i], NULL, sm_thread, &sm_calls[i]) != 0)
			return 2;
	sm_wait(at, 100000);
	struct sock_filter f[] = { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
	struct sock_fprog prog = { 1, f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
		printf("seccomp: %s\n", strerror(errno));
		return 77;
	}
	for (int i = 0; i < 4; i++)
		at[i] = __atomic_load_n(&sm_calls[i], __ATOMIC_RELAXED);
	sm_wait(at, 100000);
	sm_stop = 1;
	int blocked = 0;
	for (int i = 0; i < 4; i++) {
		void *r;
		pthread_join(th[i], &r);
		blocked += r != NULL;
	}
	printf("blocked %d\n", blocked);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *mode = argc > 1 ? argv[1] : "";
	const char *arg = argc > 2 ? argv[2] : "";
	if (strcmp(mode, "filter") == 0)
		return filter_mode(arg);
	if (strcmp(mode, "sandboxmask") == 0)
		return sandboxmask_mode();
	if (strcmp(mode, "probe") == 0) {
		pairs(100000, 64);
		int r1 = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, NULL, 0, 0);
		int e1 = errno;
		int r2 = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, NULL);
		int e2 = errno;
		pairs(100000, 64);
		printf("probes %d %s, %d %s\n", r1, strerror(e1), r2, strerror(e2));
		return 0;
	}
	if (strcmp(mode, "strict") == 0)
		return strict_mode();
	if (strcmp(mode, "asgrab") == 0)
		return asgrab_mode(atol(arg));
	if (strcmp(mode, "mlock") == 0)
		return mlock_mode(arg);
	if (strcmp(mode, "overlap") == 0)
		return overlap_mode(arg);
	if (strcmp(mode, "brokenpipe") == 0) {
		int fds[2];
		if (pipe(fds) != 0 || dup2(fds[1], 2) < 0)
			return 2;
		close(fds[0]);
		close(fds[1]);
		signal(SIGPIPE, SIG_DFL);
		return overlap_mode("munmap");
	}
	if (strcmp(mode, "fdsteal") == 0)
		return fdsteal_mode();
	if (strcmp(mode, "userns") == 0) {
		pairs(1200000, 16);
		int r = unshare(CLONE_NEWUSER);
		printf("unshare %s\n", r == 0 ? "0" : strerror(errno));
		return 0;
	}
	if (strcmp(mode, "rss") == 0)
		return rss_mode(atoi(arg), argc > 3 ? atol(argv[3]) : 100000);
	fprintf(stderr, "%s: unknown mode '%s'\n", argv[0], mode);
	return 2;
}
