/* u_live - unit test of live.h: the live blocks by address and the peak of their bytes (the
 * ideal RSS), held against a model through random allocations and frees (address 0 among
 * them, addresses allocated again while live, frees of addresses never allocated), with the
 * tracker's own table of blocks handing out only free entries. */
#include <stdint.h>
#include "unit.h"
#include "live.h"

struct blk { uint64_t size, born; };   /* an entry: its requested bytes first */

#define ADDRS 600
static int64_t at_addr[ADDRS];         /* the model: the block live at each address, or -1 */
static uint64_t size_of[1 << 16];
static int in_use[1 << 16];

static uint64_t rnd(void)
{
	static uint64_t x = 88172645463325252ull;
	x ^= x << 13, x ^= x >> 7, x ^= x << 17;
	return x;
}

static uint64_t addr(size_t i) { return i ? 0x7f0000001000ull + 16 * (uint64_t)i : 0; }

static uint64_t seen_n, seen_bytes;
static void count(void *arg, uint64_t block)
{
	const struct live *l = arg;
	seen_n++;
	seen_bytes += live_size(l, block);
}

static void basics(void)
{
	struct live l;
	uint64_t old = 0, blk = 0;
	live_init(&l, NULL, sizeof(struct blk));
	int64_t b0 = live_new_block(&l), b1 = live_new_block(&l);
	CHECK(b0 == 0 && b1 == 1, "the tracker's table: blocks numbered from 0");
	((struct blk *)live_block(&l, 0))->size = 100;
	((struct blk *)live_block(&l, 1))->size = 50;
	int f0 = live_add(&l, 0x1000, addrmap_hash(0x1000), 0, 100, 7, &old);
	int f1 = live_add(&l, 0x2000, addrmap_hash(0x2000), 1, 50, 8, &old);
	CHECK(f0 == LIVE_PEAK && f1 == LIVE_PEAK && l.bytes == 150 && l.n == 2 && l.peak == 150 &&
	      l.peak_at == 8, "two blocks: 150 bytes live, each a new peak, the last one's stamp");
	uint64_t *at = live_find(&l, 0x1000, addrmap_hash(0x1000));
	CHECK(at && *at == 0 && !live_find(&l, 0x3000, addrmap_hash(0x3000)),
	      "found by address; no block where none is");
	CHECK(live_remove(&l, 0x1000, addrmap_hash(0x1000), &blk) == 1 && blk == 0 &&
	      l.bytes == 50 && l.n == 1, "removed: its bytes no longer live");
	CHECK(live_remove(&l, 0x1000, addrmap_hash(0x1000), &blk) == 0 && l.bytes == 50,
	      "removed again: nothing there");
	live_release_block(&l, 0);
	CHECK(live_new_block(&l) == 0, "a released block is handed out again");
	((struct blk *)live_block(&l, 0))->size = 10;
	int f = live_add(&l, 0x2000, addrmap_hash(0x2000), 0, 10, 9, &old);
	CHECK(f == LIVE_REPLACED && old == 1 && l.bytes == 10 && l.n == 1 && l.peak == 150 &&
	      l.peak_at == 8, "a block at a live one's address: it replaces it, the peak stays");
	f = live_add(&l, 0, addrmap_hash(0), 1, 50, 10, &old);
	at = live_find(&l, 0, addrmap_hash(0));
	CHECK(f == 0 && at && *at == 1 && l.bytes == 60, "address 0: a block like another");
	int64_t b2 = live_new_block(&l), b3 = live_new_block(&l);
	((struct blk *)live_block(&l, (uint64_t)b2))->size = 90;
	((struct blk *)live_block(&l, (uint64_t)b3))->size = 1;
	f = live_add(&l, 0x3000, addrmap_hash(0x3000), (uint64_t)b2, 90, 11, &old);
	CHECK(f == 0 && l.bytes == 150 && l.peak == 150 && l.peak_at == 8,
	      "back at the peak's 150 bytes: no new peak, its stamp the first time's");
	f = live_add(&l, 0x4000, addrmap_hash(0x4000), (uint64_t)b3, 1, 12, &old);
	CHECK(f == LIVE_PEAK && l.peak == 151 && l.peak_at == 12, "a byte above it: a new peak");
	live_free(&l);
}

int main(void)
{
	basics();

	struct live l;
	live_init(&l, NULL, sizeof(struct blk));
	for (size_t i = 0; i < ADDRS; i++)
		at_addr[i] = -1;
	uint64_t bytes = 0, n = 0, peak = 0, peak_at = 0, replaced = 0, missed = 0;
	int bad = 0, bad_flags = 0, reused = 0, fails = 0;
	for (uint64_t step = 1; step <= 200000; step++) {
		size_t i = (size_t)(rnd() % ADDRS);
		uint64_t a = addr(i), h = addrmap_hash(a), blk, old;
		if (rnd() % 2) {
			int64_t b = live_new_block(&l);
			if (b < 0 || b >= (1 << 16)) {
				fails++;
				break;
			}
			reused += in_use[b];
			in_use[b] = 1;
			uint64_t size = rnd() % 5000;
			size_of[b] = size;
			*(struct blk *)live_block(&l, (uint64_t)b) = (struct blk){ size, step };
			int f = live_add(&l, a, h, (uint64_t)b, size, step, &old);
			int want = 0;
			if (at_addr[i] >= 0) {   /* its free is missing: no longer counted */
				bytes -= size_of[at_addr[i]], n--;
				want = LIVE_REPLACED;
				bad += (int64_t)old != at_addr[i];
				in_use[old] = 0;
				live_release_block(&l, old);
				replaced++;
			}
			at_addr[i] = b;
			bytes += size, n++;
			if (bytes > peak) {
				peak = bytes, peak_at = step;
				want |= LIVE_PEAK;
			}
			bad_flags += f != want;
		} else {
			int had = live_remove(&l, a, h, &blk);
			bad += had != (at_addr[i] >= 0) || (had && (int64_t)blk != at_addr[i]);
			if (had) {
				bytes -= size_of[blk], n--;
				in_use[blk] = 0;
				live_release_block(&l, blk);
			} else {
				missed++;
			}
			at_addr[i] = -1;
		}
		bad += l.bytes != bytes || l.n != n;
	}
	CHECK(fails == 0, "200,000 random allocations and frees: no block number refused");
	CHECK(bad == 0, "... live bytes and blocks the model's after each, each free finding the "
	      "block its address holds (%d not; %llu replaced, %llu frees of nothing)", bad,
	      (unsigned long long)replaced, (unsigned long long)missed);
	CHECK(bad_flags == 0, "... each allocation flagged as it must be: a new peak, a replaced "
	      "block (%d not)", bad_flags);
	CHECK(reused == 0, "... no block number handed out while in use (%d were)", reused);
	CHECK(l.peak == peak && l.peak_at == peak_at,
	      "... the peak the model's: %llu bytes at step %llu", (unsigned long long)l.peak,
	      (unsigned long long)l.peak_at);
	seen_n = seen_bytes = 0;
	live_each(&l, count, &l);
	CHECK(seen_n == n && seen_bytes == bytes, "live_each: every live block once (%llu of %llu)",
	      (unsigned long long)seen_n, (unsigned long long)n);
	int found = 1;
	for (size_t i = 0; i < ADDRS; i++) {
		uint64_t *b = live_find(&l, addr(i), addrmap_hash(addr(i)));
		found &= at_addr[i] >= 0 ? b && (int64_t)*b == at_addr[i] : b == NULL;
	}
	CHECK(found, "live_find: each address's block, or none");
	live_free(&l);
	return unit_done();
}
