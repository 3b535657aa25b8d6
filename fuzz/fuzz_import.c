/* Fuzz trace_import's parser of glibc mtrace() logs: any text gives records or one error naming
 * a line; every record it makes is one the trace reader accepts. */
#include <string.h>
#include "fuzz.h"
#include "mtrace_log.h"
#include "trace_reader.h"

static int check(void *ctx, const struct mtrace_record *r)
{
	static struct trace_reader rd;   /* only its header matters to the check: 8-byte pointers */
	(void)ctx;
	rd.hdr.pointer_size = 8;
	rd.name = "the record";
	PROPERTY(trace_record_check(&rd, r, 0) == 0,
		 "the parser made a record the reader rejects: %s", rd.err.msg);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mtrace_log log;
	memset(&log, 0, sizeof log);
	const char *p = (const char *)data, *end = p + size;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (mtrace_log_line(&log, p, n, check, NULL) < 0) {
			PROPERTY(strncmp(log.err.msg, "line ", 5) == 0,
				 "error without a line number: %s", log.err.msg);
			return 0;
		}
		p += n + 1;
	}
	mtrace_log_end(&log);
	return 0;
}
