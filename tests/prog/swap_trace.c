/* swap_trace - test helper: rewrite a trace in the other byte order (as a big-endian writer
 * would have made it), or make a small synthetic trace with 4-byte pointers.
 *   swap_trace IN OUT
 *   swap_trace --ptr32 OUT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trace_reader.h"

static void die(const char *m) { fprintf(stderr, "swap_trace: %s\n", m); exit(1); }

static int ptr32(const char *out)
{
	static unsigned char page[MTRACE_HEADER_SIZE];
	struct mtrace_file_header h;
	mtrace_header_init(&h);
	h.version = 2;   /* (64-byte records) */
	h.record_size = MTRACE_RECORD_SIZE;
	h.pointer_size = 4;
	h.clock = MTRACE_CLOCK_MONOTONIC;
	h.ticks_per_sec = 1000000000;
	h.pid = 42;
	h.ppid = 1;
	memcpy(page, &h, sizeof h);
	FILE *f = fopen(out, "wb");
	if (!f) die("cannot create output");
	fwrite(page, 1, sizeof page, f);
	struct mtrace_record r[4];
	memset(r, 0, sizeof r);
	r[0] = (struct mtrace_record){ .tid = 7, .call = MTRACE_CALL_CHUNK, .size = 4 * 64 };
	r[1] = (struct mtrace_record){ .tid = 7, .call = MTRACE_CALL_MALLOC, .ts = 100,
				       .result = 0x8000010, .size = 24, .usable = 28 };
	r[2] = (struct mtrace_record){ .tid = 7, .call = MTRACE_CALL_FREE, .ts = 200,
				       .ptr = 0x8000010 };
	fwrite(r, sizeof r, 1, f);   /* r[3] stays unwritten */
	return fclose(f) != 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--ptr32") == 0)
		return ptr32(argv[2]);
	if (argc != 3)
		die("usage: swap_trace IN OUT | --ptr32 OUT");
	FILE *in = fopen(argv[1], "rb"), *out = fopen(argv[2], "wb");
	if (!in || !out) die("cannot open files");
	static unsigned char page[65536];
	struct mtrace_file_header h;
	if (fread(&h, sizeof h, 1, in) != 1) die("short header");
	if (h.byte_order_mark != MTRACE_BYTE_ORDER_MARK) die("input is not in host order");
	size_t hs = h.header_size, rs = h.record_size;
	memcpy(page, &h, sizeof h);
	if (fread(page + sizeof h, 1, hs - sizeof h, in) != hs - sizeof h) die("short header");
	trace_swap_header((struct mtrace_file_header *)page);
	fwrite(page, 1, hs, out);
	if (h.version >= 3) {   /* 32-byte slots: a wide record's second slot with its first */
		struct mtrace_slot sl;
		unsigned second = 0;   /* slots that go with the record before: swapped as well */
		while (fread(&sl, sizeof sl, 1, in) == 1) {
			if (sl.call != MTRACE_CALL_UNWRITTEN || second) {
				if (second)
					second--;
				else if (mtrace_call_is_ext(sl.call))
					second = sl.aux;   /* (version 5: continuation slots) */
				else
					second = (sl.flags & MTRACE_RF_WIDE) != 0;
				MTRACE_SWAP(sl.aux);
				MTRACE_SWAP(sl.x);
				MTRACE_SWAP(sl.ts);
				MTRACE_SWAP(sl.a);
				MTRACE_SWAP(sl.b);
			}
			fwrite(&sl, sizeof sl, 1, out);
		}
		return fclose(out) != 0;
	}
	struct mtrace_record r;
	while (fread(page, 1, rs, in) == rs) {
		memcpy(&r, page, sizeof r);
		if (r.call != MTRACE_CALL_UNWRITTEN)
			trace_swap_record(&r);
		memcpy(page, &r, sizeof r);
		fwrite(page, 1, rs, out);
	}
	return fclose(out) != 0;
}
