/* dies - end in every way a program can; each first makes malloc(1006) x3.
 *   dies exit|_exit|_Exit|abort|segv|term|spin|doublefree|vfork|trap
 * (spin: two threads allocate until killed; doublefree: frees a malloc(1007) twice, which the
 * allocator may abort on; vfork: a vfork child that ends by _exit, then malloc(1008) x3 and
 * exit(0); trap: an illegal instruction, SIGILL on x86, with a malloc(1009) still live) */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *spin(void *arg)
{
	(void)arg;
	for (unsigned i = 0;; i++) {
		void *p = malloc(16 + i % 512);
		free(p);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "exit";
	for (int i = 0; i < 3; i++)
		free(malloc(1006));
	if (!strcmp(how, "exit"))
		exit(3);
	if (!strcmp(how, "_exit"))
		_exit(4);
	if (!strcmp(how, "_Exit"))
		_Exit(5);
	if (!strcmp(how, "vfork")) {
		pid_t pid = vfork();
		if (pid == 0)
			_exit(0); /* the parent's memory, the parent's trace: not this process's */
		int st;
		waitpid(pid, &st, 0);
		for (int i = 0; i < 3; i++)
			free(malloc(1008));
		exit(0);
	}
	if (!strcmp(how, "abort"))
		abort();
	if (!strcmp(how, "trap")) {
		char *volatile live = malloc(1009);
		live[0] = 1;
		__builtin_trap();
	}
	if (!strcmp(how, "segv"))
		raise(SIGSEGV);
	if (!strcmp(how, "term"))
		raise(SIGTERM);
	if (!strcmp(how, "doublefree")) {
		char *volatile p = malloc(1007);
		free(p);
		free(p);
	}
	if (!strcmp(how, "spin")) {
		pthread_t t;
		pthread_create(&t, NULL, spin, NULL);
		printf("spinning\n");
		fflush(stdout);
		spin(NULL);
	}
	return 2;
}
