/* u64map.c - see u64map.h */
#include <stdlib.h>
#include "u64map.h"

static size_t home(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

uint64_t *u64map_get(const struct u64map *m, uint64_t key)
{
	if (key == 0)
		return m->has_zero ? (uint64_t *)&m->zero_val : NULL;
	if (m->cap == 0)
		return NULL;
	for (size_t i = home(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->slots[i].key == key)
			return &m->slots[i].val;
		if (m->slots[i].key == 0)
			return NULL;
	}
}

static int grow(struct u64map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 1024;
	struct u64map_slot *s = calloc(cap, sizeof *s);
	if (s == NULL)
		return -1;
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].key) {
			size_t j = home(m->slots[i].key, cap);
			while (s[j].key)
				j = (j + 1) & (cap - 1);
			s[j] = m->slots[i];
		}
	free(m->slots);
	m->slots = s;
	m->cap = cap;
	return 0;
}

int u64map_put(struct u64map *m, uint64_t key, uint64_t val)
{
	if (key == 0) {
		m->has_zero = 1;
		m->zero_val = val;
		return 0;
	}
	if ((m->n + 1) * 4 > m->cap * 3 && grow(m) < 0)
		return -1;
	size_t i = home(key, m->cap);
	while (m->slots[i].key && m->slots[i].key != key)
		i = (i + 1) & (m->cap - 1);
	if (m->slots[i].key == 0)
		m->n++;
	m->slots[i].key = key;
	m->slots[i].val = val;
	return 0;
}

/* backward-shift deletion of the entry at i */
static void remove_at(struct u64map *m, size_t i)
{
	size_t mask = m->cap - 1;
	for (size_t j = (i + 1) & mask; m->slots[j].key; j = (j + 1) & mask) {
		size_t h = home(m->slots[j].key, m->cap);
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

int u64map_take(struct u64map *m, uint64_t key, uint64_t *val)
{
	if (key == 0) {
		if (!m->has_zero)
			return 0;
		*val = m->zero_val;
		m->has_zero = 0;
		return 1;
	}
	if (m->cap == 0)
		return 0;
	for (size_t i = home(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->slots[i].key == key) {
			*val = m->slots[i].val;
			remove_at(m, i);
			return 1;
		}
		if (m->slots[i].key == 0)
			return 0;
	}
}

int u64map_del(struct u64map *m, uint64_t key)
{
	uint64_t v;
	return u64map_take(m, key, &v);
}

int u64map_swap(struct u64map *m, uint64_t key, uint64_t val, uint64_t *old)
{
	if (key == 0) {
		int had = m->has_zero;
		*old = m->zero_val;
		m->has_zero = 1;
		m->zero_val = val;
		return had;
	}
	if ((m->n + 1) * 4 > m->cap * 3 && grow(m) < 0)
		return -1;
	size_t i = home(key, m->cap);
	while (m->slots[i].key && m->slots[i].key != key)
		i = (i + 1) & (m->cap - 1);
	int had = m->slots[i].key == key;
	if (had)
		*old = m->slots[i].val;
	else
		m->n++;
	m->slots[i].key = key;
	m->slots[i].val = val;
	return had;
}

void u64map_free(struct u64map *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->n = 0;
	m->has_zero = 0;
}
