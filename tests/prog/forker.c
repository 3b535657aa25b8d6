/* forker - fork and exec cases for the capture tests.
 *   forker fork [DIR] parent malloc(1002) x3, (chdir DIR,) fork: child malloc(1001) x5;
 *                     parent malloc(1002) x2
 *   forker forkbusy   a thread hammers malloc(1003) while main forks 30 children; each child
 *                     makes malloc(1004) x2 and exits
 *   forker exec       the child execs "forker marker", which makes malloc(1005) x4
 *   forker marker     malloc(1005) x4 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void marks(size_t size, int n)
{
	for (int i = 0; i < n; i++) {
		volatile char *p = malloc(size);
		p[0] = 1;
		free((void *)p);
	}
}

static volatile int stop;
static void *hammer(void *arg)
{
	(void)arg;
	while (!stop)
		marks(1003, 1);
	return NULL;
}

static int wait_ok(pid_t pid)
{
	int st;
	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "fork";
	if (strcmp(mode, "marker") == 0) {
		marks(1005, 4);
		return 0;
	}
	if (strcmp(mode, "fork") == 0) {
		marks(1002, 3);
		if (argc > 2 && chdir(argv[2]) != 0)
			return 2;
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			marks(1001, 5);
			exit(0);
		}
		int ok = wait_ok(pid);
		marks(1002, 2);
		printf("child %d %s\n", (int)pid, ok ? "ok" : "failed");
		return !ok;
	}
	if (strcmp(mode, "forkbusy") == 0) {
		pthread_t t;
		pthread_create(&t, NULL, hammer, NULL);
		int ok = 1;
		for (int i = 0; i < 30; i++) {
			pid_t pid = fork();
			if (pid == 0) {
				marks(1004, 2);
				exit(0);
			}
			ok &= wait_ok(pid);
		}
		stop = 1;
		pthread_join(t, NULL);
		printf("forkbusy %s\n", ok ? "ok" : "failed");
		return !ok;
	}
	if (strcmp(mode, "exec") == 0) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			marks(1001, 1);
			execl(argv[0], argv[0], "marker", (char *)NULL);
			_exit(127);
		}
		int ok = wait_ok(pid);
		printf("exec child %d %s\n", (int)pid, ok ? "ok" : "failed");
		return !ok;
	}
	return 2;
}
