/* popcheck - what the tracer's populating thread looks like from inside the traced program.
 *   popcheck N [plain|seccomp|seccomp-exec|fork|restart|mainexit|joins|frees|slow] [slow]
 * makes N malloc(1005)/free pairs, then prints "threads K" (threads named mtrace-populate) and
 * "blocked yes|no" (every signal a program can block is blocked in them), with
 * POPCHECK_POLICY set "policy P" (their scheduling policy, field 41 of their stat), and with
 * POPCHECK_HWM set "hwm_kb K" (the process's peak RSS, VmHWM).
 *   seccomp: installs an allow-everything seccomp filter first (no thread may start then);
 *   seccomp-exec: installs it and runs itself again in plain mode (started under a filter, as
 *            in a container: the thread may start);
 *   fork:    afterwards a child makes N more pairs of malloc(1006) and prints "child threads K";
 *            then the parent prints "after fork: threads K" (the process's threads besides the
 *            one forking, counted in the parent right after fork, as python counts them), makes
 *            N more pairs and prints "later: threads K" (threads named mtrace-populate);
 *   restart: mtrace_stop() and mtrace_start() (found with dlsym) between 3 rounds of N pairs;
 *   mainexit: the pairs and the report run in a second thread while the main thread ends by
 *            pthread_exit (the process must then exit with status 0, running atexit handlers
 *            on a thread of the program's: one with a 256 KiB frame, that reports whether
 *            SIGUSR1 is blocked);
 *   joins:   afterwards creates and joins 600 threads that do nothing, on a stack of its own
 *            (glibc then frees each one's TLS vector in pthread_join with its stack-cache lock
 *            held, the lock pthread_create takes);
 *   frees:   first makes N malloc(1005) with tracing paused (mtrace_pause), frees them all
 *            traced and prints "after the frees: threads K" (K threads besides the main one,
 *            counted without allocating); then the pairs as usual;
 *   slow:    sleeps 1 ms every 1,000 pairs (a program that leaves the thread time to work ahead);
 *            also as a third argument, with another mode.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static int slow;

static void pairs(long n, size_t size)
{
	for (long i = 0; i < n; i++) {
		if (slow && i % 1000 == 999)
			usleep(1000);
		void *volatile p = malloc(size);
		free(p);
	}
}

/* signals a thread can block: 1-64 except SIGKILL, SIGSTOP and glibc's own 32 and 33 */
static int all_blocked(unsigned long long mask)
{
	for (int s = 1; s <= 64; s++)
		if (s != 9 && s != 19 && s != 32 && s != 33 && !(mask >> (s - 1) & 1))
			return 0;
	return 1;
}

/* Field number field (from 1, as proc(5) counts them; 3 or more) of a /proc stat file, or -1.
   open and read only: nothing here allocates. */
static long stat_field(const char *path, int field)
{
	char buf[1024];
	int fd = open(path, O_RDONLY);
	ssize_t len = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (len <= 0)
		return -1;
	buf[len] = 0;
	char *p = strrchr(buf, ')');   /* field 2, the command name, may hold anything */
	for (int f = 2; p && f < field; f++)
		p = strchr(p + 1, ' ');
	return p ? atol(p + 1) : -1;
}

/* The tracer's threads (named mtrace-populate): how many, whether they block every signal,
   the scheduling policy of the last; returns the number of threads of the process */
static int scan(int *np, int *blockedp, int *policyp)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0, blocked = 1, policy = -1, tasks = 0;
	char path[300], line[256];
	while (d && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		tasks++;
		snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
		FILE *f = fopen(path, "r");
		if (f == NULL)
			continue;
		int ours = fgets(line, sizeof line, f) && strcmp(line, "mtrace-populate\n") == 0;
		fclose(f);
		if (!ours)
			continue;
		n++;
		snprintf(path, sizeof path, "/proc/self/task/%s/status", e->d_name);
		f = fopen(path, "r");
		unsigned long long mask = 0;
		while (f && fgets(line, sizeof line, f))
			if (sscanf(line, "SigBlk: %llx", &mask) == 1)
				break;
		if (f)
			fclose(f);
		blocked &= all_blocked(mask);
		snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
		policy = (int)stat_field(path, 41);
	}
	if (d)
		closedir(d);
	*np = n, *blockedp = blocked, *policyp = policy;
	return tasks;
}

static void report(const char *who)
{
	int n, blocked, policy;
	char line[256];
	/* a thread is the tracer's once it has named itself, which a thread just made may not
	   have done yet: while another thread is there and none is named, look again (bounded:
	   10 s, which the program's own threads, where it has them, make it wait whole) */
	for (int round = 0; scan(&n, &blocked, &policy) > 1 && !n && round < 1000; round++)
		usleep(10000);
	printf("%sthreads %d\n%sblocked %s\n", who, n, who, n && blocked ? "yes" : "no");
	if (getenv("POPCHECK_POLICY"))
		printf("%spolicy %d\n", who, policy);
	if (getenv("POPCHECK_HWM")) {
		FILE *f = fopen("/proc/self/status", "r");
		long hwm = -1;
		while (f && fgets(line, sizeof line, f))
			if (sscanf(line, "VmHWM: %ld", &hwm) == 1)
				break;
		if (f)
			fclose(f);
		printf("%shwm_kb %ld\n", who, hwm);
	}
	fflush(stdout);
}

static long worker_n;

static void *worker(void *unused)
{
	(void)unused;
	pairs(worker_n, 1005);
	report("");
	return NULL;
}

/* threads of the process besides this one, read without allocating (an allocation could start
   the populating thread while we look) */
static int other_threads(void)
{
	long n = stat_field("/proc/self/stat", 20);   /* num_threads */
	return n < 0 ? -1 : (int)n - 1;
}

static void *nothing(void *unused)
{
	return unused;
}

/* create and join n threads on one stack of our own: nothing but glibc allocates here */
static int joins(long n)
{
	static char stack[256 * 1024] __attribute__((aligned(4096)));
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstack(&a, stack, sizeof stack);
	for (long i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, &a, nothing, NULL) != 0 || pthread_join(t, NULL) != 0)
			return -1;
	}
	pthread_attr_destroy(&a);
	return 0;
}

/* as on any thread of the program: signals it did not block, and room for a large frame */
static void at_exit(void)
{
	sigset_t now;
	pthread_sigmask(SIG_SETMASK, NULL, &now);
	volatile char frame[256 << 10];
	memset((char *)frame, 1, sizeof frame);
	puts(sigismember(&now, SIGUSR1) ? "atexit ran, signals blocked" : "atexit ran");
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	const char *mode = argc > 2 ? argv[2] : "plain";
	slow = strcmp(mode, "slow") == 0 || (argc > 3 && strcmp(argv[3], "slow") == 0);
	if (strcmp(mode, "seccomp") == 0 || strcmp(mode, "seccomp-exec") == 0) {
		struct sock_filter allow[] = { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
		struct sock_fprog prog = { 1, allow };
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
			perror("seccomp");
			return 2;
		}
		if (strcmp(mode, "seccomp-exec") == 0) {
			char *args[] = { argv[0], argv[1], "plain", NULL };
			execv("/proc/self/exe", args);
			perror("execv");
			return 2;
		}
	}
	if (strcmp(mode, "mainexit") == 0) {
		pthread_t t;
		worker_n = n;
		atexit(at_exit);
		if (pthread_create(&t, NULL, worker, NULL) != 0)
			return 2;
		pthread_exit(NULL);
	}
	if (strcmp(mode, "frees") == 0) {
		int (*pause_)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "mtrace_pause");
		int (*unpause)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "mtrace_unpause");
		void **v = malloc((size_t)n * sizeof *v);
		if (v == NULL || !pause_ || !unpause || pause_() != 0)
			return 2;
		for (long i = 0; i < n; i++)
			v[i] = malloc(1005);
		if (unpause() != 0)
			return 2;
		for (long i = 0; i < n; i++)
			free(v[i]);
		int k = other_threads();
		printf("after the frees: threads %d\n", k);
	}
	if (strcmp(mode, "restart") == 0) {
		int (*stop)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "mtrace_stop");
		int (*start)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "mtrace_start");
		for (int round = 0; round < 3; round++) {
			pairs(n, 1005);
			if (round < 2 && stop && start && (stop() != 0 || start() != 0)) {
				perror("mtrace_stop/start");
				return 2;
			}
		}
	} else
		pairs(n, 1005);
	if (strcmp(mode, "joins") == 0) {
		if (joins(600) < 0) {
			perror("pthread_create");
			return 2;
		}
	}
	report("");
	if (strcmp(mode, "fork") == 0) {
		pid_t c = fork();
		if (c == 0) {
			pairs(n, 1006);
			report("child ");
			_exit(0);
		}
		int after = other_threads(), st;
		waitpid(c, &st, 0);
		printf("after fork: threads %d\n", after);
		pairs(n, 1005);
		report("later: ");
		return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
	}
	return 0;
}
