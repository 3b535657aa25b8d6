/* rangemap.c - see rangemap.h.  Nodes live in one array (indexes, not pointers: it grows by
 * realloc), keyed by start, heap-ordered by a random priority; split and merge do the rest. */
#include <stdlib.h>
#include "rangemap.h"

/* a node from the free list or the array's end (grown); 0 out of memory */
static uint32_t node_new(struct rangemap *m)
{
	if (m->free) {
		uint32_t i = m->free;
		m->free = m->node[i].left;
		return i;
	}
	if (m->used + 1 >= m->cap) {
		uint32_t cap = m->cap ? m->cap * 2 : 64;
		if (cap < m->cap)
			return 0;
		struct rangemap_node *n = realloc(m->node, (size_t)cap * sizeof *n);
		if (!n)
			return 0;
		if (!m->node)
			n[0] = (struct rangemap_node){ 0 };
		m->node = n;
		m->cap = cap;
		if (!m->used)
			m->used = 1;   /* [0] is the empty tree */
	}
	return m->used++;
}

static void node_free(struct rangemap *m, uint32_t i)
{
	m->node[i].left = m->free;
	m->free = i;
}

/* Is there a node to take once the tree is being changed (so that nothing fails halfway)? */
static int reserve(struct rangemap *m)
{
	if (m->free)
		return 0;
	uint32_t i = node_new(m);
	if (!i)
		return -1;
	node_free(m, i);
	return 0;
}

static uint32_t prio(struct rangemap *m)
{
	uint32_t x = m->seed ? m->seed : 0x9e3779b9u;   /* xorshift32 */
	x ^= x << 13, x ^= x >> 17, x ^= x << 5;
	return m->seed = x;
}

/* t split into the nodes starting before key (*l) and the others (*r) */
static void split(struct rangemap_node *n, uint32_t t, uint64_t key, uint32_t *l, uint32_t *r)
{
	if (!t) {
		*l = *r = 0;
		return;
	}
	if (n[t].start < key) {
		split(n, n[t].right, key, &n[t].right, r);
		*l = t;
	} else {
		split(n, n[t].left, key, l, &n[t].left);
		*r = t;
	}
}

/* every node of l before every node of r */
static uint32_t merge(struct rangemap_node *n, uint32_t l, uint32_t r)
{
	if (!l || !r)
		return l ? l : r;
	if (n[l].prio > n[r].prio) {
		n[l].right = merge(n, n[l].right, r);
		return l;
	}
	n[r].left = merge(n, l, n[r].left);
	return r;
}

int rangemap_insert(struct rangemap *m, uint64_t start, uint64_t end, uint64_t val)
{
	if (end <= start)
		return 0;
	uint32_t i = node_new(m);
	if (!i)
		return -1;
	m->node[i] = (struct rangemap_node){ start, end, val, 0, 0, prio(m) };
	uint32_t l, r;
	split(m->node, m->root, start, &l, &r);
	m->root = merge(m->node, merge(m->node, l, i), r);
	m->count++;
	m->bytes += end - start;
	return 0;
}

/* The nodes of t, all of which start inside [start, end), removed in address order: each
   piece told, a tail past end kept in *tail (a new node, at most one: ranges are disjoint). */
static void remove_all(struct rangemap *m, uint32_t t, uint64_t end, rangemap_fn fn, void *ctx,
		       uint32_t *tail)
{
	if (!t)
		return;
	struct rangemap_node *x = &m->node[t];
	uint32_t left = x->left, right = x->right;
	remove_all(m, left, end, fn, ctx, tail);
	x = &m->node[t];
	uint64_t cut = x->end < end ? x->end : end;
	if (x->end > end) {   /* the one that runs past the end: its tail stays, in this node */
		if (fn)
			fn(ctx, x->start, cut, x->val);
		m->bytes -= cut - x->start;
		x->start = end;
		x->left = x->right = 0;
		*tail = t;
	} else {
		if (fn)
			fn(ctx, x->start, cut, x->val);
		m->bytes -= x->end - x->start;
		m->count--;
		node_free(m, t);
	}
	remove_all(m, right, end, fn, ctx, tail);
}

int rangemap_remove(struct rangemap *m, uint64_t start, uint64_t end, rangemap_fn fn, void *ctx)
{
	if (end <= start || !m->root)
		return 0;
	if (reserve(m) < 0)
		return -1;
	struct rangemap_node *n = m->node;
	uint32_t l, r, mid, rest, tail = 0;
	split(n, m->root, start, &l, &r);
	/* the last range starting before start may reach into the cut */
	uint32_t last = l;
	while (last && n[last].right)
		last = n[last].right;
	if (last && n[last].end > start) {
		struct rangemap_node *x = &n[last];
		uint64_t cut = x->end < end ? x->end : end;
		if (fn)
			fn(ctx, start, cut, x->val);
		m->bytes -= cut - start;
		if (x->end > end) {   /* the cut is inside it: its tail is a range of its own */
			uint32_t i = node_new(m);   /* (reserved: cannot fail) */
			n = m->node;
			n[i] = (struct rangemap_node){ end, n[last].end, n[last].val, 0, 0,
						       prio(m) };
			m->count++;
			tail = i;
		}
		n[last].end = start;
	}
	split(n, r, end, &mid, &rest);
	remove_all(m, mid, end, fn, ctx, &tail);
	n = m->node;
	if (tail)
		n[tail].prio = prio(m), n[tail].left = n[tail].right = 0;
	m->root = merge(n, merge(n, l, tail), rest);
	return 0;
}

const struct rangemap_node *rangemap_find(const struct rangemap *m, uint64_t addr)
{
	const struct rangemap_node *best = NULL;
	for (uint32_t t = m->root; t;) {
		const struct rangemap_node *x = &m->node[t];
		if (x->start <= addr) {
			best = x;
			t = x->right;
		} else
			t = x->left;
	}
	return best && best->end > addr ? best : NULL;
}

void rangemap_free(struct rangemap *m)
{
	free(m->node);
	*m = (struct rangemap){ 0 };
}
