/* u64map.c - see u64map.h */
#include <stdlib.h>
#include "u64map.h"

uint64_t *u64map_zero(const struct u64map *m)
{
	return m->has_zero ? (uint64_t *)&m->zero_val : NULL;
}

static void release(struct u64map *m)
{
	if (m->release && m->slots)
		m->release(m->slots, m->cap * sizeof *m->slots);
	else if (!m->release)
		free(m->slots);
}

int u64map_grow(struct u64map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 1024;
	struct u64map_slot *s = m->alloc ? m->alloc(cap * sizeof *s) : calloc(cap, sizeof *s);
	if (s == NULL)
		return -1;
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].key) {
			size_t j = u64map_home(m->slots[i].key, cap);
			while (s[j].key)
				j = (j + 1) & (cap - 1);
			s[j] = m->slots[i];
		}
	release(m);
	m->slots = s;
	m->cap = cap;
	return 0;
}

int u64map_put(struct u64map *m, uint64_t key, uint64_t val)
{
	uint64_t old;
	return u64map_swap(m, key, val, &old) < 0 ? -1 : 0;
}

/* backward-shift deletion of the entry at i */
void u64map_remove_at(struct u64map *m, size_t i)
{
	size_t mask = m->cap - 1;
	for (size_t j = (i + 1) & mask; m->slots[j].key; j = (j + 1) & mask) {
		size_t h = u64map_home(m->slots[j].key, m->cap);
		/* move j into the hole at i unless its home lies cyclically in (i, j] */
		if (((j - h) & mask) >= ((j - i) & mask)) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i].key = 0;
	m->slots[i].val = 0;
	m->n--;
}

void u64map_free(struct u64map *m)
{
	release(m);
	m->slots = NULL;
	m->cap = m->n = 0;
	m->has_zero = 0;
}
