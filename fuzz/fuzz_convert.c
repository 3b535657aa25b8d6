/* Fuzz trace2wl's conversion core: any trace that converts gives a workload that reads back
 * and validates (slots and threads in range, every wait satisfiable). */
#include <string.h>
#include "convert.h"
#include "fuzz.h"
#include "replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], out[64];
	int fd = fuzz_file(data, size, path);
	snprintf(out, sizeof out, "/tmp/fuzz-convert.%d.wl", (int)getpid());
	trace_reader_decompress = 0;
	struct trace_reader r;
	if (trace_open(&r, path) == 0) {
		struct wl_writer w;
		struct convert c;
		if (wl_writer_open(&w, out) < 0)
			abort();
		int ok = convert_begin(&c, &w) == 0 && convert_feed(&c, &r) == 0;
		struct mtrace_wl_header h;
		if (ok && convert_end(&c, &h) == 0) {
			struct wl_reader wr;
			struct tool_err err;
			struct replay_plan plan;
			PROPERTY(wl_open(&wr, out) == 0, "converted workload does not open: %s",
				 wr.err.msg);
			PROPERTY(replay_validate(&wr, &plan, &err) == 0,
				 "converted workload invalid: %s", err.msg);
			PROPERTY(wr.h.ncalls == c.st.ops, "call count");
			PROPERTY(wr.h.nsamples == c.st.samples, "every sample in the table");
			PROPERTY(!(wr.h.flags & MTRACE_WL_HF_MAPPINGS) || wr.h.nmaps == c.st.nmaps,
				 "map ids");
			replay_plan_free(&plan);
			wl_close(&wr);
			unlink(out);
		} else
			wl_writer_abort(&w);
		convert_free(&c);
	}
	trace_close(&r);
	close(fd);
	return 0;
}
