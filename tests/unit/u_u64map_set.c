/* u_u64map_set - unit test of u64map.h used as a set of 64-bit keys (u64map_add), held
 * against a plain array as it grows (key 0 among them). */
#include <stdint.h>
#include "unit.h"
#include "u64map.h"

#define KEYS 50000

static int has(const struct u64map *m, uint64_t key)
{
	return u64map_get(m, key) != NULL;
}

int main(void)
{
	struct u64map s = { 0 };
	CHECK(has(&s, 1) == 0 && has(&s, 0) == 0, "empty set: holds nothing");
	CHECK(u64map_add(&s, 0) == 1 && u64map_add(&s, 0) == 0 && has(&s, 0) == 1,
	      "key 0: added once, then held");

	static uint64_t keys[KEYS];
	uint64_t x = 88172645463325252ull;
	for (int i = 0; i < KEYS; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		/* random keys, and addresses */
		keys[i] = i % 2 ? x : 0x7f0000000000ull + 64 * (uint64_t)i;
	}
	int added = 0, again = 0;
	for (int i = 0; i < KEYS; i += 2)
		added += u64map_add(&s, keys[i]) == 1;
	for (int i = 0; i < KEYS; i += 2)
		again += u64map_add(&s, keys[i]) == 0;
	CHECK(added == KEYS / 2, "%d new keys: each added (%d)", KEYS / 2, added);
	CHECK(again == KEYS / 2, "... each added again: 0, already there (%d)", again);
	int held = 0, not_held = 0;
	for (int i = 0; i < KEYS; i++) {
		if (i % 2 == 0)
			held += has(&s, keys[i]);
		else
			not_held += !has(&s, keys[i]);
	}
	CHECK(held == KEYS / 2, "every key added is held (%d)", held);
	CHECK(not_held == KEYS / 2, "no key left out is (%d of %d)", not_held, KEYS / 2);
	CHECK(has(&s, 0) == 1, "key 0 still held after growth");
	u64map_free(&s);
	CHECK(has(&s, keys[0]) == 0, "freed: holds nothing");
	return unit_done();
}
