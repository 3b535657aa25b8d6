/* replay_fill.c - a paced replay's large blocks filled as the program filled them (see
 * replay_int.h).  A program often writes a large block long after its malloc, with no call
 * between (sort reads its input into a 1.4 GB buffer, xz's encoders fill theirs): its samples
 * rise where no call is.  A block that carries a RESIDENT is therefore not touched at its call
 * but put in a pool, and the sampler touches pooled blocks, oldest first, as far as the
 * program's memory rose since the last sample (its curve at the replay's clock): a rise the
 * calls made is soon spent on the blocks just pooled, one that came between calls on the blocks
 * that waited.  Whatever a block's resident bytes say and the rises did not bring is touched
 * at its release, and at the program's end: the peak stays the program's.  A block the workload
 * does not say the resident bytes of (one still live when the trace ended) is written as far as
 * the rises go and no further: the program's curve is then all there is to go by.
 *
 * A pooled block's slot carries its entry in its size's high bits.  An entry is touched by the
 * sampler (state BUSY) or given back by the thread that frees the block (CLAIMED), never both:
 * the thread waits the few microseconds of a touch in progress.
 */
#define _GNU_SOURCE
#include <sched.h>
#include "replay_int.h"

enum { FREE_ENTRY, PENDING, BUSY, CLAIMED, FILLED };

#define FILL_STEP (16ull << 20)   /* the most the sampler touches of a block at a time (a
                                     thread freeing it waits for that much) */

int replay_fill_init(struct replay_state *x, uint64_t *harness)
{
	struct fill_pool *f = &x->fill;
	if (!(x->o->pace > 0) || x->o->touch != TOUCH_RESIDENT || !x->clock.on)
		return 0;
	if (!(f->e = replay_map_zero(FILL_ENTRIES * sizeof *f->e, harness)))
		return -1;
	f->on = 1;
	return 0;
}

/* Touch [from, to) of entry e's block as a fill does: a byte a page, and its last byte once it
   is all touched when that is its whole length */
static void touch_part(struct replay_state *x, struct fill *e, uint64_t from, uint64_t to)
{
	volatile char *c = e->p;
	for (uint64_t i = from - from % x->page; i < to; i += x->page)
		c[i] = 1;
	if (to == e->k && e->k == e->n && e->n)
		c[e->n - 1] = 1;
}

uint64_t replay_fill_add(struct replay_state *x, void *p, uint64_t n, uint64_t k, uint64_t done,
			 int known)
{
	struct fill_pool *f = &x->fill;
	if (done >= k)
		return 0;
	uint32_t start = __atomic_load_n(&f->hint, __ATOMIC_RELAXED);
	for (uint32_t i = 0; i < FILL_ENTRIES; i++) {
		uint32_t j = (start + i) % FILL_ENTRIES;
		struct fill *e = &f->e[j];
		uint32_t st = FREE_ENTRY;
		if (__atomic_load_n(&e->state, __ATOMIC_RELAXED) != FREE_ENTRY ||
		    !__atomic_compare_exchange_n(&e->state, &st, CLAIMED, 0, __ATOMIC_ACQUIRE,
						 __ATOMIC_RELAXED))
			continue;
		e->p = p, e->n = n, e->k = k, e->done = done, e->known = known;
		e->seq = __atomic_add_fetch(&f->seq, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&e->state, PENDING, __ATOMIC_RELEASE);
		__atomic_store_n(&f->hint, (j + 1) % FILL_ENTRIES, __ATOMIC_RELAXED);
		return (uint64_t)(j + 1) << FILL_SHIFT;
	}
	return 0;   /* full: the caller touches it now */
}

void replay_fill_release(struct replay_state *x, uint64_t size)
{
	struct fill *e = &x->fill.e[(size >> FILL_SHIFT) - 1];
	for (;;) {
		uint32_t st = __atomic_load_n(&e->state, __ATOMIC_ACQUIRE);
		if (st == BUSY) {
			sched_yield();
			continue;
		}
		if (__atomic_compare_exchange_n(&e->state, &st, CLAIMED, 0, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			break;
	}
	if (e->known && e->done < e->k)   /* the program had it resident at its release */
		touch_part(x, e, e->done, e->k);
	__atomic_store_n(&e->state, FREE_ENTRY, __ATOMIC_RELEASE);
}

/* The oldest entry still to fill, taken (BUSY), or NULL */
static struct fill *oldest(struct fill_pool *f)
{
	for (;;) {
		struct fill *best = NULL;
		for (uint32_t i = 0; i < FILL_ENTRIES; i++) {
			struct fill *e = &f->e[i];
			if (__atomic_load_n(&e->state, __ATOMIC_ACQUIRE) == PENDING &&
			    (!best || e->seq < best->seq))
				best = e;
		}
		uint32_t st = PENDING;
		if (!best || __atomic_compare_exchange_n(&best->state, &st, BUSY, 0,
							 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return best;   /* (else freed meanwhile: look again) */
	}
}

void replay_fill_tick(struct replay_state *x, double prog_anon)
{
	struct fill_pool *f = &x->fill;
	if (!f->on)
		return;
	double rise = prog_anon - f->last_anon;
	f->last_anon = prog_anon;
	if (rise > 0)
		f->credit += rise;
	while (f->credit >= (double)x->page) {
		struct fill *e = oldest(f);
		if (!e) {
			f->credit = 0;   /* (a rise with nothing to fill was the calls') */
			break;
		}
		uint64_t left = e->k - e->done, n = left < FILL_STEP ? left : FILL_STEP;
		if ((double)n > f->credit)
			n = (uint64_t)f->credit;
		touch_part(x, e, e->done, e->done + n);
		e->done += n;
		f->credit -= (double)n;
		__atomic_store_n(&e->state, e->done < e->k ? PENDING : FILLED, __ATOMIC_RELEASE);
	}
}

void replay_fill_finish(struct replay_state *x)
{
	struct fill_pool *f = &x->fill;
	if (!f->on)
		return;
	int pending = 0;
	for (uint32_t i = 0; i < FILL_ENTRIES && !pending; i++)
		pending = __atomic_load_n(&f->e[i].state, __ATOMIC_ACQUIRE) == PENDING;
	if (!pending)
		return;
	/* the program went on filling after its last call: its time, then the rest of what the
	   workload says was resident */
	replay_pace_wait(x->t0_ns, x->o->pace, x->clock.end_us);
	for (struct fill *e; (e = oldest(f));) {
		if (e->known)
			touch_part(x, e, e->done, e->k), e->done = e->k;
		__atomic_store_n(&e->state, FILLED, __ATOMIC_RELEASE);
	}
}
