/* entry_points - every allocator entry point with its edge cases; prints what each returned and
 * what errno became, so a traced and an untraced run can be compared line for line.
 *   entry_points          the edge cases
 *   entry_points --count  a fixed number of calls with marker sizes (for trace_count --size) */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC diagnostic ignored "-Walloc-size-larger-than="

#define SENTINEL 9999

static void show(const char *what, void *p, int e)
{
	printf("%-40s %s usable=%zu errno=%d\n", what, p ? "ptr" : "NULL",
	       p ? malloc_usable_size(p) : (size_t)0, e);
}

#define TRY(expr, what)                                                                            \
	do {                                                                                       \
		errno = SENTINEL;                                                                  \
		void *p_ = (expr);                                                                 \
		int e_ = errno;                                                                    \
		show(what, p_, e_);                                                                \
		free(p_);                                                                          \
	} while (0)

static void pm(size_t align, size_t size, const char *what)
{
	void *p = (void *)0x1;
	errno = SENTINEL;
	int r = posix_memalign(&p, align, size);
	int e = errno;
	printf("%-40s ret=%d %s aligned=%d errno=%d\n", what, r,
	       r ? (p == (void *)0x1 ? "untouched" : "changed") : "ptr",
	       r == 0 && ((uintptr_t)p % align) == 0, e);
	if (r == 0)
		free(p);
}

static int count_mode(void)
{
	/* markers: malloc 10001 x7, calloc count 10002 x5, realloc to 10003 x4, memalign 10004 x3,
	   posix_memalign 10005 x3, aligned_alloc 10006 x2, valloc 10007 x2, pvalloc 10008 x1,
	   reallocarray count 10009 x2 */
	void *keep[64];
	int k = 0;
	for (int i = 0; i < 7; i++) keep[k++] = malloc(10001);
	for (int i = 0; i < 5; i++) keep[k++] = calloc(10002, 1);
	for (int i = 0; i < 4; i++) keep[k++] = realloc(NULL, 10003);
	for (int i = 0; i < 3; i++) keep[k++] = memalign(64, 10004);
	for (int i = 0; i < 3; i++) {
		void *p;
		if (posix_memalign(&p, 128, 10005) == 0)
			keep[k++] = p;
	}
	for (int i = 0; i < 2; i++) keep[k++] = aligned_alloc(256, 10006);
	for (int i = 0; i < 2; i++) keep[k++] = valloc(10007);
	keep[k++] = pvalloc(10008);
	for (int i = 0; i < 2; i++) keep[k++] = reallocarray(NULL, 10009, 3);
	for (int i = 0; i < k; i++)
		free(keep[i]);
	printf("made %d blocks\n", k);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--count") == 0)
		return count_mode();
	setvbuf(stdout, NULL, _IOLBF, 0);
	TRY(malloc(0), "malloc(0)");
	TRY(malloc(1), "malloc(1)");
	TRY(malloc(100), "malloc(100)");
	TRY(malloc(200000), "malloc(200000) (mmap)");
	TRY(malloc(SIZE_MAX), "malloc(SIZE_MAX)");
	TRY(malloc((size_t)PTRDIFF_MAX + 1), "malloc(PTRDIFF_MAX+1)");
	errno = SENTINEL; free(NULL); printf("%-40s errno=%d\n", "free(NULL)", errno);
	{
		void *p = malloc(10);
		errno = SENTINEL;
		free(p);
		printf("%-40s errno=%d\n", "free(p)", errno);
	}
	TRY(calloc(0, 0), "calloc(0,0)");
	TRY(calloc(10, 10), "calloc(10,10)");
	TRY(calloc(SIZE_MAX, 2), "calloc(SIZE_MAX,2) overflow");
	TRY(calloc((size_t)1 << 40, (size_t)1 << 40), "calloc(2^40,2^40) overflow");
	TRY(calloc(1, SIZE_MAX), "calloc(1,SIZE_MAX)");
	{
		unsigned char *p = calloc(1000, 1);
		int z = 1;
		for (int i = 0; i < 1000; i++)
			z &= p[i] == 0;
		printf("%-40s %d\n", "calloc zeroed", z);
		free(p);
	}
	TRY(realloc(NULL, 50), "realloc(NULL,50)");
	{
		void *p = malloc(30);
		errno = SENTINEL;
		void *q = realloc(p, 0);
		int e = errno;
		show("realloc(p,0)", q, e);
		free(q);
	}
	{
		void *p = malloc(30);
		strcpy(p, "keep");
		errno = SENTINEL;
		void *q = realloc(p, 300);
		int e = errno;
		show("realloc(p,300)", q, e);
		printf("%-40s %s\n", "realloc kept contents", (char *)q);
		free(q);
	}
	{
		void *p = malloc(30);
		errno = SENTINEL;
		void *q = realloc(p, SIZE_MAX);
		int e = errno;
		show("realloc(p,SIZE_MAX)", q, e);
		free(q ? q : p);
	}
	TRY(reallocarray(NULL, 10, 10), "reallocarray(NULL,10,10)");
	{
		void *p = malloc(30);
		errno = SENTINEL;
		void *q = reallocarray(p, SIZE_MAX, 2);
		int e = errno;
		show("reallocarray(p,SIZE_MAX,2)", q, e);
		free(q ? q : p);
	}
	{
		void *p = malloc(30);
		errno = SENTINEL;
		void *q = reallocarray(p, 0, 5);
		int e = errno;
		show("reallocarray(p,0,5)", q, e);
		free(q);
	}
	pm(64, 100, "posix_memalign(64,100)");
	pm(1 << 20, 100, "posix_memalign(1M,100)");
	pm(3, 10, "posix_memalign(3,10) bad alignment");
	pm(0, 10, "posix_memalign(0,10) bad alignment");
	pm(4, 10, "posix_memalign(4,10) below sizeof(void*)");
	pm(64, SIZE_MAX, "posix_memalign(64,SIZE_MAX)");
	pm(64, 0, "posix_memalign(64,0)");
	TRY(aligned_alloc(64, 100), "aligned_alloc(64,100)");
	TRY(aligned_alloc(3, 100), "aligned_alloc(3,100)");
	TRY(aligned_alloc(64, SIZE_MAX), "aligned_alloc(64,SIZE_MAX)");
	TRY(memalign(64, 100), "memalign(64,100)");
	TRY(memalign(3, 100), "memalign(3,100)");
	TRY(memalign(0, 10), "memalign(0,10)");
	TRY(memalign(4096, SIZE_MAX), "memalign(4096,SIZE_MAX)");
	TRY(valloc(100), "valloc(100)");
	TRY(valloc(SIZE_MAX), "valloc(SIZE_MAX)");
	TRY(pvalloc(100), "pvalloc(100)");
	TRY(pvalloc(SIZE_MAX), "pvalloc(SIZE_MAX)");
	errno = SENTINEL;
	size_t u = malloc_usable_size(NULL);
	printf("%-40s %zu errno=%d\n", "malloc_usable_size(NULL)", u, errno);
	return 0;
}
