/* unwind_int.h - a step up the stack (unwind.c) for the walk of the whole (walk.c) */
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

int mt_unwind_step(const struct mt_frame *w, struct mt_frame *up, uintptr_t lo, uintptr_t hi,
		   int *missed);
#endif

#endif
