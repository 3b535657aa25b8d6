/* keeplive - a program that exits holding large blocks it wrote in part: eight blocks of
 * 16 MiB (malloc, calloc, memalign, one grown by realloc from 8 MiB, two from a thread of its
 * own), a quarter of each written from its start, none freed; beside them one more written so
 * and freed (its release says what was resident).  Prints a checksum that does not depend on
 * addresses.
 *   keeplive [_exit|fork|many]   returns from main, or ends by _exit (without exit's handlers),
 *                           or first forks a child that allocates one more such block and exits
 *                           holding it and its parent's eight (which are not its own), or first
 *                           allocates 20,000 more blocks of 64 KiB (more than the tracer's table
 *                           holds), writing none */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MIB ((size_t)1 << 20)
#define N 8

static void *block[N];
static unsigned long sum;

static void *wrote(void *p, size_t size)
{
	if (p == NULL) {
		fprintf(stderr, "keeplive: out of memory\n");
		exit(1);
	}
	memset(p, 1, size / 4);   /* a quarter of it */
	return p;
}

static void *thread(void *arg)
{
	(void)arg;
	block[6] = wrote(malloc(16 * MIB), 16 * MIB);
	block[7] = wrote(malloc(16 * MIB), 16 * MIB);
	return NULL;
}

int main(int argc, char **argv)
{
	for (int i = 0; i < 3; i++)
		block[i] = wrote(malloc(16 * MIB), 16 * MIB);
	block[3] = wrote(calloc(16, MIB), 16 * MIB);
	void *p = NULL;
	if (posix_memalign(&p, 4096, 16 * MIB) != 0)
		p = NULL;
	block[4] = wrote(p, 16 * MIB);
	block[5] = wrote(realloc(wrote(malloc(8 * MIB), 8 * MIB), 16 * MIB), 16 * MIB);
	pthread_t t;
	if (pthread_create(&t, NULL, thread, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	free(wrote(malloc(16 * MIB), 16 * MIB));
	for (int i = 0; i < N; i++)
		sum += ((unsigned char *)block[i])[i * MIB];
	printf("checksum %lu\n", sum);
	fflush(stdout);
	if (argc > 1 && strcmp(argv[1], "many") == 0)
		for (int i = 0; i < 20000; i++)
			if (malloc(64 * 1024) == NULL)
				return 1;
	if (argc > 1 && strcmp(argv[1], "_exit") == 0)
		_exit(0);
	if (argc > 1 && strcmp(argv[1], "fork") == 0) {
		pid_t pid = fork();
		if (pid == 0) {
			wrote(malloc(16 * MIB), 16 * MIB);
			exit(0);
		}
		int status;
		if (pid < 0 || waitpid(pid, &status, 0) != pid || status != 0)
			return 1;
	}
	return 0;
}
