/* stacks.c - the call stacks of a file: each distinct one written once (a STACK record), and the
 * id of its stack for each allocating call's record to hold (a CALLER slot for one that has none).
 *
 * A stack is known by one 64-bit hash of its frames (walk.c's) and the file's generation.  The
 * table of those met is open-addressed, fixed, in static memory, and takes no lock: an entry is one word (the hash's top 40 bits and
 * the stack's id) claimed by compare-and-swap, so no thread, and no signal handler allocating in
 * one, waits for another.  The thread that claims an entry writes the STACK record, into its own
 * chunk, before its CALLER; another thread's CALLER may name the id first in file order (the
 * format allows it).  Ids and entries are per file: every file (a fork child's, the next after a
 * stop, a dormant tracer's new window) and mtrace_reset start a new generation, which is mixed
 * into the hash, so entries of earlier files never match; a call that read the generation before
 * the change and reserved its slots after names no stack (id 0).  A stack with no room within
 * MT_STACK_PROBES entries gets id 0 and is counted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include "mt_int.h"

#define MT_STACK_SLOTS  32768u          /* 256 KiB of entries: pages cost nothing until used */
#define MT_STACK_PROBES 32u
#define MT_STACK_ID_BITS 24
#define MT_STACK_ID_MASK ((1u << MT_STACK_ID_BITS) - 1)

static uint64_t table[MT_STACK_SLOTS];  /* hash top bits | id; 0 unused */
static uint32_t gen;                    /* the file's generation (atomic) */
static uint32_t next_id;                /* ids handed out in this generation (atomic) */
static uint64_t dropped;                /* stacks met with no room, in this file (atomic) */
static int used;                        /* an entry was claimed since the last clear */

/* Under lock: a new file, or a reset: its stacks are to be written again, from id 1.  The table
   is cleared when used (a thread still claiming an entry of the old generation leaves one that
   no key of the new one matches). */
void mt_stacks_file_open(void)
{
	MT_ASSERT_LOCKED();
	__atomic_store_n(&gen, gen + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&next_id, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&dropped, 0, __ATOMIC_RELAXED);
	if (__atomic_exchange_n(&used, 0, __ATOMIC_RELAXED))
		for (unsigned i = 0; i < MT_STACK_SLOTS; i++)
			__atomic_store_n(&table[i], 0, __ATOMIC_RELAXED);
}

uint64_t mt_stacks_dropped(void)
{
	return __atomic_load_n(&dropped, __ATOMIC_RELAXED);
}

/* The id of the stack of hash h; *fresh: this call claimed it (it writes the STACK record) */
static uint32_t stack_id(uint64_t h, int *fresh)
{
	uint64_t key = h & ~(uint64_t)MT_STACK_ID_MASK;
	if (key == 0)
		key = (uint64_t)1 << MT_STACK_ID_BITS;
	*fresh = 0;
	for (unsigned p = 0, i = (unsigned)h & (MT_STACK_SLOTS - 1); p < MT_STACK_PROBES;
	     p++, i = (i + 1) & (MT_STACK_SLOTS - 1)) {
		uint64_t e = __atomic_load_n(&table[i], __ATOMIC_ACQUIRE);
		if (e == 0) {
			uint32_t id = __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED);
			if (id > MT_STACK_ID_MASK)
				break;
			if (!__atomic_load_n(&used, __ATOMIC_RELAXED))
				__atomic_store_n(&used, 1, __ATOMIC_RELAXED);
			if (__atomic_compare_exchange_n(&table[i], &e, key | id, 0,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				*fresh = 1;
				return id;
			}
			/* another thread took the entry first (its id is spent: ids may skip) */
		}
		if ((e & ~(uint64_t)MT_STACK_ID_MASK) == key)
			return (uint32_t)(e & MT_STACK_ID_MASK);
	}
	__atomic_add_fetch(&dropped, 1, __ATOMIC_RELAXED);
	return 0;
}

/* The STACK record of id: its frames in the head's a and b, then in payload words; the slots it
   takes hold no call record (t->extra) */
static void write_stack(struct mt_thread *t, uint32_t id, const uintptr_t *f, unsigned n,
			uint32_t g)
{
	unsigned words = n > 2 ? n - 2 : 0, cont = mtrace_ext_slots(words);
	t->no_call = 1;
	struct mtrace_slot *h = mt_reserve_n(t, 1 + cont, 1);
	t->no_call = 0;
	if (h == NULL)
		return;
	t->extra = (uint16_t)(t->extra + 1 + cont);   /* (no call record, written or not) */
	if (__atomic_load_n(&gen, __ATOMIC_ACQUIRE) != g)
		return;   /* (slots of another file's id left unwritten: they read as nothing) */
	for (unsigned c = 1; c <= cont; c++) {
		h[c].call = 0;   /* (a zero call byte: alone it reads as unwritten) */
		h[c].flags = 0;
		h[c].aux = 0;
		h[c].x = 0;
		h[c].ts = h[c].a = h[c].b = 0;
	}
	for (unsigned i = 0; i < words; i++)
		*mtrace_ext_word(h, i) = f[2 + i];
	h->a = f[0];
	h->b = n > 1 ? f[1] : 0;
	h->ts = mt_call_ticks(&t->clk);
	mt_commit(h, MTRACE_CALL_STACK, 0, cont, id);
}

/* After the program's dlclose, with stacks on: the objects gone said now, not at the next stack
   that meets new code (there may be none).  Not in a call of ours, nor before the process
   records; errno is the program's. */
void mt_stacks_objects_changed(void)
{
	struct mt_thread *t = &mt_tls;
	if (t->busy || !mt_hot->active || mt_new_process_due())
		return;
	int e = errno;
	t->busy = 1;
	mt_objects_check(t, __atomic_load_n(&gen, __ATOMIC_ACQUIRE), 1);
	t->busy = 0;
	errno = e;
}

/* With stacks on, an allocating call's n slots (returned), or NULL when nothing may be recorded
   now; *stack: its stack's id | MT_STACK_IDS, for the record to hold (mtrace_take_stack).  A
   call with no stack (0) gets a CALLER slot before its record, which gives the return address
   of the allocator call in the program, ret.  The unwind takes no lock; the generation is read
   before it and checked once the slots are reserved (a new file since has other ids). */
MT_NOINLINE struct mtrace_slot *mt_stacks_reserve(struct mt_thread *t, unsigned n, int may_start,
						  uintptr_t ret, uint32_t *stack)
{
	uintptr_t f[MTRACE_STACK_DEPTH_MAX];
	uint32_t g = __atomic_load_n(&gen, __ATOMIC_ACQUIRE);
	int missed = 0, fresh = 0, lazy = 0;
	uint64_t h = 0;
	unsigned nf = mt_unwind(f, mt_hot->stacks, ret, &missed, &h, &lazy);
	uint32_t id = nf ? stack_id(mt_mix64(h ^ ((uint64_t)g << 32 | nf)), &fresh) : 0;
	if (lazy)   /* (the frames are copied only for a stack met the first time) */
		mt_unwind_frames(fresh ? f : NULL, nf);
	mt_objects_check(t, g, missed);
	if (fresh)
		write_stack(t, id, f, nf, g);
	unsigned caller = id == 0;
	struct mtrace_slot *r = mt_reserve_n(t, caller + n, may_start);
	*stack = MT_STACK_IDS;
	if (r == NULL)
		return NULL;
	if (__atomic_load_n(&gen, __ATOMIC_ACQUIRE) != g)
		id = 0;   /* (another file's: its record names none) */
	*stack |= id;
	t->extra = (uint16_t)(t->extra + caller + (n == 2));   /* (a wide record's second slot) */
	if (!caller)
		return r;
	mt_put_body(r, ret, 0);
	mt_put_tail(r, MTRACE_CALL_CALLER, 0, 0, 0, 0);
	return r + 1;
}
