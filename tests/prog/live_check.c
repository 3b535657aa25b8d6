/* live_check - test helper: the live-block tracker (live.h) against a plain model.  Blocks come
 * and go at random addresses (some allocated again while still live, some freed twice, address
 * 0 among them); after each step the live bytes and blocks, the peak and its stamp, and the
 * block found at an address must be the model's.  The tracker's own table must hand a released
 * entry out again and keep the entries' contents when it grows.  Prints each failure; exit 0
 * when there is none. */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "live.h"

static int fails, checks;

#define CHECK(cond, ...) do { checks++; if (!(cond)) { fails++; printf("FAIL: " __VA_ARGS__); \
	putchar('\n'); } } while (0)

#define ADDRS 5000   /* addresses in play: address i is i * 16 (0 is one of them) */

struct blk { uint64_t size, addr; };

static uint64_t rnd(void)
{
	static uint64_t x = 88172645463325252ull;
	x ^= x << 13, x ^= x >> 7, x ^= x << 17;
	return x;
}

int main(void)
{
	/* the model: the size live at each address (0: none) */
	static uint64_t model[ADDRS];
	uint64_t bytes = 0, n = 0, peak = 0, peak_at = 0;
	struct live l;
	live_init(&l, NULL, sizeof(struct blk));
	for (uint64_t step = 1; step <= 200000 && fails < 20; step++) {
		uint64_t i = rnd() % ADDRS, a = i * 16, h = addrmap_hash(a);
		if (rnd() % 2) {   /* an allocation at a, live there or not */
			uint64_t size = 1 + rnd() % 5000, old = 0;
			int64_t b = live_new_block(&l);
			CHECK(b >= 0, "step %llu: no block", (unsigned long long)step);
			if (b < 0)
				break;
			*(struct blk *)live_block(&l, (uint64_t)b) = (struct blk){ size, a };
			int k = live_add(&l, a, h, (uint64_t)b, size, step, &old);
			CHECK(k >= 0, "step %llu: out of memory", (unsigned long long)step);
			CHECK(!(k & LIVE_REPLACED) == !model[i],
			      "step %llu: replaced %d, model %llu", (unsigned long long)step,
			      k & LIVE_REPLACED, (unsigned long long)model[i]);
			if (k & LIVE_REPLACED) {
				const struct blk *o = live_block(&l, old);
				CHECK(o->addr == a && o->size == model[i],
				      "step %llu: replaced the wrong block",
				      (unsigned long long)step);
				live_release_block(&l, old);
				bytes -= model[i], n--;
			}
			model[i] = size, bytes += size, n++;
			int at_peak = bytes > peak;
			if (at_peak)
				peak = bytes, peak_at = step;
			CHECK(!(k & LIVE_PEAK) == !at_peak, "step %llu: peak flag %d, model %d",
			      (unsigned long long)step, !!(k & LIVE_PEAK), at_peak);
		} else {   /* a free of a, live there or not */
			uint64_t b;
			int had = live_remove(&l, a, h, &b);
			CHECK(had == !!model[i], "step %llu: removed %d, model %llu",
			      (unsigned long long)step, had, (unsigned long long)model[i]);
			if (had) {
				const struct blk *o = live_block(&l, b);
				CHECK(o->addr == a && o->size == model[i],
				      "step %llu: removed the wrong block",
				      (unsigned long long)step);
				live_release_block(&l, b);
				bytes -= model[i], n--, model[i] = 0;
			}
		}
		CHECK(l.bytes == bytes && l.n == n,
		      "step %llu: %llu bytes in %llu blocks, model %llu in %llu",
		      (unsigned long long)step, (unsigned long long)l.bytes,
		      (unsigned long long)l.n, (unsigned long long)bytes, (unsigned long long)n);
		CHECK(l.peak == peak && l.peak_at == peak_at,
		      "step %llu: peak %llu at %llu, model %llu at %llu", (unsigned long long)step,
		      (unsigned long long)l.peak, (unsigned long long)l.peak_at,
		      (unsigned long long)peak, (unsigned long long)peak_at);
		uint64_t *f = live_find(&l, a, h);
		CHECK(!f == !model[i], "step %llu: found %d, model %llu", (unsigned long long)step,
		      !!f, (unsigned long long)model[i]);
	}
	/* the peak is when the live bytes first reached it: the same again later is no peak */
	struct live q;
	live_init(&q, NULL, sizeof(struct blk));
	uint64_t b0 = (uint64_t)live_new_block(&q), b1 = (uint64_t)live_new_block(&q), o = 0, got;
	*(struct blk *)live_block(&q, b0) = (struct blk){ 100, 16 };
	*(struct blk *)live_block(&q, b1) = (struct blk){ 100, 32 };
	CHECK(live_add(&q, 16, addrmap_hash(16), b0, 100, 1, &o) == LIVE_PEAK,
	      "first block: a peak");
	CHECK(live_remove(&q, 16, addrmap_hash(16), &got) && got == b0, "first block: removed");
	CHECK(live_add(&q, 32, addrmap_hash(32), b1, 100, 2, &o) == 0,
	      "as many bytes again: no peak");
	CHECK(q.peak == 100 && q.peak_at == 1, "peak %llu at %llu, want 100 at 1",
	      (unsigned long long)q.peak, (unsigned long long)q.peak_at);
	live_free(&q);
	/* the table: a released entry is the next one handed out; growth keeps the contents */
	struct live t;
	live_init(&t, NULL, sizeof(struct blk));
	for (uint64_t i = 0; i < 10000; i++) {
		int64_t b = live_new_block(&t);
		CHECK(b == (int64_t)i, "table: entry %lld, want %llu", (long long)b,
		      (unsigned long long)i);
		if (b >= 0)
			*(struct blk *)live_block(&t, (uint64_t)b) = (struct blk){ i, ~i };
	}
	live_release_block(&t, 17);
	live_release_block(&t, 4242);
	CHECK(live_new_block(&t) == 4242 && live_new_block(&t) == 17 && live_new_block(&t) == 10000,
	      "table: released entries are not handed out last first");
	int kept = 1;
	for (uint64_t i = 0; i < 10000; i++)
		if (i != 17 && i != 4242 && ((struct blk *)live_block(&t, i))->addr != ~i)
			kept = 0;
	CHECK(kept, "table: an entry changed when the table grew");
	live_free(&t);
	live_free(&l);
	printf("%d checks, %d failed\n", checks, fails);
	return fails != 0;
}
