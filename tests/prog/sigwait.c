/* sigwait - a program that waits to be signalled: writes its pid to FILE once ready, then
 * waits.  sigwait FILE catch: the first SIGHUP, SIGINT, SIGQUIT, SIGTERM or SIGUSR1 is printed
 * ("got N") and the program exits 0; sigwait FILE all: the same for every signal it can catch
 * (SIGRTMIN to SIGRTMAX too) but SIGCHLD and the stop signals; sigwait FILE default: the
 * signals keep their default action (it dies of them). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void on_signal(int sig)
{
	got = sig;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	free(malloc(100));
	if (!strcmp(argv[2], "catch")) {
		static const int sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1 };
		for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
			signal(sigs[i], on_signal);
	} else if (!strcmp(argv[2], "all")) {
		for (int sig = 1; sig <= SIGRTMAX; sig++)
			if (sig != SIGKILL && sig != SIGSTOP && sig != SIGCHLD && sig != SIGTSTP &&
			    sig != SIGTTIN && sig != SIGTTOU && (sig < 32 || sig >= SIGRTMIN))
				signal(sig, on_signal);
	}
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp", argv[1]);
	FILE *f = fopen(tmp, "w");   /* written whole, then renamed: never read half-written */
	if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0 ||
	    rename(tmp, argv[1]) != 0)
		return 3;
	while (!got)
		pause();
	printf("got %d\n", (int)got);
	return 0;
}
