/* Fuzz the trace reader (ours and dj/malloc's formats): any input gives records or one error,
 * never a crash, a hang or an unbounded allocation.  Each input is read twice, through read()
 * and mapped a page at a time, and both must give the same records and the same error. */
#include <string.h>
#include "fuzz.h"
#include "trace_reader.h"

struct outcome {
	uint64_t n, sum;      /* records, and a checksum of their bytes and offsets */
	int k;                /* the last trace_next result */
	char err[600];
};

static void read_all(const char *path, struct outcome *o)
{
	struct trace_reader r;
	memset(o, 0, sizeof *o);
	if (trace_open(&r, path) == 0) {
		struct mtrace_record rec;
		uint64_t off;
		while ((o->k = trace_next(&r, &rec, &off)) > 0) {
			PROPERTY(off >= r.hdr.header_size, "record offset %llu inside the header",
				 (unsigned long long)off);
			const unsigned char *b = (const unsigned char *)&rec;
			for (size_t i = 0; i < sizeof rec; i++)
				o->sum = o->sum * 31 + b[i];
			o->sum = o->sum * 31 + off;
			o->n++;
		}
		PROPERTY(o->k == 0 || r.err.msg[0], "error without a message");
	} else
		o->k = -2;
	memcpy(o->err, r.err.msg, sizeof o->err);
	trace_close(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_file(data, size, path);
	trace_reader_decompress = 0;
	struct outcome rd, mp;
	trace_reader_map_min = UINT64_MAX;   /* read */
	read_all(path, &rd);
	PROPERTY(rd.n <= size / MTRACE_SLOT_SIZE + 1, "more records than bytes allow");
	trace_reader_map_min = 0;            /* mapped, a page a window: records cross windows */
	trace_reader_map_window = 4096;
	read_all(path, &mp);
	PROPERTY(rd.n == mp.n && rd.sum == mp.sum && rd.k == mp.k && strcmp(rd.err, mp.err) == 0,
		 "read and mapped differ: %llu records, %d '%s' against %llu records, %d '%s'",
		 (unsigned long long)rd.n, rd.k, rd.err, (unsigned long long)mp.n, mp.k, mp.err);
	close(fd);
	return 0;
}
