/* Fuzz the reader of --latency distributions (trace_plot's input): any text is a table whose
 * every class rises in time and in share, up to 1, with as many calls as rows at least, or
 * one error naming a line. */
#include <string.h>
#include "fuzz.h"
#include "lat_hist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lat_table t;   /* 80 KiB: not on the stack */
	FILE *f = fmemopen((void *)data, size, "r");
	if (f == NULL)
		return 0;   /* fmemopen refuses a size of 0 on older glibc */
	struct tool_err err;
	int r = lat_read_tsv(f, &t, &err);
	fclose(f);
	if (r < 0) {
		PROPERTY(!strncmp(err.msg, "line ", 5) || !strncmp(err.msg, "not a ", 6),
			 "error without a line: %s", err.msg);
		return 0;
	}
	for (int c = 0; c < LAT_CLASSES; c++) {
		PROPERTY(t.n[c] <= LAT_ROWS, "%zu rows for class %d", t.n[c], c);
		PROPERTY(t.calls[c] >= (double)t.n[c], "class %d: %g calls in %zu rows", c,
			 t.calls[c], t.n[c]);
		for (size_t i = 0; i < t.n[c]; i++) {
			PROPERTY(t.time[c][i] >= 0 && t.time[c][i] < 1e18,
				 "class %d row %zu: time %g", c, i, t.time[c][i]);
			PROPERTY(t.share[c][i] >= 0 && t.share[c][i] <= 1,
				 "class %d row %zu: share %g", c, i, t.share[c][i]);
			PROPERTY(i == 0 || (t.time[c][i] >= t.time[c][i - 1] &&
					    t.share[c][i] >= t.share[c][i - 1]),
				 "class %d row %zu: falls", c, i);
		}
	}
	PROPERTY(memchr(t.name, 0, sizeof t.name) != NULL, "name not terminated");
	return 0;
}
