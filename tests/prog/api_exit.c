/* api_exit - a program linked with -lmtrace that ends processes by _exit/_Exit before any call
 * of the control API: the tracer has found none of libc's functions yet.
 *   api_exit fork   a child whose exec fails ends with _exit(127); prints its status
 *   api_exit self   _exit(3) after one malloc
 *   api_exit Exit   _Exit(4) */
#include <mtrace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (strcmp(mode, "fork") == 0) {
		pid_t c = fork();
		if (c == 0) {
			execlp("/nonexistent/program", "x", (char *)0);
			_exit(127);
		}
		int st = 0;
		waitpid(c, &st, 0);
		printf("child: %s %d\n", WIFEXITED(st) ? "exit" : "signal",
		       WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		return 0;
	}
	free(malloc(10));
	if (strcmp(mode, "self") == 0)
		_exit(3);
	if (strcmp(mode, "Exit") == 0)
		_Exit(4);
	if (0)
		mtrace_start();   /* (linked against libmtrace, never called) */
	return 1;
}
