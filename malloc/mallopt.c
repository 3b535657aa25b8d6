/* mallopt.c - the program's own tuning of its allocator.
 *
 * A program that calls mallopt (M_ARENA_MAX, M_MMAP_THRESHOLD, ...) runs on other settings
 * than a replay under the defaults would.  mallopt passes through to the next definition in
 * the search order, its result the caller's, and what succeeded is noted in the trace's
 * header (mallopt_set, mallopt_value), where trace_run finds it to name beside its own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include "mt_int.h"

struct mt_mallopt_state mt_mallopt;

static int (*real_mallopt)(int, int);

MT_API int mallopt(int param, int value)
{
	if (MT_UNLIKELY(real_mallopt == NULL)) {
		real_mallopt = (int (*)(int, int))mt_next(MT_NEXT_MALLOPT);
		if (real_mallopt == NULL)
			/* no allocator defines it: as a call to a missing one would (fail) */
			return 0;
	}
	int r = real_mallopt(param, value);
	int err = errno;   /* the caller sees the allocator's, not our header write's */
	if (r == 1) {
		for (int i = 0; i < MTRACE_MALLOPT_PARAMS; i++)
			if (mtrace_mallopt_params[i].param == param) {
				struct mt_lock_state ls;
				mt_lock(&ls);
				mt_mallopt.mallopt_set |= 1u << i;
				mt_mallopt.mallopt_value[i] = value;
				if (mt_file.have_file && !mt_file.failed)
					mt_file_header_mallopt();
				mt_unlock(&ls);
			}
	}
	errno = err;
	return r;
}
