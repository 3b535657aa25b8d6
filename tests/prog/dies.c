/* dies - end in every way a program can; each first makes malloc(1006) x3.
 *   dies exit|_exit|abort|segv|term|spin|doublefree
 * (spin: two threads allocate until killed; doublefree: frees a malloc(1007) twice, which the
 * allocator may abort on) */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	if (!strcmp(how, "abort"))
		abort();
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
