/* wl_check - test helper: prove a workload is replayable.
 *
 *   wl_check WORKLOAD
 *
 * Runs the streams abstractly, a thread at a time as far as its waits allow, with a vector clock
 * per thread.  Every use of a slot must be ordered after the previous use (in every interleaving
 * the waits allow, not just the one run here): the last user's call count must be covered by the
 * clock of the thread using it now.  An allocation must find its slot empty, a free or realloc
 * must find it occupied; the same for map ids (MAP finds its map empty, UNMAP and REMAP find it
 * mapped, an UNMAP stays inside the mapping, and the mapping is gone once all its bytes are).
 * A RESIDENT follows a call that made a block or mapping; a stream's ATs never go back in time
 * (from a trace whose times do not: every one converted here).
 * No wait may be unsatisfiable (deadlock).  The header's counts must match the streams.  Prints
 * "name value" lines; exit 1 on any violation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "u64map.h"
#include "wl_reader.h"

struct slot { uint64_t count; uint32_t thread; uint8_t occupied, touched; };

static struct wl_reader r;
static uint32_t nt;
static uint64_t **vc;                 /* vc[i][j]: how far thread i knows thread j has come */
static struct u64map snaps;           /* (thread << 40 | count) -> index into snapshot store + 1 */
static uint64_t **snapshot;
static size_t nsnap, capsnap;
static struct slot *slots;
static struct slot *maps;             /* (occupied: the map id holds a mapping) */
static uint64_t *map_bytes, *map_len; /* its bytes still mapped, its length */
static unsigned long long violations;

static void bad(const struct wl_op *op, uint32_t t, const char *what, uint64_t s)
{
	if (violations++ < 10)
		printf("violation: thread %u, offset %llu, %s slot %llu: %s\n", t,
		       (unsigned long long)op->offset, mtrace_wl_op_name(op->op),
		       (unsigned long long)s, what);
}

/* thread t uses slot s (must be occupied or not, as `want`) */
static void use(const struct wl_op *op, uint32_t t, uint64_t s, int want_occupied)
{
	if (s == 0)
		return;
	struct slot *sl = &slots[s];
	if (sl->occupied != want_occupied)
		bad(op, t, want_occupied ? "slot is empty" : "slot is still occupied", s);
	if (sl->touched && sl->thread != t && vc[t][sl->thread] < sl->count)
		bad(op, t, "not ordered after the previous use of the slot (a race)", s);
}

static void touch(uint32_t t, uint64_t s, int occupied, uint64_t count)
{
	if (s == 0)
		return;
	slots[s] = (struct slot){ count, t, (uint8_t)occupied, 1 };
}

/* thread t's mapping call on map id m (which must hold a mapping or not, as want) */
static void use_map(const struct wl_op *op, uint32_t t, uint64_t m, int want_mapped, uint64_t count)
{
	struct slot *sl = &maps[m];
	if (sl->occupied != want_mapped)
		bad(op, t, want_mapped ? "map id holds no mapping" :
		    "map id holds a mapping still", m);
	if (sl->touched && sl->thread != t && vc[t][sl->thread] < sl->count)
		bad(op, t, "not ordered after the previous use of the map id (a race)", m);
	switch (op->op) {
	case MTRACE_WL_MAP: case MTRACE_WL_REMAP:
		map_bytes[m] = map_len[m] = op->a[1];
		break;
	default:   /* UNMAP map offset length */
		if (op->a[1] > map_len[m] || op->a[2] > map_len[m] - op->a[1] ||
		    op->a[2] > map_bytes[m])
			bad(op, t, "unmaps more than the mapping holds", m);
		else
			map_bytes[m] -= op->a[2];
	}
	*sl = (struct slot){ count, t, (uint8_t)(map_bytes[m] != 0), 1 };
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: wl_check WORKLOAD\n");
		return 2;
	}
	if (wl_open(&r, argv[1]) < 0) {
		printf("error: %s\n", r.err.msg);
		return 1;
	}
	nt = r.h.nthreads;
	struct wl_cursor *cur = calloc(nt ? nt : 1, sizeof *cur);
	uint64_t *count = calloc(nt ? nt : 1, sizeof *count);
	vc = calloc(nt ? nt : 1, sizeof *vc);
	slots = calloc(r.h.nslots, sizeof *slots);
	maps = calloc(r.h.nmaps + 1, sizeof *maps);
	map_bytes = calloc(r.h.nmaps + 1, sizeof *map_bytes);
	map_len = calloc(r.h.nmaps + 1, sizeof *map_len);
	if (!cur || !count || !vc || !slots || !maps || !map_bytes || !map_len) {
		printf("error: out of memory\n");
		return 1;
	}
	/* first pass: counts, and which (thread, count) points are waited for */
	uint64_t counts[MTRACE_WL_NCOUNTS] = { 0 }, calls = 0, waits = 0, failed = 0;
	uint64_t resident = 0, at = 0;
	struct u64map targets = { 0 };
	for (uint32_t t = 0; t < nt; t++) {
		vc[t] = calloc(nt, sizeof **vc);
		struct wl_cursor c;
		struct wl_op op;
		int k;
		uint64_t mine = 0, last_at = 0;
		unsigned prev = MTRACE_WL_END;
		wl_cursor_init(&r, t, &c);
		while ((k = wl_next(&r, &c, &op)) > 0) {
			unsigned before = prev;
			prev = op.op;
			if (op.op == MTRACE_WL_WAIT) {
				waits++;
				u64map_put(&targets, (op.a[0] << 40) | op.a[1], 1);
			} else if (op.op == MTRACE_WL_RESIDENT) {
				resident++;
				if (before == MTRACE_WL_END || before == MTRACE_WL_FREE ||
				    before == MTRACE_WL_UNMAP || before > MTRACE_WL_LAST_MAP)
					bad(&op, t, "RESIDENT after no call that made a block "
					    "or mapping", 0);
			} else if (op.op == MTRACE_WL_AT) {
				at++;
				if (op.a[0] < last_at)
					bad(&op, t, "AT goes back in time", 0);
				last_at = op.a[0];
			} else {
				counts[op.op]++;
				calls++;
				mine++;
				failed += op.failed;
			}
		}
		if (k < 0) {
			printf("error: %s\n", r.err.msg);
			return 1;
		}
		if (mine != r.threads[t].ncalls) {
			printf("violation: thread %u has %llu calls, its table entry says %llu\n",
			       t, (unsigned long long)mine,
			       (unsigned long long)r.threads[t].ncalls);
			violations++;
		}
	}
	if (calls != r.h.ncalls || waits != r.h.nwaits || failed != r.h.failed ||
	    memcmp(counts, r.h.counts, sizeof counts) != 0) {
		printf("violation: header counts do not match the streams\n");
		violations++;
	}

	/* second pass: run */
	for (uint32_t t = 0; t < nt; t++)
		wl_cursor_init(&r, t, &cur[t]);
	uint32_t done = 0;
	uint64_t live = 0, peak_live = 0;
	int progress = 1;
	while (done < nt && progress) {
		progress = 0;
		for (uint32_t t = 0; t < nt; t++) {
			for (;;) {
				struct wl_cursor save = cur[t];
				struct wl_op op;
				int k = wl_next(&r, &cur[t], &op);
				if (k < 0) {
					printf("error: %s\n", r.err.msg);
					return 1;
				}
				if (k == 0) {
					if (cur[t].done && !save.done) {
						done++;
						progress = 1;
					}
					break;
				}
				if (op.op == MTRACE_WL_RESIDENT || op.op == MTRACE_WL_AT)
					continue;   /* not calls */
				if (op.op == MTRACE_WL_WAIT) {
					uint32_t u = (uint32_t)op.a[0];
					if (count[u] < op.a[1]) {
						cur[t] = save;   /* blocked: try other threads */
						break;
					}
					uint64_t *si =
						u64map_get(&snaps, ((uint64_t)u << 40) | op.a[1]);
					if (si)
						for (uint32_t j = 0; j < nt; j++)
							if (snapshot[*si - 1][j] > vc[t][j])
								vc[t][j] = snapshot[*si - 1][j];
					progress = 1;
					continue;
				}
				uint64_t c1 = count[t] + 1;
				switch (op.op) {
				case MTRACE_WL_FREE:
					use(&op, t, op.a[0], 1);
					if (op.a[0])
						live--;
					touch(t, op.a[0], 0, c1);
					break;
				case MTRACE_WL_REALLOC: case MTRACE_WL_REALLOCARRAY: {
					uint64_t ns = op.a[0], os = op.a[1];
					use(&op, t, os, 1);
					if (op.failed) {
						touch(t, os, 1, c1);
						break;
					}
					if (ns != os) {
						use(&op, t, ns, 0);
						if (os)
							live--;
						touch(t, os, 0, c1);
						if (ns)
							live++;
					}
					touch(t, ns, 1, c1);
					break;
				}
				case MTRACE_WL_MAP:
					use_map(&op, t, op.a[0], 0, c1);
					break;
				case MTRACE_WL_UNMAP: case MTRACE_WL_REMAP:
					use_map(&op, t, op.a[0], 1, c1);
					break;
				default:   /* allocating calls */
					if (op.failed && op.a[0]) {
						bad(&op, t, "failed call with a result slot",
						    op.a[0]);
						break;
					}
					use(&op, t, op.a[0], 0);
					if (op.a[0])
						live++;
					touch(t, op.a[0], 1, c1);
				}
				if (live > peak_live)
					peak_live = live;
				count[t] = c1;
				vc[t][t] = c1;
				if (u64map_get(&targets, ((uint64_t)t << 40) | c1)) {
					if (nsnap == capsnap) {
						capsnap = capsnap ? capsnap * 2 : 1024;
						snapshot = realloc(snapshot,
								   capsnap * sizeof *snapshot);
					}
					snapshot[nsnap] = malloc(nt * sizeof **snapshot);
					memcpy(snapshot[nsnap], vc[t], nt * sizeof **snapshot);
					u64map_put(&snaps, ((uint64_t)t << 40) | c1, ++nsnap);
				}
				progress = 1;
			}
		}
	}
	if (done < nt) {
		printf("violation: deadlock: %u of %u threads cannot go on\n", nt - done, nt);
		violations++;
	}
	printf("threads %u\ncalls %llu\nwaits %llu\nslots %llu\npeak_live_slots %llu\n"
	       "violations %llu\n", nt, (unsigned long long)calls, (unsigned long long)waits,
	       (unsigned long long)r.h.nslots, (unsigned long long)peak_live, violations);
	for (unsigned o = 1; o <= MTRACE_WL_LAST_MAP; o++)
		printf("%s %llu\n", mtrace_wl_op_name(o), (unsigned long long)counts[o]);
	printf("resident %llu\nat %llu\nmaps %llu\nsamples %llu\n", (unsigned long long)resident,
	       (unsigned long long)at, (unsigned long long)r.h.nmaps,
	       (unsigned long long)r.h.nsamples);
	printf("failed %llu\nideal_rss %llu\n", (unsigned long long)failed,
	       (unsigned long long)r.h.ideal_rss);
	printf("max_live_threads %u\n", (unsigned)r.h.max_live_threads);
	return violations ? 1 : 0;
}
