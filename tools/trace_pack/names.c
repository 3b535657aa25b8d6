/* names.c - see names.h */
#include <stdlib.h>
#include "names.h"
#include "trace_writer.h"

struct frames { uint64_t *f; size_t n, cap; };

static int collect(void *arg, uint64_t frame)
{
	struct frames *fr = arg;
	if (fr->n == fr->cap) {
		size_t nc = fr->cap ? fr->cap * 2 : 256;
		uint64_t *p = realloc(fr->f, nc * sizeof *p);
		if (!p)
			return -1;
		fr->f = p;
		fr->cap = nc;
	}
	fr->f[fr->n++] = frame;
	return 0;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int pack_names(struct trace_stacks *st, FILE *f, const struct mtrace_file_header *h,
	       uint64_t pos, uint32_t tid, uint64_t last_chunk, uint64_t ts, int swap,
	       uint64_t *n, struct tool_err *err)
{
	struct frames fr = { 0 };
	*n = 0;
	if (trace_stacks_each_frame(st, collect, &fr) != 0) {
		free(fr.f);
		return tool_fail(err, EXIT_SYSTEM, "out of memory");
	}
	qsort(fr.f, fr.n, sizeof *fr.f, by_value);   /* (the same file for the same trace) */
	struct trace_writer w;
	trace_writer_append(&w, f, h, pos, tid, last_chunk, ts, swap);
	int rc = 0;
	for (size_t i = 0; i < fr.n && rc == 0; i++) {
		struct trace_frame_info in;
		if (!trace_stacks_resolve(st, fr.f[i], &in) || in.embedded)
			continue;
		struct trace_writer_symbol y = { .addr = fr.f[i], .object = in.object,
						 .line = in.line, .fn_off = in.fn_off,
						 .name = in.func, .file = in.file };
		rc = trace_writer_symbol(&w, &y);
		*n += rc == 0;
	}
	if (rc == 0)
		rc = trace_writer_append_end(&w);
	free(fr.f);
	if (rc < 0)
		*err = w.err;
	return rc;
}
