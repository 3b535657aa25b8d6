/* hostile.h - what the hostile programs share: calls in pairs (tests/prog/hostile*.c). */
#ifndef HOSTILE_H
#define HOSTILE_H
#include <stdint.h>
#include <stdlib.h>

static inline void pairs(long n, size_t size)
{
	for (long i = 0; i < n; i++) {
		void *volatile p = malloc(size + (size_t)(i & 255));
		free(p);
	}
}

static inline void *pairs_thread(void *arg)
{
	pairs((long)(intptr_t)arg, 64);
	return NULL;
}
#endif
