/* u64map.h - map from 64-bit keys (addresses) to 64-bit values: open addressing with linear
 * probing and backward-shift deletion, so memory stays proportional to the live entries.
 * 16 bytes per slot, at most 3/4 full.  Lookups are inline: trace2wl does several a record.
 * A set of keys (thread ids) is a map whose values go unused: u64map_add.  The table comes
 * from calloc, or from the pair of functions a user sets (trace_run's validation: memory that
 * is not the allocator's under test). */
#ifndef U64MAP_H
#define U64MAP_H
#include <stddef.h>
#include <stdint.h>

struct u64map {
	struct u64map_slot { uint64_t key, val; } *slots;   /* key 0 = empty (key 0 kept aside) */
	size_t cap, n;
	int has_zero;
	uint64_t zero_val;
	void *(*alloc)(size_t bytes);             /* zeroed memory; NULL: calloc */
	void (*release)(void *p, size_t bytes);   /* what alloc gave; NULL: free */
};

/* set key to val; 0 ok, -1 out of memory */
int u64map_put(struct u64map *m, uint64_t key, uint64_t val);
void u64map_free(struct u64map *m);

/* the out-of-line halves of the inline calls below */
int u64map_grow(struct u64map *m);
void u64map_remove_at(struct u64map *m, size_t i);
uint64_t *u64map_zero(const struct u64map *m);

/* a 64-bit key's bits mixed (murmur3's finalizer, first half): addresses differ mostly in
   their middle bits */
static inline uint64_t u64_mix(uint64_t key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return key;
}

static inline size_t u64map_home(uint64_t key, size_t cap)
{
	return (size_t)u64_mix(key) & (cap - 1);
}

/* index of key's slot, or of the empty slot where it would go (cap > 0, key != 0) */
static inline size_t u64map_find(const struct u64map *m, uint64_t key)
{
	size_t i = u64map_home(key, m->cap);
	while (m->slots[i].key != key && m->slots[i].key != 0)
		i = (i + 1) & (m->cap - 1);
	return i;
}

/* pointer to the value of key, or NULL */
static inline uint64_t *u64map_get(const struct u64map *m, uint64_t key)
{
	if (__builtin_expect(key == 0 || m->cap == 0, 0))
		return key == 0 ? u64map_zero(m) : NULL;
	size_t i = u64map_find(m, key);
	return m->slots[i].key ? &m->slots[i].val : NULL;
}

/* remove key and give its value (one probe); 1 if it was there */
static inline int u64map_take(struct u64map *m, uint64_t key, uint64_t *val)
{
	if (__builtin_expect(key == 0, 0)) {
		if (!m->has_zero)
			return 0;
		*val = m->zero_val;
		m->has_zero = 0;
		return 1;
	}
	if (m->cap == 0)
		return 0;
	size_t i = u64map_find(m, key);
	if (m->slots[i].key == 0)
		return 0;
	*val = m->slots[i].val;
	u64map_remove_at(m, i);
	return 1;
}

/* remove key; 1 if it was there */
static inline int u64map_del(struct u64map *m, uint64_t key)
{
	uint64_t v;
	return u64map_take(m, key, &v);
}

/* set key to val and give the value it replaced (one probe): 1 replaced, 0 added, -1 no memory */
static inline int u64map_swap(struct u64map *m, uint64_t key, uint64_t val, uint64_t *old)
{
	if (__builtin_expect(key == 0, 0)) {
		int had = m->has_zero;
		*old = m->zero_val;
		m->has_zero = 1;
		m->zero_val = val;
		return had;
	}
	if (__builtin_expect((m->n + 1) * 4 > m->cap * 3, 0) && u64map_grow(m) < 0)
		return -1;
	size_t i = u64map_find(m, key);
	int had = m->slots[i].key == key;
	if (had)
		*old = m->slots[i].val;
	else
		m->n++;
	m->slots[i].key = key;
	m->slots[i].val = val;
	return had;
}

/* add key to a map used as a set: 1 if added, 0 if present, -1 out of memory */
static inline int u64map_add(struct u64map *m, uint64_t key)
{
	uint64_t old;
	int had = u64map_swap(m, key, 0, &old);
	return had < 0 ? -1 : !had;
}
#endif
