/* u64set.h - a set of 64-bit keys (thread ids, addresses): open addressing, grows by doubling. */
#ifndef U64SET_H
#define U64SET_H
#include <stddef.h>
#include <stdint.h>

struct u64set {
	uint64_t *keys;     /* 0 marks an empty slot; key 0 is kept aside in has_zero */
	size_t cap, n;
	int has_zero;
};

/* 1 if added, 0 if present, -1 out of memory */
int u64set_add(struct u64set *s, uint64_t key);
int u64set_has(const struct u64set *s, uint64_t key);
void u64set_free(struct u64set *s);
#endif
