/* u64map.h - map from 64-bit keys (addresses) to 64-bit values: open addressing with linear
 * probing and backward-shift deletion, so memory stays proportional to the live entries.
 * 16 bytes per slot, at most 3/4 full. */
#ifndef U64MAP_H
#define U64MAP_H
#include <stddef.h>
#include <stdint.h>

struct u64map {
	struct u64map_slot { uint64_t key, val; } *slots;   /* key 0 = empty (key 0 kept aside) */
	size_t cap, n;
	int has_zero;
	uint64_t zero_val;
};

/* pointer to the value of key, or NULL */
uint64_t *u64map_get(const struct u64map *m, uint64_t key);
/* set key to val; 0 ok, -1 out of memory */
int u64map_put(struct u64map *m, uint64_t key, uint64_t val);
/* remove key; 1 if it was there */
int u64map_del(struct u64map *m, uint64_t key);
/* remove key and give its value (one probe); 1 if it was there */
int u64map_take(struct u64map *m, uint64_t key, uint64_t *val);
/* set key to val and give the value it replaced (one probe): 1 replaced, 0 added, -1 no memory */
int u64map_swap(struct u64map *m, uint64_t key, uint64_t val, uint64_t *old);
void u64map_free(struct u64map *m);
#endif
