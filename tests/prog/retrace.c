/* retrace - test helper: a trace of any version written again in the current version (32-byte
 * slots), chunk for chunk: the same chunks at the same offsets (a record takes at most 64 bytes
 * in either layout, so each fits in its chunk), each record encoded by mtrace_encode.  What
 * every reader then reads of the two must be the same.
 *   retrace IN OUT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trace_reader.h"

static void die(const char *m) { fprintf(stderr, "retrace: %s\n", m); exit(1); }

static FILE *out;
static uint64_t pos, chunk_end;

static void zeros(uint64_t to)
{
	static const char z[MTRACE_SLOT_SIZE];
	for (; pos < to; pos += MTRACE_SLOT_SIZE)
		if (fwrite(z, 1, MTRACE_SLOT_SIZE, out) != MTRACE_SLOT_SIZE)
			die("write failed");
}

int main(int argc, char **argv)
{
	if (argc != 3)
		die("usage: retrace IN OUT");
	struct trace_reader r;
	if (trace_open(&r, argv[1]) < 0)
		die(r.err.msg);
	if (!(out = fopen(argv[2], "wb")))
		die("cannot create the output");
	static unsigned char page[MTRACE_HEADER_MAX + 1];
	struct mtrace_file_header h = r.hdr;
	h.version = MTRACE_FORMAT_VERSION;
	h.record_size = MTRACE_SLOT_SIZE;
	/* the header's bytes past its fields (the strings) as they were */
	struct trace_reader raw;
	if (trace_open(&raw, argv[1]) < 0)
		die(raw.err.msg);
	memcpy(page, raw.buf, h.header_size);
	trace_close(&raw);
	memcpy(page, &h, sizeof h);
	fwrite(page, 1, h.header_size, out);
	pos = chunk_end = h.header_size;
	struct mtrace_record rec;
	uint64_t off;
	int k, durations = (h.flags & MTRACE_HF_DURATIONS) != 0;
	while ((k = trace_next(&r, &rec, &off)) > 0) {
		struct mtrace_slot s[2];
		if (rec.call == MTRACE_CALL_CHUNK) {
			zeros(off);   /* the rest of the last chunk, and what lay between */
			chunk_end = off + rec.size;
		} else if (off < pos)
			die("records out of file order");
		else
			zeros(off < chunk_end ? pos : off);
		unsigned n = mtrace_encode(&rec, durations, s);
		if (pos + n * MTRACE_SLOT_SIZE > chunk_end)
			die("a chunk too small for its records in slots");
		fwrite(s, sizeof s[0], n, out);
		pos += n * MTRACE_SLOT_SIZE;
	}
	if (k < 0)
		die(r.err.msg);
	zeros(chunk_end);
	trace_close(&r);
	return fclose(out) != 0;
}
