/* walk.c - the return addresses of the calling thread's stack, for stacks.c, and the stack's
 * hash.
 *
 * x86-64: step by step (unwind.c) up from the tracer's own frame, reading the stack only
 * between the sp at the start and the end of the mapping holding it (/proc/self/maps, read when
 * the sp is outside the range known to the thread).
 * A thread keeps the frames of its last walk, with where each step read them (a slot of a static
 * pool, claimed at its first walk, given back at its exit).  A walk stops at its first frame equal
 * to a kept one in pc, sp and rbp if every word the kept walk read below it (return addresses,
 * saved rbp) still holds the value read then: as a step is a function of the frame and of those
 * words, the rest of the stack is the kept one, with no rule looked up.  Each kept frame holds
 * the hash of the stack from the bottom up to it, so that a stack's hash costs its new frames.
 * The kept frames are the thread's alone; a walk in a signal handler interrupting one of the
 * same thread (the tracer records no such call: a defence), or a thread with no slot, walks the
 * whole stack, and so does every walk under MTRACE_CTL_STACKS_NOCACHE=1 (to compare).
 *
 * Other architectures: one frame, the return address the entry point read itself.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <unistd.h>
#include "mt_int.h"
#include "unwind_int.h"

static int keep_off;   /* MTRACE_CTL_STACKS_NOCACHE */

void mt_walk_init(int keep)
{
	keep_off = !keep;
}

#ifdef MT_UNWIND_EH

/* ---------------------------------------------------------------------------------------------
   The frames kept of each thread's last walk
   ------------------------------------------------------------------------------------------- */

#define KEEP_HEAD 32u   /* room above a whole walk's frames, for a longer top next time */
#define KEEP_CAP (MTRACE_STACK_DEPTH_MAX + KEEP_HEAD)
#define KEEP_POOL 128u  /* threads with frames kept at once (unused, their pages cost nothing) */
#define TOP_MAX 16u     /* frames walked looking for a kept one before walking the whole */
#define OWN_MAX 9u      /* the tracer's own frames, at most */
#define OWN_PATHS 4u    /* their paths kept (malloc's, calloc's, realloc's...) */
#define NO_KEEP ((struct keep *)1)

struct kept { struct mt_frame f; uint64_t h; };   /* h: the stack's hash from the bottom to f */
struct own { uintptr_t pc; uint32_t ra_off; };   /* the word at first sp + ra_off holds pc */
struct own_path {   /* n 0: none */
	uint32_t n, reach;      /* steps; the bytes above the first sp they read */
	uint32_t dsp;           /* the allocator call's frame: its sp - the first */
	int32_t bp_off;         /* where the last step reading rbp read it (-1: none did) */
	int8_t ra8, bp8;        /* the allocator call's frame's */
	struct own step[OWN_MAX];
};
struct keep {
	struct own_path own[OWN_PATHS];   /* walks through the tracer's frames, the latest kinds */
	uint32_t own_next;      /* the path the next new one replaces */
	uint32_t own_last;      /* the path met last: tried first */
	uint32_t lazy;          /* the frames of the walk just made, to be read from k (0: none) */
	uint32_t base, top;     /* the frames [base, top) of k, the bottom first */
	uint32_t busy;          /* a walk of the thread uses them */
	uint32_t end_fixed;     /* the walk ended at k[base] for its pc alone (no step to retry) */
	uintptr_t hi;           /* the end of the stack they were read in */
	uint32_t epoch;         /* unwind.c's when they were walked: rules forgotten since, gone */
	struct kept k[KEEP_CAP];
};
static struct keep pool[KEEP_POOL];
static uint8_t pool_taken[KEEP_POOL];
static __thread struct keep *mine __attribute__((tls_model("initial-exec")));   /* or NO_KEEP */

static struct keep *keep_claim(void)
{
	for (unsigned i = 0; i < KEEP_POOL; i++) {
		uint8_t free_ = 0;
		if (!__atomic_load_n(&pool_taken[i], __ATOMIC_RELAXED) &&
		    __atomic_compare_exchange_n(&pool_taken[i], &free_, 1, 0, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED)) {
			pool[i].base = pool[i].top = 0;
			for (unsigned p = 0; p < OWN_PATHS; p++)
				pool[i].own[p].n = 0;
			return &pool[i];
		}
	}
	return NO_KEEP;
}

/* The thread ends: its slot for another (its walks from now on walk whole stacks) */
void mt_walk_thread_exit(void)
{
	struct keep *c = mine;
	mine = NO_KEEP;
	if (c != NULL && c != NO_KEEP)
		__atomic_store_n(&pool_taken[c - pool], 0, __ATOMIC_RELEASE);
}

/* In a fork child: the other threads' slots are free */
void mt_walk_fork_child(void)
{
	for (unsigned i = 0; i < KEEP_POOL; i++)
		if (&pool[i] != mine)
			__atomic_store_n(&pool_taken[i], 0, __ATOMIC_RELAXED);
}

/* The first kept frame, from the bottom up to m (excluded), whose words changed since they were
   read (or lie below the stack's part readable now); m if none */
static unsigned first_changed(const struct keep *c, unsigned m, uintptr_t lo)
{
	const struct kept *k = &c->k[c->base], *end = &c->k[m];   /* (by pointer: in registers) */
	for (; k < end; k++) {
		const struct mt_frame *e = &k->f;
		uintptr_t ra_at = e->sp + (intptr_t)e->ra8 * 8, bp_at = e->sp + (intptr_t)e->bp8 * 8;
		if (ra_at < lo || *(const uintptr_t *)ra_at != e->pc)
			break;
		if (e->bp8 && (bp_at < lo || *(const uintptr_t *)bp_at != e->bp))
			break;
	}
	return (unsigned)(k - c->k);
}

static uint64_t hash_frames(const uintptr_t *frames, unsigned n)
{
	uint64_t h = MT_STACK_SEED;
	for (unsigned i = n; i-- > 0;)
		h = mt_stack_fold(h, frames[i], n - 1 - i);
	return h;
}

/* The walk up from top[0] to its first frame kept, the rest from the kept frames: the frames
   found, 0 if none was met within TOP_MAX (or the stack goes on past the kept bottom).  The
   frames are left in c->k for mt_unwind_frames (c->lazy) when the walk is kept whole, else
   written to frames. */
static unsigned walk_kept(struct keep *c, uintptr_t *frames, unsigned max,
			  struct mt_frame *top, uintptr_t lo, uintptr_t hi, int *missed,
			  uint64_t *hash)
{
	unsigned np = 1, i = c->top, bad = UINT_MAX, m = 0;
	int found = 0;
	for (const struct mt_frame *w = top;; w++) {   /* (the step writes the next in place) */
		if (np == max)
			break;
		while (i > c->base && c->k[i - 1].f.sp < w->sp)
			i--;
		if (i == c->base)
			return 0;
		const struct mt_frame *e = &c->k[i - 1].f;
		if (e->sp == w->sp && e->pc == w->pc && e->bp == w->bp) {
			m = i - 1;
			if (bad == UINT_MAX)   /* (later candidates lie deeper: checked already) */
				bad = first_changed(c, m, lo);
			if ((found = m <= bad))
				break;
		}
		if (np == TOP_MAX)
			return 0;
		if (mt_unwind_step(w, &top[np], lo, hi, missed) <= 0 || top[np].pc < 4096)
			break;
		np++;
	}
	if (!found) {   /* the whole stack walked, none of it kept */
		if (np < max)
			return 0;   /* (walked again whole, to be kept: the next may meet it) */
		for (unsigned j = 0; j < np; j++)
			frames[j] = top[j].pc;
		*hash = hash_frames(frames, np);
		return np;
	}
	unsigned below = m - c->base, n = np + below > max ? max : np + below;
	if (n < max && !c->end_fixed) {   /* the kept walk ended there: would this one? */
		struct mt_frame b = c->k[c->base].f;
		if (mt_unwind_step(&b, &b, lo, hi, missed) > 0 && b.pc >= 4096)
			return 0;
	}
	int fits = m + np <= KEEP_CAP, whole = n == np + below;
	if (!fits || !whole) {   /* (k will not hold the frames as they are) */
		for (unsigned j = 0; j < np; j++)
			frames[j] = top[j].pc;
		for (unsigned j = np; j < n; j++)
			frames[j] = c->k[m - 1 - (j - np)].f.pc;
	}
	/* the new top kept over the old from m up, each frame's hash folded onto those below */
	uint64_t h = c->k[m].h;   /* (the frame met: its pc and those below as kept) */
	if (fits)
		c->k[m].f = top[np - 1];
	for (unsigned j = np - 1; j-- > 0;) {
		unsigned at = m + (np - 1 - j);
		h = mt_stack_fold(h, top[j].pc, at - c->base);
		if (fits) {
			c->k[at].f = top[j];
			c->k[at].h = h;
		}
	}
	if (fits)
		c->top = m + np;
	if (fits && whole)
		c->lazy = n;   /* (frame j at k[top - 1 - j]) */
	*hash = whole ? h : hash_frames(frames, n);   /* (cut at max: not the kept's) */
	return n;
}

/* The whole walk up from w (frame 0), its frames kept in c if not NULL */
static unsigned walk_whole(struct keep *c, uintptr_t *frames, unsigned max, struct mt_frame w,
			   uintptr_t lo, uintptr_t hi, int *missed, uint64_t *hash)
{
	struct kept *k = c ? &c->k[KEEP_CAP - KEEP_HEAD - 1] : NULL;   /* frame i at k[-i] */
	unsigned n = 0;
	int step = -1;
	for (;;) {
		frames[n] = w.pc;
		if (k)
			k[-(ptrdiff_t)n].f = w;
		n++;
		if (n == max || (step = mt_unwind_step(&w, &w, lo, hi, missed)) <= 0 || w.pc < 4096)
			break;
	}
	uint64_t h = MT_STACK_SEED;
	for (unsigned i = n; i-- > 0;) {
		h = mt_stack_fold(h, frames[i], n - 1 - i);
		if (k)
			k[-(ptrdiff_t)i].h = h;
	}
	if (c) {
		c->top = KEEP_CAP - KEEP_HEAD;
		c->base = c->top - n;
		c->hi = hi;
		c->end_fixed = n < max && step == 0;
	}
	*hash = h;
	return n;
}

/* ---------------------------------------------------------------------------------------------
   The thread's stack: the mapping that holds the sp
   ------------------------------------------------------------------------------------------- */

static __thread uintptr_t stack_lo, stack_hi __attribute__((tls_model("initial-exec")));

/* [lo, hi) of the mapping holding sp (procstat.c); under the lock, as every descriptor of the
   tracer's, so that no fork() child inherits it (signals blocked meanwhile: once a thread, not
   across the unwind) */
static int mapping_of(uintptr_t sp, uintptr_t *lo, uintptr_t *hi)
{
	struct mt_lock_state ls;
	mt_lock(&ls);
	int found = mt_procstat_mapping(sp, NULL, lo, hi);
	mt_unlock(&ls);
	return found;
}

/* The walk through the tracer's own frames, from w (in mt_unwind) to the allocator call's (its
   return address ret), as one kept went if every word it read holds what it read then (the
   last, ret): the rules of those steps were offsets from rsp, so that each read is at the same
   distance from the first sp.  1 and w that frame, or 0.  The path met last is tried first. */
static int own_again(struct keep *c, struct mt_frame *w, uintptr_t hi, uintptr_t ret)
{
	uintptr_t sp0 = w->sp;
	for (unsigned q = 0; q < OWN_PATHS; q++) {
		unsigned p = (c->own_last + q) % OWN_PATHS;
		const struct own_path *path = &c->own[p];
		unsigned n = path->n, i = 0;
		if (n == 0 || sp0 + path->reach > hi - 8)   /* (sp0 is the low end: lo) */
			continue;
		for (; i + 1 < n; i++) {
			const struct own *o = &path->step[i];
			if (*(const uintptr_t *)(sp0 + o->ra_off) != o->pc || o->pc == ret)
				break;
		}
		if (i + 1 < n || *(const uintptr_t *)(sp0 + path->step[i].ra_off) != ret)
			continue;
		w->pc = ret;
		w->sp = sp0 + path->dsp;
		if (path->bp_off >= 0)
			w->bp = *(const uintptr_t *)(sp0 + (uint32_t)path->bp_off);
		w->ra8 = path->ra8;
		w->bp8 = path->bp8;
		w->by_bp = 0;
		c->own_last = p;
		return 1;
	}
	return 0;
}

/* The walk through the tracer's own frames, step by step, kept in c (if not NULL) for
   own_again when every step's rule was an offset from rsp: 1 and w the allocator call's frame,
   or 0 if it was not met */
static int own_walk(struct keep *c, struct mt_frame *w, uintptr_t lo, uintptr_t hi,
		    uintptr_t ret, int *missed)
{
	struct own_path *path = c ? &c->own[c->own_next] : NULL;
	uintptr_t sp0 = w->sp, reach = 0;
	intptr_t bp_off = -1;
	int by_sp = 1;
	unsigned n = 0;
	if (path)
		path->n = 0;
	while (n < OWN_MAX) {
		if (mt_unwind_step(w, w, lo, hi, missed) <= 0 || w->pc < 4096)
			return 0;
		by_sp &= !w->by_bp;
		uintptr_t ra_at = w->sp + (intptr_t)w->ra8 * 8, bp_at = w->sp + (intptr_t)w->bp8 * 8;
		by_sp &= ra_at >= sp0 && (!w->bp8 || bp_at >= sp0);
		if (w->bp8)
			bp_off = (intptr_t)(bp_at - sp0);
		reach = ra_at > reach ? ra_at : reach;
		reach = w->bp8 && bp_at > reach ? bp_at : reach;
		if (path)
			path->step[n] = (struct own){ w->pc, (uint32_t)(ra_at - sp0) };
		n++;
		if (w->pc == ret) {
			if (path && by_sp && reach - sp0 < (1u << 20)) {
				path->reach = (uint32_t)(reach - sp0);
				path->dsp = (uint32_t)(w->sp - sp0);
				path->bp_off = (int32_t)bp_off;
				path->ra8 = w->ra8;
				path->bp8 = w->bp8;
				path->n = n;
				c->own_last = c->own_next;
				c->own_next = (c->own_next + 1) % OWN_PATHS;
			}
			return 1;
		}
	}
	return 0;
}

static unsigned one_frame(uintptr_t *frames, uintptr_t ret, uint64_t *hash)
{
	frames[0] = ret;
	*hash = mt_stack_fold(MT_STACK_SEED, ret, 0);
	return 1;
}

unsigned mt_unwind(uintptr_t *frames, unsigned max, uintptr_t ret, int *missed, uint64_t *hash,
		   int *lazy)
{
	*lazy = 0;
	if (max == 0 || ret == 0)
		return 0;
	struct mt_frame top[TOP_MAX], *w = top;   /* (walk_kept's first: no copy, no wide load) */
	w->ra8 = w->bp8 = 0;
	w->by_bp = 0;
	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
			 : "=r"(w->pc), "=r"(w->sp), "=r"(w->bp));
	if (w->sp < stack_lo || w->sp >= stack_hi) {
		uintptr_t lo, hi;
		if (!mapping_of(w->sp, &lo, &hi))
			return one_frame(frames, ret, hash);
		stack_lo = lo;
		stack_hi = hi;
	}
	uintptr_t lo = w->sp, hi = stack_hi;
	struct keep *c = mine;
	if (c == NULL && !keep_off)
		c = mine = keep_claim();
	if (c == NULL || c == NO_KEEP || c->busy) {
		if (!own_walk(NULL, w, lo, hi, ret, missed))
			return one_frame(frames, ret, hash);
		return walk_whole(NULL, frames, max, *w, lo, hi, missed, hash);
	}
	c->busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	uint32_t epoch = __atomic_load_n(&mt_unwind_epoch, __ATOMIC_ACQUIRE);
	if (c->epoch != epoch) {   /* an object went: its code may be another's now */
		c->base = c->top = 0;
		for (unsigned p = 0; p < OWN_PATHS; p++)
			c->own[p].n = 0;
		c->epoch = epoch;
	}
	unsigned n = 0;
	c->lazy = 0;
	if (!own_again(c, w, hi, ret) && !own_walk(c, w, lo, hi, ret, missed))
		n = one_frame(frames, ret, hash);   /* (the allocator call's frame not met) */
	else if (c->hi == hi)
		n = walk_kept(c, frames, max, top, lo, hi, missed, hash);
	if (n == 0)
		n = walk_whole(c, frames, max, *w, lo, hi, missed, hash);
	if (c->lazy) {   /* (the frames stay busy until mt_unwind_frames reads them) */
		*lazy = 1;
		return n;
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	c->busy = 0;
	return n;
}

/* After mt_unwind said *lazy: its n frames into frames if not NULL, and the kept frames free */
void mt_unwind_frames(uintptr_t *frames, unsigned n)
{
	struct keep *c = mine;
	if (frames)
		for (unsigned j = 0; j < n; j++)
			frames[j] = c->k[c->top - 1 - j].f.pc;
	c->lazy = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	c->busy = 0;
}

#else

void mt_walk_thread_exit(void)
{
}

void mt_walk_fork_child(void)
{
}

unsigned mt_unwind(uintptr_t *frames, unsigned max, uintptr_t ret, int *missed, uint64_t *hash,
		   int *lazy)
{
	(void)missed;
	*lazy = 0;
	if (max == 0 || ret == 0)
		return 0;
	frames[0] = ret;
	*hash = mt_stack_fold(MT_STACK_SEED, ret, 0);
	return 1;
}

void mt_unwind_frames(uintptr_t *frames, unsigned n)
{
	(void)frames;
	(void)n;
}

#endif
