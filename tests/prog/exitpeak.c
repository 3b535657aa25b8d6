/* exitpeak - the peak RSS of a process, its exit included.
 *   exitpeak measure COMMAND [ARG...]
 * runs COMMAND (not traced itself: set LD_PRELOAD in the command, with env) and prints
 * "maxrss_kb K" (wait4's ru_maxrss: the child's peak over its whole life, exit included) and
 * "status S" (its exit status, or 128 + the signal that killed it).
 *   exitpeak work THREADS PAIRS
 * starts THREADS threads in two groups: the first group's threads each make a few calls and then
 * wait, idle, until the process exits; the main thread makes PAIRS malloc(1005)/free pairs (the
 * trace: 64 bytes a pair); then the second group starts, each thread making 40 pairs (more than
 * its first chunk holds: its second chunk lies near the trace's end) and waiting in turn.  The
 * process exits from main with every thread alive, each holding a chunk of the trace: the tracer
 * finishes it while they do.  Prints "hwm_kb K" (VmHWM) before exiting.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready;

static void pairs(long n)
{
	for (long i = 0; i < n; i++) {
		void *volatile p = malloc(1005);
		free(p);
	}
}

static void *idle_worker(void *arg)
{
	pairs((long)(intptr_t)arg);
	pthread_mutex_lock(&mu);
	ready++;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (;;)
		pause();   /* until the process exits */
	return NULL;
}

static void start_group(int n, long calls)
{
	pthread_mutex_lock(&mu);
	int want = ready + n;
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, idle_worker, (void *)(intptr_t)calls) != 0) {
			perror("pthread_create");
			exit(2);
		}
	}
	pthread_mutex_lock(&mu);
	while (ready < want)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
}

static long status_kb(const char *key)
{
	char line[256];
	long v = -1;
	size_t k = strlen(key);
	FILE *f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, key, k) == 0 && line[k] == ':')
			v = atol(line + k + 1);
	if (f)
		fclose(f);
	return v;
}

static int measure(char **argv)
{
	pid_t c = fork();
	if (c < 0)
		return 2;
	if (c == 0) {
		execvp(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	int st;
	struct rusage ru;
	if (wait4(c, &st, 0, &ru) != c)
		return 2;
	printf("maxrss_kb %ld\nstatus %d\n", ru.ru_maxrss,
	       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "measure") == 0)
		return measure(argv + 2);
	if (argc != 4 || strcmp(argv[1], "work") != 0) {
		fprintf(stderr, "usage: exitpeak measure COMMAND... | exitpeak work THREADS PAIRS\n");
		return 2;
	}
	int threads = atoi(argv[2]);
	long n = atol(argv[3]);
	start_group(threads - threads / 2, 3);
	pairs(n);
	start_group(threads / 2, 40);
	printf("hwm_kb %ld\n", status_kb("VmHWM"));
	fflush(stdout);
	exit(0);
}
