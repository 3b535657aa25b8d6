/* own_malloc - a program with its own allocator linked in, as Chromium has: it defines the
 * allocator functions itself, so the dynamic linker binds every caller (libc included) to them,
 * ahead of any preload.  A bump allocator over a static arena; free does nothing.
 * Prints how many calls it served, so a run under the tracer can be compared with one without.
 * valloc, pvalloc and reallocarray are left to libc, and never called. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Alignas(64) char arena[8 << 20];
static size_t used;
static unsigned long served;

static void *bump(size_t align, size_t size)
{
	/* each block is preceded by its size, for realloc */
	size_t start = (used + sizeof(size_t) + align - 1) & ~(align - 1);
	if (size > sizeof arena || start + size > sizeof arena) {
		errno = ENOMEM;
		return NULL;
	}
	used = start + size;
	memcpy(arena + start - sizeof(size_t), &size, sizeof size);
	served++;
	return arena + start;
}

void *malloc(size_t size) { return bump(16, size); }
void free(void *p) { (void)p; }
void *calloc(size_t n, size_t size)
{
	size_t total;
	if (__builtin_mul_overflow(n, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	return bump(16, total);   /* the arena is never reused: already zero */
}
void *realloc(void *old, size_t size)
{
	void *p = bump(16, size);
	if (p && old) {
		size_t was;
		memcpy(&was, (char *)old - sizeof(size_t), sizeof was);
		memcpy(p, old, was < size ? was : size);
	}
	return p;
}
void *memalign(size_t align, size_t size) { return bump(align < 16 ? 16 : align, size); }
void *aligned_alloc(size_t align, size_t size) { return memalign(align, size); }
int posix_memalign(void **out, size_t align, size_t size)
{
	void *p = memalign(align, size);
	if (p == NULL)
		return ENOMEM;
	*out = p;
	return 0;
}

int main(void)
{
	for (int i = 0; i < 1000; i++) {
		char *p = malloc(100 + i);
		p[0] = 1;
		p = realloc(p, 300 + i);
		free(p);
	}
	printf("own allocator served %lu calls\n", served);
	return 0;
}
