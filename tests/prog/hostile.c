/* hostile - programs that do to their process what a tracer must survive.  Each mode runs
 * correctly untraced; traced it must end the same way (tests/t_hostile.sh).
 *
 *   cancel           20 threads, each cancelled while it allocates (deferred cancellation)
 *   sigfork N        a 500 us timer whose handler forks (the child _exits) while main allocates
 *                    N times; prints "forks K"
 *   sigforkrun N     a 1 ms timer whose handler forks; each child goes on from where the handler
 *                    interrupted it, makes 1,000 pairs and _exits; the parent waits for N
 *                    children; prints "children failed K"
 *   sigexit          the timer's handler calls exit(0) after 20 ms of allocating
 *   rawfork HOW      HOW = _Fork|syscall|clone: 10,000 malloc(100) in the parent, 10,000
 *                    malloc(1100) in a child made without fork() (no atfork handler runs)
 *   altfork          a handler on an alternate stack forks; the child prints how deep the stack
 *                    went ("depth N"), handler and fork and what ran in the child included
 *   orphan           a child made by syscall(SYS_fork) that allocates after its parent is gone;
 *                    it writes "orphan ok" into the file named by $HOSTILE_OUT
 *   notsc            the TSC switched off (PR_SET_TSC), then allocations in main and a thread,
 *                    and a thread whose first call frees a 1 MiB block
 *   filter HOW       HOW = prctl|seccomp|syscall: 300,000 pairs, then a seccomp filter that
 *                    kills the process at madvise, fallocate, pwrite64, openat, ftruncate or
 *                    msync (what the tracer does, not libc's malloc), then 300,000 pairs
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
 *   errno            free() leaves errno alone (POSIX.1-2024): 100,000 frees, some of 2 MiB
 *                    blocks, then the first call of a _Fork() child that cannot open a file
 *                    (RLIMIT_NOFILE 3) is a free; prints "errno kept" or what changed it
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

static void pairs(long n, size_t size)
{
	for (long i = 0; i < n; i++) {
		void *volatile p = malloc(size + (size_t)(i & 255));
		free(p);
	}
}

static void *pairs_thread(void *arg)
{
	pairs((long)(intptr_t)arg, 64);
	return NULL;
}

/* ---------------------------------------------------------------------------------------------
   Cancellation and signal handlers
   ------------------------------------------------------------------------------------------- */

static void *cancel_me(void *arg)
{
	(void)arg;
	for (;;) {
		pairs(10000, 64);
		pthread_testcancel();
	}
	return NULL;
}

static int cancel_mode(void)
{
	for (int i = 0; i < 20; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, cancel_me, NULL) != 0)
			return 2;
		struct timespec d = { 0, 2000000 };
		nanosleep(&d, NULL);
		pthread_cancel(t);
		pthread_join(t, NULL);
	}
	printf("cancelled 20\n");
	return 0;
}

static volatile sig_atomic_t forks;

/* sigforkrun: the child goes on from where the handler interrupted its parent (in the tracer,
   often), allocates, and ends; the parent waits for every child at the end */
static volatile sig_atomic_t in_child;
static pid_t run_kids[4096];
static volatile sig_atomic_t n_run_kids;

static void fork_run_handler(int sig)
{
	(void)sig;
	if (in_child || n_run_kids == (sig_atomic_t)(sizeof run_kids / sizeof run_kids[0]))
		return;
	int e = errno;
	pid_t pid = fork();
	if (pid == 0)
		in_child = 1;
	else if (pid > 0)
		run_kids[n_run_kids++] = pid;
	errno = e;
}

static int sigforkrun_mode(long want)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fork_run_handler;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
	setitimer(ITIMER_REAL, &it, NULL);
	long after = 0;
	while (n_run_kids < want) {
		void *volatile p = malloc(24);
		free(p);
		if (in_child && ++after > 1000)
			_exit(0);
	}
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	int failed = 0;
	for (int i = 0; i < n_run_kids; i++) {
		int st;
		if (waitpid(run_kids[i], &st, 0) != run_kids[i] || !WIFEXITED(st) || WEXITSTATUS(st))
			failed++;
	}
	printf("children failed %d\n", failed);
	return 0;
}

static void fork_handler(int sig)
{
	(void)sig;
	int e = errno;
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid > 0) {
		waitpid(pid, NULL, 0);
		forks++;
	}
	errno = e;
}

static char *alt_lo;
static size_t alt_size;

/* In the child: how deep the stack went in the handler, the fork and what ran in the child
   before fork returned (the alternate stack was filled with 0xa5 beforehand). */
static void altfork_handler(int sig)
{
	(void)sig;
	pid_t pid = fork();
	if (pid == 0) {
		size_t i = 0;
		while (i < alt_size && (unsigned char)alt_lo[i] == 0xa5)
			i++;
		char line[32];
		int n = snprintf(line, sizeof line, "depth %zu\n", alt_size - i);
		if (write(1, line, (size_t)n) != n)
			_exit(1);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

/* A handler on a small stack of its own (as a program that catches stack overflows runs its
   SIGSEGV handler) forks: what the tracer does in the child must fit. */
static int altfork_mode(void)
{
	/* 16 KiB with an inaccessible page below it, so that running past its end faults */
	long ps = sysconf(_SC_PAGESIZE);
	alt_size = 16384;
	char *area = mmap(NULL, (size_t)ps + alt_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED || mprotect(area, (size_t)ps, PROT_NONE) != 0)
		return 2;
	alt_lo = area + ps;
	stack_t ss = { .ss_sp = alt_lo, .ss_size = alt_size };
	if (sigaltstack(&ss, NULL) != 0)
		return 2;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = altfork_handler;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	pairs(1000, 100);
	memset(alt_lo, 0xa5, alt_size);
	raise(SIGUSR1);
	pairs(1000, 100);
	return 0;
}

static struct timespec t0;

static void exit_handler(int sig)
{
	(void)sig;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if ((now.tv_sec - t0.tv_sec) * 1000000000L + now.tv_nsec - t0.tv_nsec > 20000000L)
		exit(0);
}

static void timer(void (*handler)(int))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { { 0, 500 }, { 0, 500 } };
	setitimer(ITIMER_REAL, &it, NULL);
}

/* ---------------------------------------------------------------------------------------------
   Children made without fork()
   ------------------------------------------------------------------------------------------- */

static int child_allocs(void *arg)
{
	(void)arg;
	for (int i = 0; i < 10000; i++) {
		void *volatile p = malloc(1100);
		free(p);
	}
	return 0;
}

static pid_t raw_child(const char *how)
{
	pid_t pid = -1;
	if (strcmp(how, "_Fork") == 0) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 34)
		pid = _Fork();
#else
		pid = (pid_t)syscall(SYS_fork);
#endif
	} else if (strcmp(how, "syscall") == 0) {
#ifdef SYS_fork
		pid = (pid_t)syscall(SYS_fork);
#else
		pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
#endif
	} else if (strcmp(how, "clone") == 0) {
		static char stack[256 * 1024] __attribute__((aligned(16)));
		return clone(child_allocs, stack + sizeof stack, SIGCHLD, NULL);
	}
	if (pid == 0)
		_exit(child_allocs(NULL));
	return pid;
}

static int rawfork_mode(const char *how)
{
	for (int i = 0; i < 5000; i++) {
		void *volatile p = malloc(100);
		free(p);
	}
	pid_t pid = raw_child(how);
	if (pid < 0) {
		perror("child");
		return 2;
	}
	for (int i = 0; i < 5000; i++) {
		void *volatile p = malloc(100);
		free(p);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		printf("child failed: status %d\n", st);
		return 1;
	}
	printf("child ok\n");
	return 0;
}

static int orphan_mode(void)
{
	pairs(1000, 100);
	pid_t parent = getpid();
#ifdef SYS_fork
	pid_t pid = (pid_t)syscall(SYS_fork);
#else
	pid_t pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
#endif
	if (pid == 0) {
		while (getppid() == parent)   /* until the parent has exited (and trimmed its file) */
			usleep(1000);
		pairs(100000, 1100);
		const char *out = getenv("HOSTILE_OUT");
		int fd = out ? open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644) : -1;
		if (fd >= 0 && write(fd, "orphan ok\n", 10) == 10)
			close(fd);
		_exit(0);
	}
	pairs(100000, 100);
	return 0;
}

/* ---------------------------------------------------------------------------------------------
   The TSC, sandboxes
   ------------------------------------------------------------------------------------------- */

static void *big_block;

static void *free_big_block(void *unused)
{
	(void)unused;
	free(big_block);
	return NULL;
}

static int notsc_mode(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) != 0) {
		perror("PR_SET_TSC");
		return 77;
	}
	pairs(100000, 100);
	pthread_t t;
	pthread_create(&t, NULL, pairs_thread, (void *)(intptr_t)100000);
	pthread_join(t, NULL);
	/* a thread whose first call gives a large block back (its resident bytes, perhaps a
	   sample, come before its first record) */
	big_block = malloc(1 << 20);
	memset(big_block, 1, 1 << 20);
	pthread_create(&t, NULL, free_big_block, NULL);
	pthread_join(t, NULL);
	printf("ok\n");
	return 0;
#else
	printf("no TSC here\n");
	return 77;
#endif
}

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
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	for (int i = 0; i < NF; i++) {
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)forbidden[i], 0, 1);
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
		r = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog);
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
		if (path && sscanf(line, "%lx-%lx", &a, &b) == 2 && strncmp(path, prefix, strlen(prefix)) == 0) {
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
		mine = mmap(lo, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	else if (strcmp(how, "raw") == 0) {
		mine = raw_mmap(lo, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED);
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

/* ---------------------------------------------------------------------------------------------
   errno across free()
   ------------------------------------------------------------------------------------------- */

static int errno_mode(void)
{
	for (int i = 0; i < 100000; i++) {
		size_t size = i % 97 == 0 ? (size_t)2 << 20 : 16 + (size_t)(i & 1023);
		char *volatile p = malloc(size);
		if (p == NULL)
			continue;
		memset(p, 1, size < 8192 ? size : 8192);
		errno = 4242;
		free(p);
		if (errno != 4242) {
			printf("free %d changed errno to %d\n", i, errno);
			return 1;
		}
		if (i % 20000 == 0)
			usleep(3000);   /* (a memory sample is due at the next call) */
	}
	char *volatile kept = malloc(100);
	pid_t c = _Fork();
	if (c == 0) {
		struct rlimit rl = { 3, 3 };
		setrlimit(RLIMIT_NOFILE, &rl);
		errno = 4242;
		free(kept);
		_exit(errno == 4242 ? 0 : errno < 256 ? errno : 255);
	}
	int st;
	if (c < 0 || waitpid(c, &st, 0) != c)
		return 1;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		printf("the child's first free changed errno to %d\n", WEXITSTATUS(st));
		return 1;
	}
	printf("errno kept\n");
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *mode = argc > 1 ? argv[1] : "";
	const char *arg = argc > 2 ? argv[2] : "";
	if (strcmp(mode, "cancel") == 0)
		return cancel_mode();
	if (strcmp(mode, "sigfork") == 0) {
		timer(fork_handler);
		pairs(atol(arg), 64);
		struct itimerval off = { { 0, 0 }, { 0, 0 } };
		setitimer(ITIMER_REAL, &off, NULL);
		printf("forks %d\n", forks > 0);
		return 0;
	}
	if (strcmp(mode, "sigforkrun") == 0)
		return sigforkrun_mode(atol(arg));
	if (strcmp(mode, "sigexit") == 0) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		timer(exit_handler);
		pairs(1L << 40, 64);
		return 1;
	}
	if (strcmp(mode, "rawfork") == 0)
		return rawfork_mode(arg);
	if (strcmp(mode, "orphan") == 0)
		return orphan_mode();
	if (strcmp(mode, "altfork") == 0)
		return altfork_mode();
	if (strcmp(mode, "notsc") == 0)
		return notsc_mode();
	if (strcmp(mode, "filter") == 0)
		return filter_mode(arg);
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
	if (strcmp(mode, "errno") == 0)
		return errno_mode();
	if (strcmp(mode, "rss") == 0)
		return rss_mode(atoi(arg), argc > 3 ? atol(argv[3]) : 100000);
	fprintf(stderr, "hostile: unknown mode '%s'\n", mode);
	return 2;
}
