/* addrmap.h - a map from block address to a caller's number (trace2wl's slot, trace_stats' block)
 * for live.h: open addressing, linear probing, and tombstones that keep their address.
 *
 * Allocators hand a freed address out again soon, so a freed entry keeps its key and is marked
 * dead: the next allocation at that address finds it on the first probe and revives it, with no
 * shifting on free.  Dead entries are swept when the table is 3/4 used, into a table of 2.5
 * times as many entries as are live (any size: a hash picks its home by multiplication, not a
 * mask), so memory follows the live blocks, not the addresses ever seen: 16 bytes an entry, 21
 * to 40 bytes a live block.  (Twice as many, 21 to 32 bytes, took 4-6% longer on trace2wl's
 * bench: a probe goes on past more entries.)  Tables are mapped directly, and the old one is
 * unmapped piece by piece while a rehash empties it, so a rehash never holds both tables whole.
 */
#ifndef ADDRMAP_H
#define ADDRMAP_H
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "u64map.h"   /* u64_mix */

#define ADDRMAP_DEAD UINT64_MAX   /* the value of a removed entry (no number reaches it) */

struct addrmap {
	struct addrmap_entry { uint64_t key, val; } *e;   /* key 0: never used */
	size_t cap, used, live;                            /* used counts the dead too */
	uint64_t zero_val;                                 /* address 0 (hostile traces), or DEAD */
};

/* A key's hash, which every call below takes beside the key: a caller that asked for the
   key's entry ahead (addrmap_prefetch) has it already, and the table's size does not enter it,
   so a rehash in between does not spoil it */
static inline uint64_t addrmap_hash(uint64_t key)
{
	return u64_mix(key);
}

static inline size_t addrmap_home(uint64_t hash, size_t cap)
{
#if defined(__SIZEOF_INT128__)
	return (size_t)(((unsigned __int128)hash * cap) >> 64);   /* in [0, cap) for any cap */
#else
	return (size_t)(((hash >> 32) * (uint64_t)cap) >> 32);    /* 32-bit size_t: cap < 2^32 */
#endif
}

/* ask for the home entry of a key of this hash, to be looked up soon (no table yet: nothing) */
static inline void addrmap_prefetch(const struct addrmap *m, uint64_t hash)
{
	if (__builtin_expect(m->cap != 0, 1))
		__builtin_prefetch(m->e + addrmap_home(hash, m->cap));
}

/* the entry of key, live or dead, or the empty one where it would go (cap > 0, key != 0): a
   walk of pointers, 8 instructions a step, whose wrap is a compare taken only at the table's
   end (an index wrapped by a conditional move and scaled at each step costs 12) */
static inline struct addrmap_entry *addrmap_find(const struct addrmap *m, uint64_t key,
						 uint64_t hash)
{
	struct addrmap_entry *x = m->e + addrmap_home(hash, m->cap), *end = m->e + m->cap;
	while (x->key != key && x->key != 0)
		if (++x == end)
			x = m->e;
	return x;
}

#define ADDRMAP_UNMAP_STEP (1u << 20)   /* bytes of the old table given back at a time */
#define ADDRMAP_HUGE_MIN (4u << 20)      /* bytes of a table asked to be in huge pages */

/* Rebuild without the dead, 2.5 times as large as the live entries.  0 or -1. */
static inline int addrmap_rehash(struct addrmap *m)
{
	size_t cap = (m->live + 1) * 5 / 2 > 1024 ? (m->live + 1) * 5 / 2 : 1024;
	struct addrmap_entry *n = mmap(NULL, cap * sizeof *n, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (n == MAP_FAILED)
		return -1;
#ifdef MADV_HUGEPAGE
	/* a large table in 2 MiB pages: its entries are written at random, each 4 KiB page a
	   fault of its own otherwise (python's 1.2 M live blocks: 47,000 faults more, a seventh
	   of trace2wl's time) */
	if (cap * sizeof *n >= ADDRMAP_HUGE_MIN)
		madvise(n, cap * sizeof *n, MADV_HUGEPAGE);
#endif
	struct addrmap fresh = { .e = n, .cap = cap };
	size_t per_step = ADDRMAP_UNMAP_STEP / sizeof *n;
	for (size_t done = 0, stop; done < m->cap; done = stop) {
		stop = m->cap - done > per_step ? done + per_step : m->cap;
		for (size_t i = done; i < stop; i++) {
			struct addrmap_entry x = m->e[i];
			if (x.key && x.val != ADDRMAP_DEAD)   /* (its key is not in n yet) */
				*addrmap_find(&fresh, x.key, addrmap_hash(x.key)) = x;
		}
		munmap(m->e + done, (stop - done) * sizeof *n);
	}
	m->e = n;
	m->cap = cap;
	m->used = m->live;
	return 0;
}

static inline void addrmap_init(struct addrmap *m)
{
	m->e = NULL;
	m->cap = m->used = m->live = 0;
	m->zero_val = ADDRMAP_DEAD;
}

/* pointer to the number of live block key, or NULL */
static inline uint64_t *addrmap_get(struct addrmap *m, uint64_t key, uint64_t hash)
{
	if (__builtin_expect(key == 0, 0))
		return m->zero_val != ADDRMAP_DEAD ? &m->zero_val : NULL;
	if (m->cap == 0)
		return NULL;
	struct addrmap_entry *x = addrmap_find(m, key, hash);
	return x->key && x->val != ADDRMAP_DEAD ? &x->val : NULL;
}

/* remove live block key, giving its number: 1, or 0 if it was not live */
static inline int addrmap_take(struct addrmap *m, uint64_t key, uint64_t hash, uint64_t *val)
{
	uint64_t *v = addrmap_get(m, key, hash);
	if (v == NULL)
		return 0;
	*val = *v;
	*v = ADDRMAP_DEAD;
	if (key != 0)
		m->live--;
	return 1;
}

/* remove the live block of entry x, which addrmap_find gave for a key not 0 with no insertion
   that rehashed since (one into an empty entry moves none): 1 and its number, or 0 if it
   is not live */
static inline int addrmap_take_at(struct addrmap *m, struct addrmap_entry *x, uint64_t *val)
{
	if (x->val == ADDRMAP_DEAD)
		return 0;
	*val = x->val;
	x->val = ADDRMAP_DEAD;
	m->live--;
	return 1;
}

/* key now holds val (< ADDRMAP_DEAD); *old gets what it held: 1 it was live, 0 not, -1 no memory */
static inline int addrmap_swap(struct addrmap *m, uint64_t key, uint64_t hash, uint64_t val,
			       uint64_t *old)
{
	if (__builtin_expect(key == 0, 0)) {
		*old = m->zero_val;
		m->zero_val = val;
		return *old != ADDRMAP_DEAD;
	}
	if (__builtin_expect(m->cap == 0, 0) && addrmap_rehash(m) < 0)
		return -1;
	struct addrmap_entry *x = addrmap_find(m, key, hash);
	if (x->key == key) {
		int had = x->val != ADDRMAP_DEAD;
		*old = x->val;
		x->val = val;
		m->live += !had;
		return had;
	}
	if (__builtin_expect((m->used + 1) * 4 > m->cap * 3, 0)) {
		if (addrmap_rehash(m) < 0)
			return -1;
		x = addrmap_find(m, key, hash);
	}
	x->key = key;
	x->val = val;
	m->used++;
	m->live++;
	return 0;
}

static inline void addrmap_free(struct addrmap *m)
{
	if (m->e)
		munmap(m->e, m->cap * sizeof *m->e);
	addrmap_init(m);
}
#endif
