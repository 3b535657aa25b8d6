/* trace_ext.c - checking version 5's CALLER and extended records (STACK, OBJECT, SYMBOL): what
 * a reader must know holds before a tool reads their payload. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trace_reader_int.h"

/* The words n bytes take (strings start on a word of their own: mtrace_ext_put_bytes) */
static uint64_t words_of(uint64_t n)
{
	return (n + 7) / 8;
}

const char *trace_ext_problem(const struct mtrace_file_header *h, const struct mtrace_slot *s,
			      char *msg, size_t cap)
{
	unsigned call = s->call, cont = call == MTRACE_CALL_CALLER ? 0 : s->aux;
	uint64_t words = 3ull * cont;
	if (h->version < 5 || !(h->flags & MTRACE_HF_STACKS)) {
		snprintf(msg, cap, "a %s record in a trace without call stacks (version %u, no "
			 "stacks flag)", mtrace_call_name(call), (unsigned)h->version);
		return msg;
	}
	if (s->flags & ~(call == MTRACE_CALL_OBJECT ? MTRACE_OBJ_UNLOADED : 0u)) {
		snprintf(msg, cap, "a %s record with flags 0x%x", mtrace_call_name(call),
			 s->flags);
		return msg;
	}
	switch (call) {
	case MTRACE_CALL_CALLER:
		return s->aux ? "a caller record with its aux field set" : NULL;
	case MTRACE_CALL_STACK: {
		if (s->x == 0)
			return "a stack record of id 0";
		unsigned n = 0;
		if (s->a)
			for (n = 1; n < 2 + words && (n == 1 ? s->b : *mtrace_ext_word(
				     (struct mtrace_slot *)s, n - 2)); n++)
				;
		if (n > MTRACE_STACK_DEPTH_MAX) {
			snprintf(msg, cap, "a stack of more than %u frames", MTRACE_STACK_DEPTH_MAX);
			return msg;
		}
		return NULL;
	}
	case MTRACE_CALL_OBJECT: {
		if (s->x == 0)
			return "an object record of id 0";
		if (words < 3)
			return "an object record without its range and lengths";
		const struct mtrace_slot *c = s + 1;
		uint64_t lens = c->b, bid = lens & 0xffff, path = lens >> 16 & 0xffff;
		if (lens >> 32)
			return "an object record with bits set above its path length";
		if (bid > MTRACE_BUILD_ID_MAX) {
			snprintf(msg, cap, "an object's build id of %u bytes (at most %u)",
				 (unsigned)bid, MTRACE_BUILD_ID_MAX);
			return msg;
		}
		if (3 + words_of(bid) + words_of(path) > words) {
			snprintf(msg, cap, "an object's build id and path (%u and %u bytes) longer "
				 "than its record", (unsigned)bid, (unsigned)path);
			return msg;
		}
		if (c->ts > c->a)
			return "an object whose mapped range ends before it starts";
		return NULL;
	}
	default: {   /* MTRACE_CALL_SYMBOL */
		if (words < 1)
			return "a symbol record without its lengths";
		uint64_t w = s[1].ts, name = w & 0xffff, file = w >> 16 & 0xffff;
		if (1 + words_of(name) + words_of(file) > words) {
			snprintf(msg, cap, "a symbol's name and file (%u and %u bytes) longer than "
				 "its record", (unsigned)name, (unsigned)file);
			return msg;
		}
		return NULL;
	}
	}
}

int trace_ext_read(struct trace_reader *r, const unsigned char *p, unsigned need, uint64_t at)
{
	if (!r->ext && !(r->ext = malloc((1 + MTRACE_EXT_SLOTS_MAX) * sizeof *r->ext)))
		return trace_fail(r, at, "out of memory");
	memcpy(r->ext, p, need * (size_t)MTRACE_SLOT_SIZE);
	for (unsigned i = 0; i < need; i++) {
		struct mtrace_slot *c = &r->ext[i];
		if (r->swap)
			trace_swap_slot(c);
		/* (a continuation slot begins with 8 zero bytes: the head's commit word is the
		   only one) */
		if (i && (c->call | c->flags | c->aux | c->x))
			return trace_fail(r, at + i * MTRACE_SLOT_SIZE, "continuation slot %u of "
					  "a %s record that is not one", i,
					  mtrace_call_name(r->ext->call));
	}
	char msg[160];
	const char *bad = trace_ext_problem(&r->hdr, r->ext, msg, sizeof msg);
	return bad ? trace_fail(r, at, "%s", bad) : 0;
}
