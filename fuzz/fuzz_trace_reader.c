/* Fuzz the trace reader (ours and dj/malloc's formats): any input gives records or one error,
 * never a crash, a hang or an unbounded allocation. */
#include "fuzz.h"
#include "trace_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_file(data, size, path);
	trace_reader_decompress = 0;
	struct trace_reader r;
	if (trace_open(&r, path) == 0) {
		struct mtrace_record rec;
		uint64_t off, n = 0;
		int k;
		while ((k = trace_next(&r, &rec, &off)) > 0) {
			PROPERTY(off >= r.hdr.header_size, "record offset %llu inside the header", (unsigned long long)off);
			n++;
		}
		PROPERTY(k == 0 || r.err[0], "error without a message");
		PROPERTY(n <= size / 64 + 1, "more records than bytes allow");
	}
	trace_close(&r);
	close(fd);
	return 0;
}
