/* mbench - a malloc-heavy program for benchmarks: each thread keeps a working set of blocks and
 * replaces a random one per step (free it, or allocate one of a skewed random size and write
 * to it), as allocation-heavy programs do.
 *   mbench THREADS OPS_PER_THREAD [SLOTS]
 * Prints the number of allocator calls made. */
#include <mcheck.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long ops = 2000000, slots = 4096;
static unsigned long long calls[64];

static void *worker(void *arg)
{
	long id = (long)arg;
	uint64_t seed = 0x9e3779b97f4a7c15ull * (uint64_t)(id + 1);
	char **live = calloc((size_t)slots, sizeof *live);
	unsigned long long n = 1;
	for (long i = 0; i < ops; i++) {
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		long s = (long)(seed % (uint64_t)slots);
		if (live[s]) {
			free(live[s]);
			live[s] = NULL;
		} else {
			/* mostly small, sometimes larger: 16 B .. 4 KiB, skewed to the small end */
			size_t size = 16u << ((seed >> 32) % 9 * ((seed >> 40) % 4 == 0) / 2);
			size += (seed >> 48) % size;
			live[s] = malloc(size);
			memset(live[s], (int)i, size < 64 ? size : 64);
		}
		n++;
	}
	for (long s = 0; s < slots; s++)
		if (live[s]) {
			free(live[s]);
			n++;
		}
	free(live);
	calls[id] = n + 1;
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 1;
	if (argc > 2)
		ops = atol(argv[2]);
	if (argc > 3)
		slots = atol(argv[3]);
	if (threads < 1 || threads > 64)
		return 2;
	/* glibc's own log of the calls when MALLOC_TRACE names a file (and, from glibc 2.34,
	   libc_malloc_debug.so is preloaded), as README's trace_import example makes; otherwise
	   nothing */
	mtrace();
	pthread_t t[64];
	for (long i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	unsigned long long total = 0;
	for (int i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		total += calls[i];
	}
	printf("%llu calls\n", total);
	return 0;
}
