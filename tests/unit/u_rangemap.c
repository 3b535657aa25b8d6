/* u_rangemap - unit test of rangemap.h: disjoint address ranges with values, held against a
 * model (an array with each unit's value) through random inserts and removals that cut ranges
 * anywhere: every address found in the range the model says, the count and bytes the model's,
 * and each removal told of exactly the pieces it cut, in address order. */
#include <stdint.h>
#include "unit.h"
#include "rangemap.h"

#define UNITS 2048                       /* the model: UNITS units of UNIT bytes from BASE */
#define UNIT  4096ull
#define BASE  0x7f0000000000ull

static uint64_t model[UNITS];            /* the value of the range holding a unit, 0: none */

static uint64_t rnd(void)
{
	static uint64_t x = 88172645463325252ull;
	x ^= x << 13, x ^= x >> 7, x ^= x << 17;
	return x;
}

static uint64_t addr(size_t u) { return BASE + u * UNIT; }

/* each unit's first and last byte found in its range, or in none; count and bytes */
static int agrees(const struct rangemap *m)
{
	uint64_t count = 0, bytes = 0;
	for (size_t u = 0; u < UNITS; u++) {
		for (int end = 0; end < 2; end++) {
			uint64_t at = addr(u) + (end ? UNIT - 1 : 0);
			const struct rangemap_node *n = rangemap_find(m, at);
			int in_it = n && n->val == model[u] && n->start <= addr(u) &&
				    n->end >= addr(u + 1);
			if (model[u] ? !in_it : n != NULL)
				return 0;
		}
		if (model[u]) {
			bytes += UNIT;
			count += u == 0 || model[u - 1] != model[u];
		}
	}
	return m->count == count && m->bytes == bytes;
}

/* what a removal is told of */
static struct cut { uint64_t start, end, val; } cuts[UNITS];
static size_t ncuts;
static void on_cut(void *ctx, uint64_t start, uint64_t end, uint64_t val)
{
	(void)ctx;
	if (ncuts < UNITS)
		cuts[ncuts] = (struct cut){ start, end, val };
	ncuts++;
}

/* the pieces the model has in [a, b): as cuts[] must be */
static int cuts_agree(size_t a, size_t b)
{
	size_t k = 0;
	for (size_t u = a; u < b; u++) {
		if (!model[u])
			continue;
		if (u == a || model[u - 1] != model[u]) {   /* a piece begins */
			if (k >= ncuts || cuts[k].start != addr(u) || cuts[k].val != model[u])
				return 0;
			k++;
		}
		if (u + 1 == b || model[u + 1] != model[u])   /* it ends */
			if (cuts[k - 1].end != addr(u + 1))
				return 0;
	}
	return k == ncuts;
}

int main(void)
{
	struct rangemap m = { 0 };
	CHECK(rangemap_find(&m, BASE) == NULL && m.count == 0, "empty: nothing found");
	CHECK(rangemap_insert(&m, addr(10), addr(20), 5) == 0, "insert [10, 20)");
	const struct rangemap_node *n = rangemap_find(&m, addr(15));
	CHECK(n && n->start == addr(10) && n->end == addr(20) && n->val == 5, "found by an address "
	      "inside, with its bounds and value");
	CHECK(rangemap_find(&m, addr(20)) == NULL && rangemap_find(&m, addr(10) - 1) == NULL,
	      "ends exclusive: its end and the byte before its start are outside");
	ncuts = 0;
	CHECK(rangemap_remove(&m, addr(12), addr(14), on_cut, NULL) == 0 && ncuts == 1 &&
	      cuts[0].start == addr(12) && cuts[0].end == addr(14) && cuts[0].val == 5,
	      "a hole cut in the middle: one piece told");
	CHECK(m.count == 2 && m.bytes == 8 * UNIT && rangemap_find(&m, addr(13)) == NULL &&
	      rangemap_find(&m, addr(11))->end == addr(12) && rangemap_find(&m, addr(14))->start ==
	      addr(14), "... two ranges left either side, with the value (%llu, %llu bytes)",
	      (unsigned long long)m.count, (unsigned long long)m.bytes);
	ncuts = 0;
	CHECK(rangemap_remove(&m, addr(0), addr(100), NULL, NULL) == 0 && m.count == 0 &&
	      m.bytes == 0, "a removal over everything, no callback: empty");

	/* random inserts in free space, random removals anywhere */
	uint64_t next_val = 1;
	int bad_find = 0, bad_cuts = 0, fails = 0;
	for (int round = 0; round < 20000; round++) {
		size_t a = (size_t)(rnd() % UNITS);
		size_t len = 1 + (size_t)(rnd() % (rnd() % 2 ? 8 : 300));   /* short, or long */
		size_t b = a + len > UNITS ? UNITS : a + len;
		if (rnd() % 2) {
			size_t e = a;   /* the free run from a, at most to b */
			while (e < b && !model[e])
				e++;
			if (e == a)
				continue;
			fails += rangemap_insert(&m, addr(a), addr(e), next_val) != 0;
			for (size_t u = a; u < e; u++)
				model[u] = next_val;
			next_val++;
		} else {
			ncuts = 0;
			fails += rangemap_remove(&m, addr(a), addr(b), on_cut, NULL) != 0;
			bad_cuts += !cuts_agree(a, b);
			for (size_t u = a; u < b; u++)
				model[u] = 0;
		}
		if (round % 500 == 0)
			bad_find += !agrees(&m);
	}
	CHECK(fails == 0, "20,000 random inserts and removals: none failed");
	CHECK(bad_cuts == 0,
	      "... each removal told of exactly the pieces it cut, in order (%d not)", bad_cuts);
	CHECK(bad_find == 0 && agrees(&m), "... every address found where the model has it, count "
	      "and bytes the model's");

	/* downwards, as mmap hands addresses out */
	rangemap_free(&m);
	memset(model, 0, sizeof model);
	int fails2 = 0;
	for (size_t u = UNITS; u-- > 0;) {
		fails2 += rangemap_insert(&m, addr(u), addr(u + 1), u + 1) != 0;
		model[u] = u + 1;
	}
	CHECK(fails2 == 0 && m.count == UNITS && agrees(&m), "%d ranges inserted downwards, "
	      "adjacent: each its own", UNITS);
	rangemap_free(&m);
	return unit_done();
}
