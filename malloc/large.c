/* large.c - the large blocks still allocated: their resident bytes when the trace ends.
 *
 * A block of MT_RESIDENT_MIN bytes or more says at its release how much of it was resident
 * (entry.c); one the program never releases would say nothing, and a replay would write all of
 * it (xz exits holding 206 MiB of buffers it wrote 116 MiB of).  So the large blocks allocated
 * while recording are kept in a table, and when the trace is finished each one still there gets
 * a LIVE record with its resident bytes (mincore, as at a release).
 *
 * The table is open-addressed, in static memory whose pages cost nothing until a block lands in
 * them, and takes no lock: an entry is claimed by compare-and-swap and given up by two stores, so
 * that no thread, and no signal handler allocating in one, ever waits for another.  An entry
 * holds the block's address and its size with the trace file it was recorded in (the low 16
 * bits of mt_file.file_id): a fork child's file, or the next file after a stop, finds the earlier
 * entries stale.  A block goes in before its allocation returns to the program and comes out
 * before the allocator takes it back, so no other thread can put the same address in between.
 * An entry given up is left as a tombstone (an address the chain goes on past), reused by the
 * next block that probes it.  A block with no room within MT_LARGE_PROBES entries is counted
 * (the header's live_untracked) and has no LIVE record.  One the program freed while the trace
 * was paused keeps its entry (its free was not seen: the trace holds it as live too), and its
 * LIVE record says what is resident at its address then.
 */
#define _GNU_SOURCE
#include "mt_int.h"

#define MT_LARGE_SLOTS  16384u          /* 256 KiB: 16 bytes an entry, 256 to a page */
#define MT_LARGE_PROBES 32u             /* entries a block may go in: its own and the next 31 */
#define MT_LARGE_GROUP  256u            /* entries a bit of used_groups stands for */
#define GONE UINT64_MAX                 /* a tombstone (no block has that address) */

struct large {
	uint64_t addr;                  /* the block; 0 never used; GONE given up */
	uint64_t info;                  /* size << 16 | file id; 0 while being written */
};
static struct large table[MT_LARGE_SLOTS];
static uint64_t used_groups;            /* bit g: an entry of group g was claimed (the walk at the
                                           end reads those only) */
_Static_assert(MT_LARGE_SLOTS / MT_LARGE_GROUP <= 64, "a bit of used_groups a group");
static uint64_t untracked;              /* blocks with no room, in this file */

static inline uint32_t home(uint64_t a)
{
	return (uint32_t)((a * 0x9e3779b97f4a7c15ull) >> 50);   /* 14 bits: MT_LARGE_SLOTS */
}
_Static_assert(MT_LARGE_SLOTS == 1u << 14, "home() gives 14 bits");

static inline uint64_t info_of(uint64_t size)
{
	if (size > UINT64_MAX >> 16)
		size = UINT64_MAX >> 16;
	return size << 16 | (uint16_t)mt_file.file_id;
}

/* The block at p, of size usable bytes, was allocated and recorded. */
void mt_large_add(const void *p, uint64_t size)
{
	uint64_t a = (uintptr_t)p, info = info_of(size);
	uint32_t h = home(a);
	for (unsigned tries = 0; tries < 4; tries++) {
		struct large *spot = NULL;
		uint64_t was = 0;
		for (uint32_t k = 0; k < MT_LARGE_PROBES; k++) {
			struct large *e = &table[(h + k) & (MT_LARGE_SLOTS - 1)];
			uint64_t cur = __atomic_load_n(&e->addr, __ATOMIC_ACQUIRE);
			if (cur == a) {
				/* its entry is still there: freed while the trace was off, or in
				   another file (only this thread can be putting a there) */
				__atomic_store_n(&e->info, info, __ATOMIC_RELEASE);
				return;
			}
			if (spot == NULL && (cur == 0 || cur == GONE)) {
				spot = e;
				was = cur;
			}
			if (cur == 0)
				break;   /* the chain's end: a is nowhere after */
		}
		if (spot == NULL)
			break;
		if (__atomic_compare_exchange_n(&spot->addr, &was, a, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED)) {
			__atomic_store_n(&spot->info, info, __ATOMIC_RELEASE);
			uint64_t bit = 1ull << ((uint32_t)(spot - table) / MT_LARGE_GROUP);
			if (!(__atomic_load_n(&used_groups, __ATOMIC_RELAXED) & bit))
				__atomic_fetch_or(&used_groups, bit, __ATOMIC_RELAXED);
			return;
		}
		/* another thread claimed it first: look again */
	}
	__atomic_fetch_add(&untracked, 1, __ATOMIC_RELAXED);
}

/* The block at p is about to be given back (or moved by realloc). */
void mt_large_remove(const void *p)
{
	uint64_t a = (uintptr_t)p;
	uint32_t h = home(a);
	for (uint32_t k = 0; k < MT_LARGE_PROBES; k++) {
		struct large *e = &table[(h + k) & (MT_LARGE_SLOTS - 1)];
		uint64_t cur = __atomic_load_n(&e->addr, __ATOMIC_ACQUIRE);
		if (cur == a) {
			/* (info first: a walk that still sees the address skips it) */
			__atomic_store_n(&e->info, 0, __ATOMIC_RELAXED);
			__atomic_store_n(&e->addr, GONE, __ATOMIC_RELEASE);
			return;
		}
		if (cur == 0)
			return;   /* not in the table: allocated before recording, or no room */
	}
}

/* Under lock, as a file opens. */
void mt_large_file_open(void)
{
	MT_ASSERT_LOCKED();
	__atomic_store_n(&untracked, 0, __ATOMIC_RELAXED);
}

uint64_t mt_large_untracked(void)
{
	return __atomic_load_n(&untracked, __ATOMIC_RELAXED);
}

/* The entries of this file's blocks still allocated, from *at on: the next one's index, or
   MT_LARGE_SLOTS when none is left.  *a and *size are its block. */
static uint32_t next_live(uint32_t at, uint64_t *a, uint64_t *size)
{
	uint64_t groups = __atomic_load_n(&used_groups, __ATOMIC_RELAXED);
	uint16_t file = (uint16_t)mt_file.file_id;
	for (; at < MT_LARGE_SLOTS; at++) {
		if (!(groups >> (at / MT_LARGE_GROUP) & 1)) {
			at |= MT_LARGE_GROUP - 1;   /* (the loop's ++ goes to the next group) */
			continue;
		}
		const struct large *e = &table[at];
		uint64_t cur = __atomic_load_n(&e->addr, __ATOMIC_ACQUIRE);
		uint64_t info = __atomic_load_n(&e->info, __ATOMIC_ACQUIRE);
		if (cur == 0 || cur == GONE || info == 0 || (uint16_t)info != file)
			continue;
		*a = cur;
		*size = info >> 16;
		return at;
	}
	return MT_LARGE_SLOTS;
}

/* Under lock, from mt_file_finish: a LIVE record of t's for each block of this file still in
   the table, in chunks of their own.  A block freed by another thread meanwhile may still get
   one (its free's record then precedes it: readers find the address not live). */
void mt_large_finish(struct mt_thread *t)
{
	MT_ASSERT_LOCKED();
	uint64_t a, size;
	unsigned n = 0;
	for (uint32_t i = next_live(0, &a, &size); i < MT_LARGE_SLOTS;
	     i = next_live(i + 1, &a, &size))
		n++;
	struct mtrace_slot *r = NULL;
	unsigned room = 0;
	for (uint32_t i = next_live(0, &a, &size); i < MT_LARGE_SLOTS;
	     i = next_live(i + 1, &a, &size)) {
		if (room < 2) {
			room = 2 * (n ? n : 1);
			if ((r = mt_writer_take_locked(t, &room)) == NULL)
				return;
		}
		uint64_t resident = mt_memory_resident((const void *)(uintptr_t)a, (size_t)size);
		uint64_t ts = mt_thread_ticks(&mt_tls.clk);
		mt_put_wide(r, MTRACE_CALL_LIVE, MTRACE_RF_RESIDENT, 0, ts, a, 0, size, resident, 0,
			    0);
		r += 2;
		room -= 2;
		n -= n > 0;
	}
}
