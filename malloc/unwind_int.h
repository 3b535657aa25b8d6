/* unwind_int.h - a step up the stack, from the rules unwind.c learns, for walk.c */
#ifndef UNWIND_INT_H
#define UNWIND_INT_H

#include <dlfcn.h>
#include "mt_int.h"

#if defined(__x86_64__) && defined(DLFO_STRUCT_HAS_EH_DBASE)
#define MT_UNWIND_EH 1

/* A frame: its pc (a return address but at the top), sp (its caller's CFA) and rbp; ra8, bp8:
   where the step that reached it read pc and rbp, in words from sp (bp8 0: rbp not read);
   by_bp: that step's CFA was rbp + offset (else rsp + offset) */
struct mt_frame { uintptr_t pc, sp, bp; int8_t ra8, bp8; uint8_t by_bp; };

static inline int mt_unwind_readable(uintptr_t a, uintptr_t lo, uintptr_t hi)
{
	return a >= lo && a <= hi - 8 && !(a & 7);
}

/* A frame's rule: CFA = (rbp if bp else rsp) + off8 * 8; the return address at CFA + ra8 * 8;
   rbp at CFA + bp8 * 8 (bp8 0: rbp unchanged).  Kept per pc in a lock-free table, packed in a
   word with a tag of the pc. */
struct mt_rule { int bp; int32_t off8; int ra8, bp8; };
#define MT_RULE_SLOTS 8192u
#define MT_RULE_TAG_SHIFT 34
extern uint64_t mt_unwind_rules[MT_RULE_SLOTS];
extern uint32_t mt_unwind_epoch;
int mt_unwind_learn(uintptr_t pc, unsigned slot, uint64_t tag, struct mt_rule *r);

/* The rule for pc, from the table or learned (unwind.c): 1; 0 if it has none (kept so); -1 if
   pc lies in no object known now.  *missed set when it was not in the table. */
static inline int mt_unwind_rule(uintptr_t pc, struct mt_rule *r, int *missed)
{
	uint64_t h = (uint64_t)pc * 0x9e3779b97f4a7c15ull;
	h ^= h >> 29;
	uint64_t tag = ((h >> 13) | 1) & ((1ull << 30) - 1);
	unsigned slot = (unsigned)(h & (MT_RULE_SLOTS - 1));
	uint64_t w = __atomic_load_n(&mt_unwind_rules[slot], __ATOMIC_RELAXED);
	if (w >> MT_RULE_TAG_SHIFT != tag) {
		*missed = 1;
		return mt_unwind_learn(pc, slot, tag, r);
	}
	if (!(w >> 33 & 1))
		return 0;
	r->bp = (int)(w >> 32 & 1);
	r->off8 = (int16_t)(uint16_t)(w >> 16);
	r->ra8 = (int8_t)(uint8_t)(w >> 8);
	r->bp8 = (int8_t)(uint8_t)w;
	return 1;
}

/* One step up from w's frame (its pc a return address): 1 and the caller's frame in up (which
   may be w), its return address read at up->sp + ra8 * 8 and rbp at up->sp + bp8 * 8 (bp8 0:
   rbp as it was).  At the stack's end: 0 if the end follows from the pc alone (its code has no
   rule of ours), -1 if from anything else.  Reads only words in [lo, hi). */
static inline int mt_unwind_step(const struct mt_frame *w, struct mt_frame *up, uintptr_t lo,
				 uintptr_t hi, int *missed)
{
	struct mt_rule r;
	uintptr_t sp = w->sp, bp = w->bp;
	int ok = mt_unwind_rule(w->pc - 1, &r, missed);
	if (ok <= 0)
		return ok;
	uintptr_t cfa = (r.bp ? bp : sp) + (intptr_t)r.off8 * 8;
	uintptr_t ra_at = cfa + (intptr_t)r.ra8 * 8, bp_at = cfa + (intptr_t)r.bp8 * 8;
	if (cfa <= sp || !mt_unwind_readable(ra_at, lo, hi) ||
	    (r.bp8 && !mt_unwind_readable(bp_at, lo, hi)))
		return -1;
	up->pc = *(const uintptr_t *)ra_at;
	up->bp = r.bp8 ? *(const uintptr_t *)bp_at : bp;
	up->sp = cfa;
	up->ra8 = (int8_t)r.ra8;
	up->bp8 = (int8_t)r.bp8;
	up->by_bp = (uint8_t)r.bp;
	return 1;
}
#endif

#endif
