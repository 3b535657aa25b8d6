/* u64set.c - see u64set.h */
#include <stdlib.h>
#include "u64set.h"

static size_t slot(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;   /* a 64-bit finaliser mix: addresses share low bits */
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

static int grow(struct u64set *s)
{
	size_t cap = s->cap ? s->cap * 2 : 64;
	uint64_t *keys = calloc(cap, sizeof *keys);
	if (keys == NULL)
		return -1;
	for (size_t i = 0; i < s->cap; i++)
		if (s->keys[i]) {
			size_t j = slot(s->keys[i], cap);
			while (keys[j])
				j = (j + 1) & (cap - 1);
			keys[j] = s->keys[i];
		}
	free(s->keys);
	s->keys = keys;
	s->cap = cap;
	return 0;
}

int u64set_add(struct u64set *s, uint64_t key)
{
	if (key == 0) {
		int added = !s->has_zero;
		s->has_zero = 1;
		return added;
	}
	if ((s->n + 1) * 2 > s->cap && grow(s) < 0)
		return -1;
	size_t j = slot(key, s->cap);
	while (s->keys[j]) {
		if (s->keys[j] == key)
			return 0;
		j = (j + 1) & (s->cap - 1);
	}
	s->keys[j] = key;
	s->n++;
	return 1;
}

int u64set_has(const struct u64set *s, uint64_t key)
{
	if (key == 0)
		return s->has_zero;
	if (s->cap == 0)
		return 0;
	size_t j = slot(key, s->cap);
	while (s->keys[j]) {
		if (s->keys[j] == key)
			return 1;
		j = (j + 1) & (s->cap - 1);
	}
	return 0;
}

void u64set_free(struct u64set *s)
{
	free(s->keys);
	s->keys = NULL;
	s->cap = s->n = 0;
	s->has_zero = 0;
}
