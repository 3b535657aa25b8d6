/* run_fidelity.h - how far a replay's memory can be trusted: the program's memory samples (the
 * workload's table) set beside the replay's.  Figures: the program's peak anonymous RSS growth
 * (above its first sample), the replay's (above its start), the error at the peak, and the
 * curves' mean distance as a share of the program's peak: over the program's time (the
 * headline: a replay far off while the program idles for most of its life is far off), and
 * over its calls.  When the replay ran on another allocator or other settings than the
 * program, the same figures say what that allocator would have used, not how faithful the
 * replay is.
 */
#ifndef RUN_FIDELITY_H
#define RUN_FIDELITY_H
#include <stdint.h>
#include "replay_prog.h"
#include "wl_reader.h"

struct fidelity {
	int have;                     /* the workload holds the program's samples */
	int applies;                  /* the replay ran on the traced allocator with its settings */
	uint64_t prog_growth;         /* bytes */
	uint64_t replay_growth;       /* bytes */
	double peak_error;            /* (replay - program) / program */
	double curve_error;           /* mean |replay - program| over the calls / program's peak */
	double time_error;            /* the same over the program's time (NAN: no times) */
};

/* The figures of a replay (its curve c, the growth of its RSS's high-water mark in bytes: the
   exact peak a sampler may miss, or 0 unknown) of workload r; applies: see above; paced: the
   replay kept the program's pace (its curve's times are then its clock's). */
void fidelity_compute(const struct wl_reader *r, const struct replay_curve *c, uint64_t hwm_growth,
		      int applies, int paced, struct fidelity *f);
/* The memory a replay of workload r will touch at its peak, as well as can be told before it
   runs: where the program's samples are there and the replay touches as the program had its
   blocks resident, the program's own peak anonymous RSS (a program that mallocs 10 GB and
   writes 1 GB of it held 1 GB); else the peak of its live blocks, ideal bytes, and its own
   mappings.  *what says which: a phrase for a message, with a %s for the MiB. */
uint64_t fidelity_memory_need(const struct wl_reader *r, uint64_t ideal, int touch,
			      const char **what);
#endif
