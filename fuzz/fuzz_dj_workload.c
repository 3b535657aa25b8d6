/* Fuzz the dj/malloc workload reader and its translation: what translates must validate, unless
 * the workload's own SYNC_W/SYNC_R order is at fault (a deadlock, or a slot two threads use with
 * no sync between them): the translation keeps that order as it is, and validation refuses it. */
#include "dj_wl.h"
#include "fuzz.h"
#include "replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], out[64];
	struct tool_err err;
	int fd = fuzz_file(data, size, path);
	snprintf(out, sizeof out, "/tmp/fuzz-dj.%d.wl", (int)getpid());
	struct dj_wl_info info;
	if (dj_wl_scan(path, &info, &err) == 0 && dj_wl_to_ours(path, out, &err, NULL, NULL) == 0) {
		struct wl_reader r;
		struct replay_plan plan;
		PROPERTY(wl_open(&r, out) == 0, "translated workload does not open: %s", r.err.msg);
		int k = replay_validate(&r, &plan, &err);
		PROPERTY(k == 0 || k == -2, "translated workload invalid: %s", err.msg);
		replay_plan_free(&plan);
		wl_close(&r);
		unlink(out);
	}
	close(fd);
	return 0;
}
