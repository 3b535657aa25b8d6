/* allocmaps - a program whose allocator maps memory of its own: 4,096 blocks of up to 3 MB,
 * 512 at a time, allocated and freed through malloc (the allocator maps extents inside those
 * calls), sixteen of 2 to 32 MiB through jemalloc's mallocx and dallocx where the allocator has
 * them (entry points the tracer does not see: the allocator maps from its own code, outside any
 * traced call), and one mapping of the program's own, 1 MiB written and unmapped.  Prints a
 * checksum that does not depend on addresses. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define N 512

static void *touched(void *p, size_t n)
{
	if (p == NULL) {
		fprintf(stderr, "allocmaps: out of memory\n");
		exit(1);
	}
	memset(p, 1, n < 8192 ? n : 8192);
	return p;
}

int main(void)
{
	static void *b[N];
	unsigned long seed = 7, sum = 0;
	for (int round = 0; round < 8; round++)
		for (int i = 0; i < N; i++) {
			seed = seed * 6364136223846793005ul + 1442695040888963407ul;
			size_t n = (seed >> 33) % ((seed & 3) ? 50000 : 3000000) + 1;
			free(b[i]);
			b[i] = touched(malloc(n), n);
			sum += n;
		}
	void *(*mallocx)(size_t, int) = (void *(*)(size_t, int))dlsym(RTLD_DEFAULT, "mallocx");
	void (*dallocx)(void *, int) = (void (*)(void *, int))dlsym(RTLD_DEFAULT, "dallocx");
	if (mallocx && dallocx)
		for (int i = 1; i <= 16; i++)
			dallocx(touched(mallocx((size_t)i << 21, 0), 4096), 0);
	char *m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 1;
	memset(m, 1, 1 << 20);
	munmap(m, 1 << 20);
	for (int i = 0; i < N; i++)
		free(b[i]);
	printf("checksum %lu\n", sum);
	return 0;
}
