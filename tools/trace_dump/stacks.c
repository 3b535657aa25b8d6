/* stacks.c - trace_dump's lines for the records of call stacks and loaded objects (version 5):
 * CALLER, STACK, OBJECT and SYMBOL, their continuation slots as the reader hands them out.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>
#include "dump.h"
#include "trace_reader.h"

/* The payload words of the extended record x the reader just returned into w (host order):
   the words, 0 if the reader gave no slots */
static unsigned ext_words(const struct trace_reader *r, const struct mtrace_record *x,
			  uint64_t *w)
{
	const struct mtrace_slot *sl = trace_ext_slots(r, x);
	unsigned cont = (unsigned)x->arg2;
	if (!sl || cont > MTRACE_EXT_SLOTS_MAX)
		return 0;
	for (unsigned i = 0; i < 3 * cont; i++)
		w[i] = *mtrace_ext_word((struct mtrace_slot *)sl, i);
	return 3 * cont;
}

/* A SYMBOL's line: the address, its object, and its name and source where the payload holds
   them whole */
static void print_symbol(const struct mtrace_record *x, const uint64_t *w, unsigned nw)
{
	printf("symbol %#" PRIx64 " in object %" PRIu64, x->ptr, x->size);
	if (nw < 1)
		goto end;
	unsigned nlen = (unsigned)(w[0] & 0xffff), flen = (unsigned)(w[0] >> 16 & 0xffff);
	uint32_t fnoff = (uint32_t)(w[0] >> 32);
	unsigned at = 1 + (nlen + 7) / 8;   /* (each string from a word of its own) */
	if (at + (flen + 7) / 8 > nw)
		goto end;
	static struct mtrace_slot sl[1 + MTRACE_EXT_SLOTS_MAX];
	static char b[8 * MTRACE_EXT_WORDS_MAX];
	for (unsigned i = 0; i < nw; i++)
		*mtrace_ext_word(sl, i) = w[i];
	mtrace_ext_get_bytes(sl, 1, b, nlen);
	mtrace_ext_get_bytes(sl, at, b + nlen, flen);
	printf(": %.*s", (int)nlen, nlen ? b : "?");
	if (fnoff != 0xffffffffu)
		printf("+%#" PRIx32, fnoff);
	if (flen)
		printf(" at %.*s:%" PRIu64, (int)flen, b + nlen, x->result);
end:
	putchar('\n');
}

/* CALLER, STACK, OBJECT and SYMBOL records (version 5): 1 if x is one (its line printed) */
int print_stack_record(const struct trace_reader *r, const struct mtrace_record *x,
			      uint64_t off)
{
	static uint64_t w[MTRACE_EXT_WORDS_MAX];
	unsigned nw;
	switch (x->call) {
	case MTRACE_CALL_CALLER:
		if (x->ptr)
			printf("caller: stack %" PRIu64 ", called from %#" PRIx64 "\n", x->size,
			       x->ptr);
		else
			printf("caller: stack %" PRIu64 "\n", x->size);
		return 1;
	case MTRACE_CALL_STACK:
		nw = ext_words(r, x, w);
		printf("stack %" PRIu64 ":", x->size);
		if (x->ptr)
			printf(" %#" PRIx64, x->ptr);
		if (x->ptr && x->result)
			printf(" %#" PRIx64, x->result);
		for (unsigned i = 0; x->result && i < nw && w[i]; i++)
			printf(" %#" PRIx64, w[i]);
		if (x->arg2 && !nw)
			printf(" (and %" PRIu64 " slots of frames not read)", x->arg2);
		putchar('\n');
		return 1;
	case MTRACE_CALL_OBJECT: {
		nw = ext_words(r, x, w);
		printf("object %" PRIu64 " %s, bias %#" PRIx64, x->size,
		       (x->flags & MTRACE_OBJ_UNLOADED) ? "unloaded" : "loaded", x->ptr);
		if (nw >= 3) {
			unsigned idlen = (unsigned)(w[2] & 0xffff);
			unsigned plen = (unsigned)(w[2] >> 16 & 0xffff);
			printf(", mapped %#" PRIx64 "-%#" PRIx64, w[0], w[1]);
			/* (each string from a word of its own) */
			unsigned at = 3 + (idlen + 7) / 8;
			if (idlen <= MTRACE_BUILD_ID_MAX && at + (plen + 7) / 8 <= nw) {
				unsigned char b[MTRACE_BUILD_ID_MAX + 4096 + 8];
				struct mtrace_slot sl[1 + MTRACE_EXT_SLOTS_MAX];
				for (unsigned i = 0; i < nw; i++)
					*mtrace_ext_word(sl, i) = w[i];
				if (idlen + plen < sizeof b) {
					mtrace_ext_get_bytes(sl, 3, b, idlen);
					mtrace_ext_get_bytes(sl, at, b + idlen, plen);
					printf(", build id ");
					for (unsigned i = 0; i < idlen; i++)
						printf("%02x", b[i]);
					if (!idlen)
						printf("none");
					printf(", %.*s", (int)plen, (const char *)b + idlen);
				}
			}
		}
		putchar('\n');
		return 1;
	}
	case MTRACE_CALL_SYMBOL:
		nw = ext_words(r, x, w);
		print_symbol(x, w, nw);
		return 1;
	}
	return 0;
}

