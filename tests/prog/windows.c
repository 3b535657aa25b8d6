/* windows - a program under a dormant tracer, switched from outside (tests/t_dormant.sh).
 * It watches the tracer's own state (mtrace_control, found with dlsym) and makes its calls in
 * phases, each after the switch it waits for has taken effect:
 *   dormant:   1,000 malloc(1001), of which 100 are kept
 *   recording: 1,000 malloc(1002), and the 100 kept freed     (window 1)
 *   dormant:   1,000 malloc(1003)
 *   recording: 1,000 malloc(1004)     (window 2)
 *   dormant:   exit
 * While it waits it makes one malloc(1) a millisecond (what carries a request out); it prints
 * "pid N" first, and "done" at the end.  With "fork", a child ("child N": dormant, it makes
 * calls until killed) and an exec'd program ("idle N": windows --idle, the same) run beside
 * it.  With --forks it forks instead, 20 children a round (each makes one call, then _exits)
 * and one call of its own between rounds, until it is switched on; then it prints
 * "recording" and exits: no child may act on the request sent to it.
 *   windows [fork] | windows --idle | windows --forks */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "mtrace-control.h"

static volatile struct mtrace_control *ctl;

static void poke(void)
{
	void *volatile p = malloc(1);
	free(p);
	struct timespec d = { 0, 1000000 };
	nanosleep(&d, NULL);
}

static int wait_for(unsigned state)
{
	for (int i = 0; i < 120000; i++) {   /* two minutes */
		if (ctl->state == state)
			return 0;
		poke();
	}
	return -1;
}

static int forks(void)
{
	printf("pid %d\n", (int)getpid());
	int on = 0;
	for (int round = 0; round < 120000 && !on; round++) {
		for (int i = 0; i < 20; i++) {
			pid_t c = fork();
			if (c == 0) {
				void *volatile p = malloc(1);
				free(p);
				_exit(0);
			}
			if (c < 0 || waitpid(c, NULL, 0) != c)
				return 2;
		}
		poke();
		on = ctl->state == MTRACE_STATE_RECORDING;
	}
	printf("%s\n", on ? "recording" : "never switched on");
	return 0;
}

static void *kept[100];

static void batch(size_t size)
{
	for (int i = 0; i < 1000; i++) {
		void *volatile p = malloc(size);
		free(p);
	}
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && strcmp(argv[1], "--idle") == 0) {
		printf("idle %d\n", (int)getpid());
		for (;;)
			poke();
	}
	ctl = dlsym(RTLD_DEFAULT, MTRACE_CONTROL_SYMBOL);
	if (!ctl) {
		printf("no tracer\n");
		return 2;
	}
	if (argc > 1 && strcmp(argv[1], "--forks") == 0)
		return forks();
	pid_t child = 0, execd = 0;
	if (argc > 1 && strcmp(argv[1], "fork") == 0) {
		if ((child = fork()) == 0) {
			for (;;)
				poke();
		}
		if ((execd = fork()) == 0) {
			execl("/proc/self/exe", "windows", "--idle", (char *)NULL);
			_exit(127);
		}
		printf("child %d\n", (int)child);
	}
	printf("pid %d\n", (int)getpid());
	batch(1001);
	for (int i = 0; i < 100; i++)
		kept[i] = malloc(1001);
	if (wait_for(MTRACE_STATE_RECORDING) < 0)
		return 1;
	batch(1002);
	for (int i = 0; i < 100; i++)
		free(kept[i]);   /* blocks from before the window */
	if (wait_for(MTRACE_STATE_DORMANT) < 0)
		return 1;
	batch(1003);
	if (wait_for(MTRACE_STATE_RECORDING) < 0)
		return 1;
	batch(1004);
	if (wait_for(MTRACE_STATE_DORMANT) < 0)
		return 1;
	if (child)
		kill(child, SIGTERM), waitpid(child, NULL, 0);
	if (execd)
		kill(execd, SIGTERM), waitpid(execd, NULL, 0);
	printf("done\n");
	return 0;
}
