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
   word with a tag of the pc: tag << MT_RULE_TAG_SHIFT | ok << 33 | bp << 32 | (uint16_t)off8
   << 16 | (uint8_t)ra8 << 8 | (uint8_t)bp8 (ok 0: pc has no rule). */
struct mt_rule { int bp; int32_t off8; int ra8, bp8; };
#define MT_RULE_SLOTS 8192u
#define MT_RULE_TAG_SHIFT 34
extern uint64_t mt_unwind_rules[MT_RULE_SLOTS];
extern uint32_t mt_unwind_epoch;
int mt_unwind_learn(uintptr_t pc, unsigned slot, uint64_t tag, uint64_t *entry);

/* The packed rule for pc, from the table or learned (unwind.c): 1; 0 if it has none (kept so);
   -1 if pc lies in no object known now.  *missed set when it was not in the table.  (A word,
   not a structure: the hot path keeps it in a register.) */
static inline int mt_unwind_rule(uintptr_t pc, uint64_t *entry, int *missed)
{
	uint64_t h = (uint64_t)pc * 0x9e3779b97f4a7c15ull;
	h ^= h >> 29;
	uint64_t tag = ((h >> 13) | 1) & ((1ull << 30) - 1);
	unsigned slot = (unsigned)(h & (MT_RULE_SLOTS - 1));
	uint64_t w = __atomic_load_n(&mt_unwind_rules[slot], __ATOMIC_RELAXED);
	if (w >> MT_RULE_TAG_SHIFT != tag) {
		*missed = 1;
		int ok = mt_unwind_learn(pc, slot, tag, &w);
		if (ok <= 0)
			return ok;
	}
	*entry = w;
	return (int)(w >> 33 & 1);
}

/* One step up from w's frame (its pc a return address): 1 and the caller's frame in up (which
   may be w), its return address read at up->sp + ra8 * 8 and rbp at up->sp + bp8 * 8 (bp8 0:
   rbp as it was).  At the stack's end: 0 if the end follows from the pc alone (its code has no
   rule of ours), -1 if from anything else.  Reads only words in [lo, hi). */
static inline int mt_unwind_step(const struct mt_frame *w, struct mt_frame *up, uintptr_t lo,
				 uintptr_t hi, int *missed)
{
	uint64_t e = 0;
	uintptr_t sp = w->sp, bp = w->bp;
	int ok = mt_unwind_rule(w->pc - 1, &e, missed);
	if (ok <= 0)
		return ok;
	int by_bp = (int)(e >> 32 & 1), ra8 = (int8_t)(uint8_t)(e >> 8), bp8 = (int8_t)(uint8_t)e;
	uintptr_t cfa = (by_bp ? bp : sp) + (intptr_t)(int16_t)(uint16_t)(e >> 16) * 8;
	uintptr_t ra_at = cfa + (intptr_t)ra8 * 8, bp_at = cfa + (intptr_t)bp8 * 8;
	if (cfa <= sp || !mt_unwind_readable(ra_at, lo, hi) ||
	    (bp8 && !mt_unwind_readable(bp_at, lo, hi)))
		return -1;
	up->pc = *(const uintptr_t *)ra_at;
	up->bp = bp8 ? *(const uintptr_t *)bp_at : bp;
	up->sp = cfa;
	up->ra8 = (int8_t)ra8;
	up->bp8 = (int8_t)bp8;
	up->by_bp = (uint8_t)by_bp;
	return 1;
}
#endif

#endif
