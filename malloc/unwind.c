/* unwind.c - the rule of a frame whose code has no frame pointers, learned from the .eh_frame
 * tables (x86-64, glibc 2.35 or later), for the step up the stack in unwind_int.h.
 *
 * A pc's object and its .eh_frame_hdr come from _dl_find_object (lock-free; looked up weakly:
 * without it a stack is its first frame); the hdr's sorted table gives the FDE, whose CIE and
 * FDE programs, run up to the pc, say where the frame's CFA is (rsp or rbp + offset), where the
 * return address and rbp were saved.  What was learned is kept per pc in a fixed lock-free
 * table (one word an entry: a tag of the pc and the rule), so a frame met before costs a load
 * and two reads.  A CFA given by an expression (signal frames: __restore_rt's is one, so a
 * handler's stack ends at the handler), a pc in no object, end the stack.  Nothing here
 * allocates, locks or writes anything shared but the table's words.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include "mt_int.h"
#include "unwind_int.h"

#ifdef MT_UNWIND_EH

extern int _dl_find_object(void *, struct dl_find_object *) __attribute__((weak));

uint64_t mt_unwind_rules[MT_RULE_SLOTS];   /* tag << 34 | ok << 33 | packed rule; 0 empty */
uint32_t mt_unwind_epoch;                 /* bumped when the rules are forgotten (atomic) */

static uint64_t rule_pack(const struct mt_rule *r)
{
	return (uint64_t)1 << 33 | (uint64_t)(r->bp & 1) << 32 | (uint64_t)(uint16_t)r->off8 << 16 |
	       (uint64_t)(uint8_t)r->ra8 << 8 | (uint8_t)r->bp8;
}

/* ---------------------------------------------------------------------------------------------
   DWARF call frame information: just what a frame of ordinary code needs
   ------------------------------------------------------------------------------------------- */

struct cur { const uint8_t *p, *end; int bad; };

static uint64_t uleb(struct cur *c)
{
	uint64_t v = 0;
	for (unsigned s = 0; c->p < c->end && s < 64; s += 7) {
		uint8_t b = *c->p++;
		v |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80))
			return v;
	}
	c->bad = 1;
	return 0;
}

static int64_t sleb(struct cur *c)
{
	int64_t v = 0;
	unsigned s = 0;
	uint8_t b = 0x80;
	while (c->p < c->end && s < 64 && (b & 0x80)) {
		b = *c->p++;
		v |= (int64_t)((uint64_t)(b & 0x7f) << s);
		s += 7;
	}
	if (b & 0x80) {
		c->bad = 1;
		return 0;
	}
	if (s < 64 && (b & 0x40))
		v |= -((int64_t)1 << s);
	return v;
}

static uint64_t fixed(struct cur *c, unsigned n)
{
	if ((size_t)(c->end - c->p) < n) {
		c->bad = 1;
		return 0;
	}
	uint64_t v = 0;
	__builtin_memcpy(&v, c->p, n);   /* (little-endian) */
	c->p += n;
	return v;
}

/* A pointer in encoding enc (DW_EH_PE_*): absolute, pc-relative or data-relative to dbase */
static uintptr_t enc_ptr(struct cur *c, unsigned enc, uintptr_t dbase)
{
	const uint8_t *at = c->p;
	uint64_t v;
	if (enc == 0xff || (enc & 0x80)) {   /* omitted, indirect: not for code addresses */
		c->bad = 1;
		return 0;
	}
	switch (enc & 0x0f) {
	case 0x00: v = fixed(c, 8); break;
	case 0x01: v = uleb(c); break;
	case 0x02: v = fixed(c, 2); break;
	case 0x03: v = fixed(c, 4); break;
	case 0x04: v = fixed(c, 8); break;
	case 0x09: v = (uint64_t)sleb(c); break;
	case 0x0a: v = (uint64_t)(int64_t)(int16_t)fixed(c, 2); break;
	case 0x0b: v = (uint64_t)(int64_t)(int32_t)fixed(c, 4); break;
	case 0x0c: v = fixed(c, 8); break;
	default: c->bad = 1; return 0;
	}
	switch (enc & 0x70) {
	case 0x00: break;
	case 0x10: v += (uintptr_t)at; break;
	case 0x30: v += dbase; break;
	default: c->bad = 1; return 0;
	}
	return (uintptr_t)v;
}

/* The state of the registers that matter: CFA, rbp (6) and the return address (16) */
struct cfa_state { int reg; int64_t off; int ra_at, bp_at; int64_t ra_off, bp_off; };
enum { AT_SAME, AT_OFFSET, AT_UNKNOWN };
#define DW_RBP 6
#define DW_RSP 7
#define DW_RA 16
#define REMEMBER_MAX 4

static void set_reg(struct cfa_state *s, uint64_t reg, int at, int64_t off)
{
	if (reg == DW_RA) {
		s->ra_at = at;
		s->ra_off = off;
	} else if (reg == DW_RBP) {
		s->bp_at = at;
		s->bp_off = off;
	}
}

/* Run a CFA program over [c) while loc <= pc; init: the CIE's state (DW_CFA_restore). 0 if the
   frame cannot be unwound by a rule of ours. */
static int run_cfa(struct cur *c, struct cfa_state *s, const struct cfa_state *init,
		   uintptr_t loc, uintptr_t pc, uint64_t code_align, int64_t data_align,
		   unsigned fde_enc)
{
	struct cfa_state saved[REMEMBER_MAX];
	unsigned nsaved = 0;
	for (unsigned ops = 0; c->p < c->end && ops < 4096; ops++) {
		uint8_t op = *c->p++;
		uint64_t reg, delta = 0;
		switch (op & 0xc0) {
		case 0x40: delta = (op & 0x3f) * code_align; goto advance;
		case 0x80:
			set_reg(s, op & 0x3f, AT_OFFSET, (int64_t)uleb(c) * data_align);
			continue;
		case 0xc0:
			reg = op & 0x3f;
			set_reg(s, reg, reg == DW_RA ? init->ra_at : init->bp_at,
				reg == DW_RA ? init->ra_off : init->bp_off);
			continue;
		}
		switch (op) {
		case 0x00: break;
		case 0x01: loc = enc_ptr(c, fde_enc, 0); if (loc > pc) return !c->bad; break;
		case 0x02: delta = fixed(c, 1) * code_align; goto advance;
		case 0x03: delta = fixed(c, 2) * code_align; goto advance;
		case 0x04: delta = fixed(c, 4) * code_align; goto advance;
		case 0x05: reg = uleb(c); set_reg(s, reg, AT_OFFSET, (int64_t)uleb(c) * data_align);
			break;
		case 0x06: reg = uleb(c);
			set_reg(s, reg, reg == DW_RA ? init->ra_at : init->bp_at,
				reg == DW_RA ? init->ra_off : init->bp_off);
			break;
		case 0x07: set_reg(s, uleb(c), AT_UNKNOWN, 0); break;
		case 0x08: set_reg(s, uleb(c), AT_SAME, 0); break;
		case 0x09: reg = uleb(c); (void)uleb(c); set_reg(s, reg, AT_UNKNOWN, 0); break;
		case 0x0a:
			if (nsaved == REMEMBER_MAX)
				return 0;
			saved[nsaved++] = *s;
			break;
		case 0x0b:
			if (nsaved == 0)
				return 0;
			*s = saved[--nsaved];   /* (the CFA's rule with the rest) */
			break;
		case 0x0c: s->reg = (int)uleb(c); s->off = (int64_t)uleb(c); break;
		case 0x0d: s->reg = (int)uleb(c); break;
		case 0x0e: s->off = (int64_t)uleb(c); break;
		case 0x0f: return 0;   /* a CFA by an expression (signal frames, PLT stubs) */
		case 0x10: case 0x16: {
			reg = uleb(c);
			uint64_t n = uleb(c);
			if (n > (uint64_t)(c->end - c->p))
				return 0;
			c->p += n;
			set_reg(s, reg, AT_UNKNOWN, 0);
			break;
		}
		case 0x11: reg = uleb(c); set_reg(s, reg, AT_OFFSET, sleb(c) * data_align); break;
		case 0x12: s->reg = (int)uleb(c); s->off = sleb(c) * data_align; break;
		case 0x13: s->off = sleb(c) * data_align; break;
		case 0x14: reg = uleb(c); (void)uleb(c); set_reg(s, reg, AT_UNKNOWN, 0); break;
		case 0x15: reg = uleb(c); (void)sleb(c); set_reg(s, reg, AT_UNKNOWN, 0); break;
		case 0x2e: (void)uleb(c); break;   /* GNU_args_size */
		case 0x2f:
			reg = uleb(c);
			set_reg(s, reg, AT_OFFSET, -(int64_t)uleb(c) * data_align);
			break;
		default: return 0;
		}
		if (c->bad)
			return 0;
		continue;
advance:
		loc += delta;
		if (loc > pc)
			return !c->bad;
	}
	return !c->bad;
}

/* The rule of the frame whose code is at pc (a call's return address less one): 1; 0 if it has
   none; -1 if pc lies in no object known now (early in the process's start, the loader's
   table is not there yet: not an answer to keep) */
static int find_rule(uintptr_t pc, struct mt_rule *out)
{
	struct dl_find_object fo;
	if (_dl_find_object == NULL || _dl_find_object((void *)pc, &fo) != 0 ||
	    fo.dlfo_eh_frame == NULL)
		return -1;
	const uint8_t *hdr = fo.dlfo_eh_frame;
	/* .eh_frame_hdr: version 1, then the encodings of eh_frame_ptr, fde_count and the table */
	if (hdr[0] != 1 || hdr[3] != 0x3b)
		return 0;   /* (every linker writes a table of datarel sdata4 pairs) */
	struct cur c = { hdr + 4, hdr + 16, 0 };
	(void)enc_ptr(&c, hdr[1], (uintptr_t)hdr);
	uint64_t count = enc_ptr(&c, hdr[2], (uintptr_t)hdr);
	if (c.bad || count == 0 || count > (1u << 28))
		return 0;
	const int32_t *tab = (const int32_t *)(const void *)c.p;
	uint64_t lo = 0, hi = count;   /* the last entry whose start is <= pc */
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		if ((uintptr_t)hdr + (intptr_t)tab[2 * mid] <= pc)
			lo = mid;
		else
			hi = mid;
	}
	if ((uintptr_t)hdr + (intptr_t)tab[2 * lo] > pc)
		return 0;
	const uint8_t *fde = hdr + tab[2 * lo + 1];
	uint32_t flen = *(const uint32_t *)(const void *)fde;
	if (flen == 0 || flen == 0xffffffffu)
		return 0;
	uint32_t cie_off = *(const uint32_t *)(const void *)(fde + 4);
	if (cie_off == 0)
		return 0;   /* (a CIE, not an FDE) */
	const uint8_t *cie = fde + 4 - cie_off;
	uint32_t clen = *(const uint32_t *)(const void *)cie;
	if (clen == 0 || clen == 0xffffffffu || *(const uint32_t *)(const void *)(cie + 4) != 0)
		return 0;
	struct cur ci = { cie + 9, cie + 4 + clen, 0 };
	unsigned version = cie[8];
	const char *aug = (const char *)ci.p;
	while (ci.p < ci.end && *ci.p)
		ci.p++;
	ci.p++;
	if (ci.p > ci.end || (version != 1 && version != 3 && version != 4))
		return 0;
	if (version == 4)
		ci.p += 2;   /* address and segment sizes */
	uint64_t code_align = uleb(&ci);
	int64_t data_align = sleb(&ci);
	uint64_t ra_reg = version == 1 ? fixed(&ci, 1) : uleb(&ci);
	unsigned fde_enc = 0;
	int has_z = aug[0] == 'z';
	if (ra_reg != DW_RA || ci.bad)
		return 0;
	if (has_z) {
		uint64_t alen = uleb(&ci);
		const uint8_t *aend = ci.p + alen;
		if (alen > (uint64_t)(ci.end - ci.p))
			return 0;
		for (const char *a = aug + 1; *a && !ci.bad; a++) {
			if (*a == 'R')
				fde_enc = (unsigned)fixed(&ci, 1);
			else if (*a == 'L')
				(void)fixed(&ci, 1);
			else if (*a == 'P') {
				unsigned penc = (unsigned)fixed(&ci, 1);
				(void)enc_ptr(&ci, penc & 0x7f, 0);   /* (skipped) */
			} else if (*a == 'S')
				return 0;   /* a signal frame: the stack ends here */
			else if (*a != 'B' && *a != 'G')
				break;
		}
		ci.p = aend;
	} else if (aug[0])
		return 0;
	struct cfa_state init = { DW_RSP, 8, AT_SAME, AT_SAME, 0, 0 }, s;
	if (!run_cfa(&ci, &init, &init, 0, UINTPTR_MAX, code_align, data_align, fde_enc))
		return 0;
	struct cur fc = { fde + 8, fde + 4 + flen, 0 };
	uintptr_t start = enc_ptr(&fc, fde_enc, 0);
	uintptr_t range = enc_ptr(&fc, fde_enc & 0x0f, 0);
	if (fc.bad || pc < start || pc - start >= range)
		return 0;
	if (has_z) {
		uint64_t alen = uleb(&fc);
		if (alen > (uint64_t)(fc.end - fc.p))
			return 0;
		fc.p += alen;
	}
	s = init;
	if (!run_cfa(&fc, &s, &init, start, pc, code_align, data_align, fde_enc))
		return 0;
	if ((s.reg != DW_RSP && s.reg != DW_RBP) || s.ra_at != AT_OFFSET || s.bp_at == AT_UNKNOWN ||
	    (s.off & 7) || (s.ra_off & 7) || (s.bp_off & 7) || s.off < -(1 << 18) ||
	    s.off >= (1 << 18) || s.ra_off < -1024 || s.ra_off >= 1024 || s.bp_off < -1024 ||
	    s.bp_off >= 1024 || (s.bp_at == AT_OFFSET && s.bp_off == 0))
		return 0;
	out->bp = s.reg == DW_RBP;
	out->off8 = (int32_t)(s.off / 8);
	out->ra8 = (int)(s.ra_off / 8);
	out->bp8 = s.bp_at == AT_OFFSET ? (int)(s.bp_off / 8) : 0;
	return 1;
}

/* An object went: another may be mapped where it was, its code at the pcs of the rules kept,
   so they are all forgotten, and the epoch tells walk.c's kept stacks to go too.  A walk under
   way elsewhere may still use a rule read before; it would meet code being unloaded anyway. */
void mt_unwind_forget(void)
{
	for (unsigned i = 0; i < MT_RULE_SLOTS; i++)
		__atomic_store_n(&mt_unwind_rules[i], 0, __ATOMIC_RELAXED);
	__atomic_add_fetch(&mt_unwind_epoch, 1, __ATOMIC_RELEASE);
}

/* The rule for pc, not in the table: found and kept in its entry, slot, with tag (a failure is
   kept too: 0), the entry in *entry; -1 if pc lies in no object known now (not kept) */
int mt_unwind_learn(uintptr_t pc, unsigned slot, uint64_t tag, uint64_t *entry)
{
	struct mt_rule r;
	int ok = find_rule(pc, &r);
	if (ok < 0)
		return -1;
	*entry = tag << MT_RULE_TAG_SHIFT | (ok ? rule_pack(&r) : 0);
	__atomic_store_n(&mt_unwind_rules[slot], *entry, __ATOMIC_RELAXED);
	return ok;
}

#else

void mt_unwind_forget(void)
{
}

#endif
