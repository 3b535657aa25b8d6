/* live.c - see live.h: the tracker's own table of blocks */
#include <stdlib.h>
#include "live.h"

#define LIVE_TABLE_FIRST 4096   /* entries of a new table; it doubles */

int64_t live_new_block(struct live *l)
{
	uint64_t n;
	if (l->free_own) {
		n = l->free_own - 1;
		l->free_own = live_size(l, n);
		return (int64_t)n;
	}
	if (l->nown == l->cap_own) {
		uint64_t cap = l->cap_own ? l->cap_own * 2 : LIVE_TABLE_FIRST;
		char *t = realloc(l->own, cap * l->stride);
		if (!t)
			return -1;
		l->own = t;
		l->table = t;
		l->cap_own = cap;
	}
	return (int64_t)l->nown++;
}

void live_release_block(struct live *l, uint64_t n)
{
	*(uint64_t *)live_block(l, n) = l->free_own;
	l->free_own = n + 1;
}
