/* Fuzz the workload reader and trace_run's validation: any input is a valid workload or one
 * error; validation never crashes or hangs.  A valid one's memory samples are set beside a
 * replay's curve (run_fidelity.c), as trace_run does after a replay: figures, not a crash. */
#include <math.h>
#include "fuzz.h"
#include "replay.h"
#include "run_fidelity.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	struct tool_err err;
	int fd = fuzz_file(data, size, path);
	struct wl_reader r;
	if (wl_open(&r, path) == 0) {
		struct replay_plan plan;
		if (replay_validate(&r, &plan, &err) < 0)
			PROPERTY(err.msg[0], "validation failed without a message");
		else {
			uint64_t n = r.h.ncalls, d = r.h.duration_us;
			struct replay_point pt[3] = { { 0, 1 << 20, 0, 0 },
						      { n / 2, 5 << 20, d / 2, n / 2 },
						      { n, 2 << 20, d, n } };
			struct replay_curve c = { .pt = pt, .n = 3, .cap = 3, .stride = 1,
						  .anon0 = 1 << 20, .anon_peak = 5 << 20 };
			for (int paced = 0; paced < 2; paced++) {
				struct fidelity f;
				fidelity_compute(&r, &c, 0, 1, paced, &f);
				PROPERTY(!f.have || r.h.nsamples, "figures from no sample");
				PROPERTY(!f.have || isnan(f.curve_error) || f.curve_error >= 0,
					 "a negative curve error");
				PROPERTY(!f.have || isnan(f.time_error) || f.time_error >= 0,
					 "a negative error over time");
			}
		}
		replay_plan_free(&plan);
	}
	wl_close(&r);
	close(fd);
	return 0;
}
