/* u_u64map - unit test of u64map.h: a map of 64-bit keys to values, held against a plain array
 * through random puts, swaps, takes and deletes (key 0 among them, and keys that share a home
 * slot, which deletion's backward shift must keep findable), and through growth. */
#include <stdint.h>
#include "unit.h"
#include "u64map.h"

#define KEYS 4000

static uint64_t keys[KEYS], vals[KEYS];
static int live[KEYS];

static uint64_t rnd(void)
{
	static uint64_t x = 88172645463325252ull;
	x ^= x << 13, x ^= x >> 7, x ^= x << 17;
	return x;
}

/* every key as the model has it: present with its value, or absent; the count the same */
static int agrees(const struct u64map *m)
{
	size_t n = 0;
	for (int i = 0; i < KEYS; i++) {
		uint64_t *v = u64map_get(m, keys[i]);
		if (live[i] ? !v || *v != vals[i] : v != NULL)
			return 0;
		n += live[i] && keys[i] != 0;
	}
	return m->n == n && m->has_zero == live[0];
}

int main(void)
{
	struct u64map m = { 0 };
	CHECK(u64map_get(&m, 42) == NULL && u64map_get(&m, 0) == NULL, "empty map: nothing found");
	CHECK(u64map_del(&m, 42) == 0 && u64map_del(&m, 0) == 0, "empty map: nothing to delete");

	CHECK(u64map_put(&m, 0, 7) == 0 && u64map_get(&m, 0) && *u64map_get(&m, 0) == 7 && m.n == 0,
	      "key 0: kept aside, found");
	uint64_t old = 0;
	CHECK(u64map_swap(&m, 0, 8, &old) == 1 && old == 7 && *u64map_get(&m, 0) == 8,
	      "key 0: swap gives the value it replaced");
	CHECK(u64map_take(&m, 0, &old) == 1 && old == 8 && u64map_get(&m, 0) == NULL,
	      "key 0: taken, then gone");

	CHECK(u64map_put(&m, 5, 50) == 0 && u64map_put(&m, 5, 51) == 0 &&
	      *u64map_get(&m, 5) == 51 && m.n == 1,
	      "put of a key held: its value replaced, one entry");
	CHECK(u64map_swap(&m, 6, 60, &old) == 0 && m.n == 2, "swap of a new key: 0, added");
	CHECK(u64map_swap(&m, 6, 61, &old) == 1 && old == 60,
	      "swap of a key held: 1, the old value");
	CHECK(u64map_take(&m, 5, &old) == 1 && old == 51 && m.n == 1 && !u64map_get(&m, 5),
	      "take: the value, the entry gone");
	CHECK(u64map_take(&m, 5, &old) == 0, "take of a key not held: 0");
	u64map_free(&m);
	CHECK(m.cap == 0 && u64map_get(&m, 6) == NULL, "freed: empty again");

	/* keys: 0, addresses 16 bytes apart, and keys whose home slot is the same in a map of
	   4,096 slots (a run of collisions) */
	keys[0] = 0;
	int k = 1;
	for (; k < KEYS / 2; k++)
		keys[k] = 0x7f0000001000ull + 16 * (uint64_t)k;
	for (uint64_t c = 1; k < KEYS; c++)
		if (u64map_home(c * 0x9e3779b97f4a7c15ull, 4096) == 17)
			keys[k++] = c * 0x9e3779b97f4a7c15ull;
	int bad = 0, steps = 0, fails = 0;
	for (int round = 0; round < 200000; round++) {
		int i = (int)(rnd() % KEYS);
		uint64_t v = rnd(), got = 0;
		switch (rnd() % 4) {
		case 0:
			fails += u64map_put(&m, keys[i], v) != 0;
			live[i] = 1, vals[i] = v;
			break;
		case 1: {
			int had = u64map_swap(&m, keys[i], v, &got);
			bad += had != live[i] || (had && got != vals[i]);
			live[i] = 1, vals[i] = v;
			break;
		}
		case 2: {
			int had = u64map_take(&m, keys[i], &got);
			bad += had != live[i] || (had && got != vals[i]);
			live[i] = 0;
			break;
		}
		default:
			bad += u64map_del(&m, keys[i]) != live[i];
			live[i] = 0;
		}
		if (round % 5000 == 0)
			steps += !agrees(&m);
	}
	CHECK(fails == 0, "200,000 random operations: no put failed");
	CHECK(bad == 0,
	      "... each swap, take and delete said whether the key was there (%d did not)", bad);
	CHECK(steps == 0 && agrees(&m), "... and every key's value is the model's, all along");
	CHECK(m.n * 4 <= m.cap * 3, "at most 3/4 full (%zu in %zu slots)", m.n, m.cap);

	/* everything deleted: the map is empty, and holds again */
	for (int i = 0; i < KEYS; i++) {
		u64map_del(&m, keys[i]);
		live[i] = 0;
	}
	CHECK(m.n == 0 && agrees(&m), "every key deleted: none left");
	for (int i = 0; i < KEYS; i++) {
		u64map_put(&m, keys[i], i);
		live[i] = 1, vals[i] = (uint64_t)i;
	}
	CHECK(agrees(&m), "filled again: every key found");
	u64map_free(&m);

	/* a set: u64map_add */
	CHECK(u64map_add(&m, 0) == 1 && u64map_add(&m, 0) == 0 && u64map_get(&m, 0),
	      "a set: key 0 added once, then held");
	int added = 0, again = 0, held = 0, not_held = 0;
	for (int i = 1; i < KEYS; i += 2)
		added += u64map_add(&m, keys[i]) == 1;
	for (int i = 1; i < KEYS; i += 2)
		again += u64map_add(&m, keys[i]) == 0;
	for (int i = 1; i < KEYS; i++)
		if (i % 2)
			held += u64map_get(&m, keys[i]) != NULL;
		else
			not_held += u64map_get(&m, keys[i]) == NULL;
	CHECK(added == KEYS / 2 && again == KEYS / 2, "a set: %d keys added, each once (%d, %d)",
	      KEYS / 2, added, again);
	CHECK(held == KEYS / 2 && not_held == KEYS / 2 - 1, "a set: every key added held, none "
	      "other (%d, %d)", held, not_held);
	u64map_free(&m);
	return unit_done();
}
