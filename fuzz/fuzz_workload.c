/* Fuzz the workload reader and trace_run's validation: any input is a valid workload or one
 * error; validation never crashes or hangs. */
#include "fuzz.h"
#include "replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[800];
	int fd = fuzz_file(data, size, path);
	struct wl_reader r;
	if (wl_open(&r, path) == 0) {
		struct replay_plan plan;
		if (replay_validate(&r, &plan, err, sizeof err) < 0)
			PROPERTY(err[0], "validation failed without a message");
		replay_plan_free(&plan);
	}
	wl_close(&r);
	close(fd);
	return 0;
}
