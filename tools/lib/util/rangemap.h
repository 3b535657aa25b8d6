/* rangemap.h - disjoint address ranges [start, end), each with a value, in address order: the
 * program's own mappings as a trace shows them, which a munmap may cut anywhere (its middle, a
 * head, a tail, several at once).  A treap: insert, cut and find in O(log n) whatever order the
 * addresses come in (mmap hands them out downwards, which a sorted array would pay for with a
 * move of everything at each insert).
 */
#ifndef RANGEMAP_H
#define RANGEMAP_H
#include <stdint.h>

struct rangemap_node { uint64_t start, end, val; uint32_t left, right, prio; };

struct rangemap {
	struct rangemap_node *node;   /* [0] is the empty tree */
	uint32_t root, free, used, cap;
	uint32_t seed;
	uint64_t count;               /* ranges held */
	uint64_t bytes;               /* their lengths summed */
};

/* A piece cut out by rangemap_remove: [start, end) of a range whose value was val. */
typedef void (*rangemap_fn)(void *ctx, uint64_t start, uint64_t end, uint64_t val);

/* [start, end) with val; it must overlap no range held (remove first).  0, or -1 out of memory
   (nothing changed). */
int rangemap_insert(struct rangemap *m, uint64_t start, uint64_t end, uint64_t val);
/* Cut [start, end) out of every range it overlaps, fn (may be NULL) told of each piece, in
   address order; what lies outside stays, with its value.  0, or -1 out of memory (nothing
   changed). */
int rangemap_remove(struct rangemap *m, uint64_t start, uint64_t end, rangemap_fn fn, void *ctx);
/* The range holding addr, or NULL (valid until the next change). */
const struct rangemap_node *rangemap_find(const struct rangemap *m, uint64_t addr);
void rangemap_free(struct rangemap *m);
#endif
