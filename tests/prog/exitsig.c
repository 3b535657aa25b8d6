/* exitsig - a signal that comes while a process is inside _exit does not end it by that signal.
 *   exitsig inside N
 * forks N children, one after another; each is sent SIGTERM once it is provably inside _exit(0),
 * with the signal blocked there (untraced it never is: the child exits 0 before the check).
 * Prints "killed K exited E" (K children ended by SIGTERM, E exited with status 0).
 *   exitsig race N
 * forks N children, each writing a byte to a pipe and calling _exit(0); the parent sends SIGTERM
 * as it reads the byte.  A race, for figures only: prints "killed K exited E" likewise.
 *
 * "inside": the child makes its stderr a pipe it fills first, so that the tracer's closing line
 * (MTRACE_CTL_VERBOSE=1: "N entries recorded", written while it finishes the trace) waits there.
 * A second thread of the child, SIGTERM blocked in it, waits until the main thread has said it
 * calls _exit and then until SIGTERM is blocked in the main thread (read from its SigBlk: only
 * the tracer blocks it, and after that word only inside _exit), sends SIGTERM to the process
 * (pending: every thread blocks it) and drains the pipe, so that the tracer's write and the exit
 * go on.  A tracer that unblocks signals before the real exit delivers the SIGTERM then: killed;
 * one that keeps them blocked exits 0, as untraced.  Nothing here allocates once the main thread
 * is in _exit (the tracer's lock may be held for good there).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define POLLS 200000L   /* 50 us each: 10 s at least */

static int leaving, err_read;
static pid_t main_tid;

/* Is SIGTERM blocked in thread tid?  open and read only: no allocation. */
static int sigterm_blocked(pid_t tid)
{
	char path[64], buf[4096];
	snprintf(path, sizeof path, "/proc/self/task/%d/status", (int)tid);
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	const char *p = strstr(buf, "\nSigBlk:");
	return p && (strtoull(p + 8, NULL, 16) >> (SIGTERM - 1) & 1);
}

static void *helper(void *unused)
{
	(void)unused;
	for (long i = 0; i < POLLS && !__atomic_load_n(&leaving, __ATOMIC_ACQUIRE); i++)
		usleep(50);
	for (long i = 0; i < POLLS && !sigterm_blocked(main_tid); i++)
		usleep(50);
	kill(getpid(), SIGTERM);
	char buf[4096];
	for (long i = 0; i < POLLS && read(err_read, buf, sizeof buf) > 0; i++)
		;
	return NULL;
}

static void inside_child(void)
{
	int p[2];
	static char fill[4096];
	if (pipe(p) != 0)
		_exit(2);
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	while (write(p[1], fill, sizeof fill) > 0)
		;
	while (write(p[1], fill, 1) > 0)
		;
	fcntl(p[1], F_SETFL, 0);
	dup2(p[1], 2);
	close(p[1]);
	err_read = p[0];
	main_tid = (pid_t)syscall(SYS_gettid);
	sigset_t term, old;
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &term, &old);   /* the helper inherits it */
	pthread_t t;
	if (pthread_create(&t, NULL, helper, NULL) != 0)
		_exit(2);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	__atomic_store_n(&leaving, 1, __ATOMIC_RELEASE);
	_exit(0);
}

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "inside") != 0 && strcmp(argv[1], "race") != 0)) {
		fprintf(stderr, "usage: exitsig inside|race N\n");
		return 2;
	}
	int inside = strcmp(argv[1], "inside") == 0;
	long n = atol(argv[2]), killed = 0, exited = 0;
	signal(SIGTERM, SIG_DFL);
	for (long i = 0; i < n; i++) {
		int p[2];
		if (!inside && pipe(p) != 0)
			return 2;
		pid_t c = fork();
		if (c < 0)
			return 2;
		if (c == 0) {
			if (inside)
				inside_child();
			close(p[0]);
			if (write(p[1], "x", 1) != 1)
				_exit(2);
			_exit(0);
		}
		if (!inside) {
			char b;
			close(p[1]);
			if (read(p[0], &b, 1) == 1)
				kill(c, SIGTERM);
			close(p[0]);
		}
		int st;
		if (waitpid(c, &st, 0) != c)
			return 2;
		killed += WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM;
		exited += WIFEXITED(st) && WEXITSTATUS(st) == 0;
	}
	printf("killed %ld exited %ld\n", killed, exited);
	return 0;
}
