/* api_atfork - a fork prepare handler registered before the tracer's own (a -lmtrace program
 * that starts tracing after registering it) runs after the tracer's, which holds the tracer's
 * lock by then: the handler maps and unmaps memory, enough records to need a new chunk.
 *   api_atfork BASE   traces into BASE.PID, forks; prints "forked" */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "mtrace.h"

static void prepare(void)
{
	for (int i = 0; i < 3000; i++) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		if (p != MAP_FAILED)
			munmap(p, 4096);
	}
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	pthread_atfork(prepare, NULL, NULL);
	if (mtrace_init(argv[1]) != 0 || mtrace_start() != 0)
		return 2;
	pid_t c = fork();
	if (c == 0)
		_exit(0);
	int st;
	if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st))
		return 1;
	puts("forked");
	mtrace_stop();
	return 0;
}
