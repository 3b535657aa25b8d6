/* u_u64set - unit test of u64set.h: a set of 64-bit keys, held against a plain array as it
 * grows (key 0 among them). */
#include <stdint.h>
#include "unit.h"
#include "u64set.h"

#define KEYS 50000

int main(void)
{
	struct u64set s = { 0 };
	CHECK(u64set_has(&s, 1) == 0 && u64set_has(&s, 0) == 0, "empty set: holds nothing");
	CHECK(u64set_add(&s, 0) == 1 && u64set_add(&s, 0) == 0 && u64set_has(&s, 0) == 1,
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
		added += u64set_add(&s, keys[i]) == 1;
	for (int i = 0; i < KEYS; i += 2)
		again += u64set_add(&s, keys[i]) == 0;
	CHECK(added == KEYS / 2, "%d new keys: each added (%d)", KEYS / 2, added);
	CHECK(again == KEYS / 2, "... each added again: 0, already there (%d)", again);
	int held = 0, not_held = 0;
	for (int i = 0; i < KEYS; i++) {
		if (i % 2 == 0)
			held += u64set_has(&s, keys[i]);
		else
			not_held += !u64set_has(&s, keys[i]);
	}
	CHECK(held == KEYS / 2, "every key added is held (%d)", held);
	CHECK(not_held == KEYS / 2, "no key left out is (%d of %d)", not_held, KEYS / 2);
	CHECK(u64set_has(&s, 0) == 1, "key 0 still held after growth");
	u64set_free(&s);
	CHECK(u64set_has(&s, keys[0]) == 0, "freed: holds nothing");
	return unit_done();
}
