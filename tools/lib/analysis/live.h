/* live.h - the blocks live at each point of a trace, by address, and the peak of their
 * requested bytes (the ideal RSS): the one account of them that trace2wl, trace_stats and
 * trace_plot keep.
 *
 * The caller keeps what it knows of each block in a table (trace2wl a slot's last user,
 * trace_stats and trace_plot a block's thread and birth), of its own (trace2wl: its slots) or
 * the tracker's (live_new_block); every entry starts with the block's requested bytes, which
 * the tracker reads when a block stops being live.  The tracker maps an address to the number
 * of the block live there.  Inline: trace2wl calls it for every event, with the address's hash
 * computed ahead (addrmap_prefetch).
 */
#ifndef LIVE_H
#define LIVE_H
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "addrmap.h"

struct live {
	struct addrmap addr;          /* address -> number of the block live there */
	char *table;                  /* the caller's table of blocks, entries of stride bytes */
	size_t stride;                /* each starting with its requested bytes (a uint64_t) */
	uint64_t bytes, n;            /* live now: requested bytes, blocks */
	uint64_t peak, peak_at;       /* the most bytes live, and the caller's stamp when first */
	/* the tracker's table (live_new_block): a free entry's size word links the free list */
	char *own;
	uint64_t nown, cap_own, free_own;   /* free_own: the first free entry + 1 */
};

/* live_add's result: flags */
#define LIVE_REPLACED 1   /* a block was still live at that address: its free is missing or came
			     late; it is no longer counted (*old: its number) */
#define LIVE_PEAK     2   /* this block took the live bytes to a new peak */

static inline void live_init(struct live *l, void *table, size_t stride)
{
	*l = (struct live){ .table = table, .stride = stride };
	addrmap_init(&l->addr);
}

/* the caller's table moved (realloc) */
static inline void live_table(struct live *l, void *table)
{
	l->table = table;
}

static inline uint64_t live_size(const struct live *l, uint64_t block)
{
	return *(const uint64_t *)(l->table + block * l->stride);
}

/* Block number `block`, of size bytes, is now live at address a (hash addrmap_hash(a)); at: the
   caller's stamp of this moment, kept if it is the peak.  LIVE_* flags, or -1 out of memory. */
static inline int live_add(struct live *l, uint64_t a, uint64_t hash, uint64_t block, uint64_t size,
			   uint64_t at, uint64_t *old)
{
	int had = addrmap_swap(&l->addr, a, hash, block, old), flags = 0;
	if (had < 0)
		return -1;
	if (had) {
		l->bytes -= live_size(l, *old);
		l->n--;
		flags = LIVE_REPLACED;
	}
	l->bytes += size;
	l->n++;
	if (l->bytes > l->peak) {
		l->peak = l->bytes;
		l->peak_at = at;
		flags |= LIVE_PEAK;
	}
	return flags;
}

/* The block live at a stops being live: 1 and *block its number, or 0 if none was */
static inline int live_remove(struct live *l, uint64_t a, uint64_t hash, uint64_t *block)
{
	if (!addrmap_take(&l->addr, a, hash, block))
		return 0;
	l->bytes -= live_size(l, *block);
	l->n--;
	return 1;
}

/* The same for the address of map entry x (addrmap_take_at) */
static inline int live_remove_at(struct live *l, struct addrmap_entry *x, uint64_t *block)
{
	if (!addrmap_take_at(&l->addr, x, block))
		return 0;
	l->bytes -= live_size(l, *block);
	l->n--;
	return 1;
}

/* the number of the block live at a, or NULL */
static inline uint64_t *live_find(struct live *l, uint64_t a, uint64_t hash)
{
	return addrmap_get(&l->addr, a, hash);
}

/* Call fn(arg, block) for each live block, in no particular order */
static inline void live_each(const struct live *l, void (*fn)(void *arg, uint64_t block), void *arg)
{
	const struct addrmap *m = &l->addr;
	for (size_t i = 0; i < m->cap; i++)
		if (m->e[i].key && m->e[i].val != ADDRMAP_DEAD)
			fn(arg, m->e[i].val);
	if (m->zero_val != ADDRMAP_DEAD)
		fn(arg, m->zero_val);
}

/* ---------------------------------------------------------------------------------------------
   The tracker's table of blocks (live.c), for callers with no numbering of their own: entries
   of stride bytes, numbered from 0, the most recently released handed out first
   ------------------------------------------------------------------------------------------- */

/* a free entry's number (its contents undefined: the caller fills them, size first), or -1
   out of memory */
int64_t live_new_block(struct live *l);
/* block n is free again (after live_remove, or live_add's LIVE_REPLACED) */
void live_release_block(struct live *l, uint64_t n);

static inline void *live_block(const struct live *l, uint64_t n)
{
	return l->table + n * l->stride;
}

static inline void live_free(struct live *l)
{
	addrmap_free(&l->addr);
	free(l->own);
	l->own = NULL;
}
#endif
