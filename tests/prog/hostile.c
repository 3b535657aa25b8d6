/* hostile - programs that do to their process what a tracer must survive: threads cancelled,
 * signal handlers that fork or exit, children made without fork(), the TSC switched off, errno.
 * Each mode runs correctly untraced; traced it must end the same way (tests/t_hostile.sh;
 * hostile_sys.c has the sandboxes, limits and the trace's own memory).
 *
 *   cancel           20 threads, each cancelled while it allocates (deferred cancellation)
 *   sigfork N        a 500 us timer whose handler forks (the child _exits) while main allocates
 *                    N times, and until it forked once; prints "forks 1"
 *   sigforkrun N     a 1 ms timer whose handler forks; each child goes on from where the handler
 *                    interrupted it, makes 1,000 pairs and _exits; the parent waits for N
 *                    children; prints "children failed K"
 *   sigexit          the timer's handler calls exit(0) once main made 100,000 pairs
 *
 * The timers decide where a handler interrupts, never how much work is done: a handler forks
 * only after main has made 1,000 more calls (a fork may take longer than the timer's period on a
 * loaded machine, and would otherwise leave main no time to run), and the work is counted.
 *   rawfork HOW      HOW = _Fork|syscall|clone: 10,000 malloc(100) in the parent, 10,000
 *                    malloc(1100) in a child made without fork() (no atfork handler runs)
 *   altfork          a handler on an alternate stack forks; the child prints how deep the stack
 *                    went ("depth N"), handler and fork and what ran in the child included
 *   orphan           a child made by syscall(SYS_fork) that allocates after its parent is gone;
 *                    it writes "orphan ok" into the file named by $HOSTILE_OUT
 *   notsc            the TSC switched off (PR_SET_TSC), then allocations in main and a thread,
 *                    and a thread whose first call frees a 1 MiB block
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
#include "hostile.h"

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
static volatile long progress, progress_at_fork;   /* main's pairs, and at the last fork */

/* Has main made 1,000 pairs since the last fork?  Then a handler may fork again. */
static int progressed(void)
{
	if (progress - progress_at_fork < 1000)
		return 0;
	progress_at_fork = progress;
	return 1;
}

/* pairs() that counts them for the handlers */
static void counted_pairs(long n)
{
	for (long i = 0; i < n; i++) {
		void *volatile p = malloc(64 + (size_t)(i & 255));
		free(p);
		progress++;
	}
}

/* SIGALRM to handler every usec microseconds */
static void timer(void (*handler)(int), long usec)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { { 0, usec }, { 0, usec } };
	setitimer(ITIMER_REAL, &it, NULL);
}

/* sigforkrun: the child goes on from where the handler interrupted its parent (in the tracer,
   often), allocates, and ends; the parent waits for every child at the end */
static volatile sig_atomic_t in_child;
static pid_t run_kids[4096];
static volatile sig_atomic_t n_run_kids;

static void fork_run_handler(int sig)
{
	(void)sig;
	if (in_child || n_run_kids == (sig_atomic_t)(sizeof run_kids / sizeof run_kids[0]) ||
	    !progressed())
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
	timer(fork_run_handler, 1000);
	long after = 0;
	while (n_run_kids < want) {
		void *volatile p = malloc(24);
		free(p);
		progress++;
		if (in_child && ++after > 1000)
			_exit(0);
	}
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	if (in_child)
		_exit(0);   /* (made by a last tick after the loop: the children are not its own) */
	int failed = 0;
	for (int i = 0; i < n_run_kids; i++) {
		int st;
		if (waitpid(run_kids[i], &st, 0) != run_kids[i] || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			failed++;
	}
	printf("children failed %d\n", failed);
	return 0;
}

static void fork_handler(int sig)
{
	(void)sig;
	if (!progressed())
		return;
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
	char *area = mmap(NULL, (size_t)ps + alt_size, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
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

static void exit_handler(int sig)
{
	(void)sig;
	if (progress >= 100000)
		exit(0);
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
		while (getppid() == parent) /* until the parent has exited (and trimmed its file) */
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
   The TSC
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
		timer(fork_handler, 500);
		counted_pairs(atol(arg));
		while (forks == 0)
			counted_pairs(1000);
		struct itimerval off = { { 0, 0 }, { 0, 0 } };
		setitimer(ITIMER_REAL, &off, NULL);
		printf("forks %d\n", forks > 0);
		return 0;
	}
	if (strcmp(mode, "sigforkrun") == 0)
		return sigforkrun_mode(atol(arg));
	if (strcmp(mode, "sigexit") == 0) {
		timer(exit_handler, 500);
		counted_pairs(1L << 40);
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
	if (strcmp(mode, "errno") == 0)
		return errno_mode();
	fprintf(stderr, "%s: unknown mode '%s'\n", argv[0], mode);
	return 2;
}
