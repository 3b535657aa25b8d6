/* mkstacks - test helper: a hand-made trace with call stacks (version 5), its figures known.
 *
 *   mkstacks OUT
 *
 * One thread.  Frames (SYMBOL records name them, in object 1, "prog"):
 *   stack 1  cache_fill < load_all < main     4 x malloc(1000), freed after the peak
 *   stack 2  parse < load_all < main          3 x calloc(4, 50) before the peak, freed after
 *                                             it; then 2 x malloc(100), freed
 *   stack 3  leak_some < main                 5 x malloc(50), never freed
 * The ideal-RSS peak: 4,850 bytes in 12 blocks, at call 12; 250 bytes in 5 blocks at the end.
 * (expectations in t_sites.sh)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mtrace-trace.h"

#define MAX_SLOTS 4096
static struct mtrace_slot slots[MAX_SLOTS];
static unsigned n = 1;   /* slot 0: the chunk record */
static uint64_t ts = 1;

enum { F_CACHE = 0x1010, F_PARSE = 0x1020, F_LEAK = 0x1030, F_LOAD = 0x2010, F_MAIN = 0x3010 };

static struct mtrace_slot *ext(unsigned call, uint32_t x, uint64_t a, uint64_t b, unsigned words)
{
	struct mtrace_slot *h = &slots[n];
	*h = (struct mtrace_slot){ .call = (uint8_t)call, .x = x, .ts = ts, .a = a, .b = b,
				   .aux = (uint16_t)mtrace_ext_slots(words) };
	n += 1 + h->aux;
	return h;
}

static void symbol(uint64_t addr, const char *name)
{
	unsigned len = (unsigned)strlen(name);
	struct mtrace_slot *h = ext(MTRACE_CALL_SYMBOL, 1, addr, 0, 1 + (len + 7) / 8);
	h->ts = 0;
	*mtrace_ext_word(h, 0) = len | (uint64_t)4 << 32;
	mtrace_ext_put_bytes(h, 1, name, len);
}

static void stack(uint32_t id, const uint64_t *f, unsigned k)
{
	struct mtrace_slot *h = ext(MTRACE_CALL_STACK, id, f[0], k > 1 ? f[1] : 0,
				    k > 2 ? k - 2 : 0);
	for (unsigned i = 2; i < k; i++)
		*mtrace_ext_word(h, i - 2) = f[i];
}

static void call(unsigned c, uint32_t stack_id, uint64_t ptr, uint64_t size, uint64_t arg2,
		 uint64_t result)
{
	if (c != MTRACE_CALL_FREE)
		slots[n++] = (struct mtrace_slot){ .call = MTRACE_CALL_CALLER, .x = stack_id,
						   .a = stack_id ? 0x1000 + stack_id : 0 };
	struct mtrace_record r = { .tid = 7, .call = (uint8_t)c, .ts = ++ts, .ptr = ptr,
				   .size = size, .arg2 = arg2, .result = result,
				   .usable = result ? size * (arg2 ? arg2 : 1) : 0 };
	n += mtrace_encode(&r, 0, &slots[n]);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mkstacks OUT\n");
		return 2;
	}
	struct mtrace_file_header h;
	mtrace_header_init(&h);
	h.clock = MTRACE_CLOCK_MONOTONIC;
	h.ticks_per_sec = 1000000000;
	h.flags = MTRACE_HF_FINISHED | MTRACE_HF_CHUNK_BOUND | MTRACE_HF_STACKS;
	h.stack_depth = 8;
	h.pid = 1;
	/* the object, its functions' names, the stacks */
	static const char path[] = "/opt/demo/prog";
	struct mtrace_slot *o = ext(MTRACE_CALL_OBJECT, 1, 0, 0, 3 + (sizeof path - 1 + 7) / 8);
	*mtrace_ext_word(o, 0) = 0x1000;
	*mtrace_ext_word(o, 1) = 0x4000;
	*mtrace_ext_word(o, 2) = (uint64_t)(sizeof path - 1) << 16;
	mtrace_ext_put_bytes(o, 3, path, sizeof path - 1);
	symbol(F_CACHE, "cache_fill");
	symbol(F_PARSE, "parse");
	symbol(F_LEAK, "leak_some");
	symbol(F_LOAD, "load_all");
	symbol(F_MAIN, "main");
	stack(1, (const uint64_t[]){ F_CACHE, F_LOAD, F_MAIN }, 3);
	stack(2, (const uint64_t[]){ F_PARSE, F_LOAD, F_MAIN }, 3);
	stack(3, (const uint64_t[]){ F_LEAK, F_MAIN }, 2);
	for (int i = 0; i < 4; i++)
		call(MTRACE_CALL_MALLOC, 1, 0, 1000, 0, 0x100000 + i * 0x1000);
	for (int i = 0; i < 3; i++)
		call(MTRACE_CALL_CALLOC, 2, 0, 4, 50, 0x200000 + i * 0x1000);
	for (int i = 0; i < 5; i++)
		call(MTRACE_CALL_MALLOC, 3, 0, 50, 0, 0x300000 + i * 0x1000);
	for (int i = 0; i < 4; i++)
		call(MTRACE_CALL_FREE, 0, 0x100000 + i * 0x1000, 0, 0, 0);
	for (int i = 0; i < 3; i++)
		call(MTRACE_CALL_FREE, 0, 0x200000 + i * 0x1000, 0, 0, 0);
	for (int i = 0; i < 2; i++)
		call(MTRACE_CALL_MALLOC, 2, 0, 100, 0, 0x400000 + i * 0x1000);
	for (int i = 0; i < 2; i++)
		call(MTRACE_CALL_FREE, 0, 0x400000 + i * 0x1000, 0, 0, 0);
	struct mtrace_record c = { .tid = 7, .call = MTRACE_CALL_CHUNK, .ts = 0,
				   .size = (uint64_t)n * MTRACE_SLOT_SIZE };
	mtrace_encode(&c, 0, &slots[0]);
	static unsigned char page[MTRACE_HEADER_SIZE];
	memcpy(page, &h, sizeof h);
	FILE *f = fopen(argv[1], "wb");
	if (!f || fwrite(page, 1, sizeof page, f) != sizeof page ||
	    fwrite(slots, sizeof slots[0], n, f) != n || fclose(f) != 0) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
