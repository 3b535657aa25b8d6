/* replay_check.c - see replay.h: a workload checked before it is replayed (replay_validate),
 * and the plan the replay takes from the check.  Everything here runs in the process under
 * test, before the replay: none of its memory comes from the allocator under test. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "replay.h"

/* ---------------------------------------------------------------------------------------------
   Validation, in one pass over every stream: schedule abstractly, event-driven: a thread runs
   until a WAIT it cannot pass, parks on the thread it waits for, and is woken when that one has
   run far enough.  Every op is decoded (and checked) once on the way; what is left parked at
   the end can never run.
   ------------------------------------------------------------------------------------------- */

struct vthread { struct wl_cursor c; uint64_t count, need; int64_t on; int done; };

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Validation's own memory, none of it from the allocator under test (it may be preloaded
   already).  Tables below VM_MAPPED are cut in order from one scratch mapping, the last one
   grown in place, and the mapping is reused from its start once every table cut from it is
   freed (a mapping a table, a system call or two each, made validating a small workload - and
   fuzzing it - ten times slower).  Larger tables are mapped, grown by mremap and unmapped:
   given back whole before the replay, whose Max RSS would otherwise start above them.
   vm_grow: p grows to hold need bytes, the new ones zeroed; NULL if it cannot. */
#define VM_MAPPED ((size_t)64 << 10)
#define SCRATCH_BYTES ((size_t)1 << 20)

static struct { char *base; size_t used; unsigned live; } scratch;

static int in_scratch(const void *p)
{
	return scratch.base && (const char *)p >= scratch.base &&
	       (const char *)p < scratch.base + SCRATCH_BYTES;
}

static void vm_free(void *p, size_t cap)
{
	if (!p)
		return;
	if (!in_scratch(p))
		munmap(p, cap);
	else if (--scratch.live == 0)
		scratch.used = 0;
	else if ((char *)p + cap == scratch.base + scratch.used)
		scratch.used -= cap;   /* the last one cut */
}

/* p (cap bytes, or NULL) moved or grown to n bytes in the scratch mapping; NULL if it is full */
static void *scratch_grow(void *p, size_t cap, size_t n)
{
	if (!scratch.base) {
		void *m = mmap(NULL, SCRATCH_BYTES, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		scratch.base = m;
	}
	if (p && in_scratch(p) && (char *)p + cap == scratch.base + scratch.used &&
	    scratch.used - cap + n <= SCRATCH_BYTES) {
		scratch.used += n - cap;
		memset((char *)p + cap, 0, n - cap);   /* (reused bytes are not zero) */
		return p;
	}
	if (n > SCRATCH_BYTES - scratch.used)
		return NULL;
	char *q = scratch.base + scratch.used;
	scratch.used += n;   /* every size a power of two from 256: cuts stay aligned */
	scratch.live++;
	memset(q, 0, n);
	if (p) {
		memcpy(q, p, cap);
		vm_free(p, cap);
	}
	return q;
}

static void *vm_grow(void *p, size_t *cap, size_t need)
{
	if (need <= *cap)
		return p;
	size_t n = *cap ? *cap : 256;
	while (n < need)
		n *= 2;
	void *q = n < VM_MAPPED ? scratch_grow(p, *cap, n) : NULL;
	if (q == NULL && p && !in_scratch(p) && *cap >= VM_MAPPED) {
		if ((q = mremap(p, *cap, n, MREMAP_MAYMOVE)) == MAP_FAILED)
			return NULL;
	} else if (q == NULL) {
		q = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (q == MAP_FAILED)
			return NULL;
		if (p)
			memcpy(q, p, *cap);
		vm_free(p, *cap);
	}
	*cap = n;
	return q;
}

/* A WAIT seen: thread u must publish its count k.  Kept as (u, k) pairs until the schedule is
   known to complete; waits for 0 need nothing. */
struct waitlist { uint64_t (*w)[2]; size_t n, cap; };   /* cap in bytes */

static int note_wait(struct waitlist *l, uint64_t u, uint64_t k)
{
	if (k == 0)
		return 0;
	if ((l->n + 1) * sizeof *l->w > l->cap) {
		void *n = vm_grow(l->w, &l->cap, (l->n + 1) * sizeof *l->w);
		if (!n)
			return -1;
		l->w = n;
	}
	l->w[l->n][0] = u;
	l->w[l->n++][1] = k;
	return 0;
}

/* The plan's signal points from the waits: by thread waited for, sorted, unique. */
static int build_points(struct replay_plan *p, uint32_t nt, const struct waitlist *l)
{
	size_t total = (size_t)l->n + nt, cap = 0;
	void *map = vm_grow(NULL, &cap, ((size_t)nt * 2 + total) * sizeof(uint64_t) + 1);   /* (no
	                                   threads: still a block, as NULL means failure) */
	if (map == NULL)
		return -1;
	p->map_bytes = cap;
	p->start = map;
	p->count = p->start + nt;
	p->points = p->count + nt;
	p->npoints = total;
	for (size_t i = 0; i < l->n; i++)
		p->count[l->w[i][0]]++;
	uint64_t at = 0;
	for (uint32_t t = 0; t < nt; t++) {
		p->start[t] = at;
		at += p->count[t] + 1;   /* room for its terminator */
		p->count[t] = 0;
	}
	for (size_t i = 0; i < l->n; i++) {
		uint64_t t = l->w[i][0];
		p->points[p->start[t] + p->count[t]++] = l->w[i][1];
	}
	for (uint32_t t = 0; t < nt; t++) {
		uint64_t *x = p->points + p->start[t], n = p->count[t], m = 0;
		qsort(x, n, sizeof *x, cmp_u64);
		for (uint64_t i = 0; i < n; i++)
			if (m == 0 || x[i] != x[m - 1])
				x[m++] = x[i];
		x[m] = UINT64_MAX;
		p->count[t] = m;
	}
	return 0;
}

void replay_plan_free(struct replay_plan *p)
{
	if (p->start)
		vm_free(p->start, p->map_bytes);
	memset(p, 0, sizeof *p);
}

int replay_validate(struct wl_reader *r, struct replay_plan *plan, char *err, size_t cap)
{
	memset(plan, 0, sizeof *plan);
	uint32_t nt = r->h.nthreads;
	struct waitlist waits = { 0 };
	struct wl_op op;
	int k;
	uint64_t max_slot = 0;
	/* the live requested bytes along the schedule, for workloads without an ideal RSS (dj's):
	   sizes[] grows with the largest slot met */
	int need_rss = r->h.ideal_rss == 0;
	uint64_t *sizes = NULL, nsizes = 0;
	size_t sizes_cap = 0, v_cap = 0, run_cap = 0, park_cap = 0;
	size_t n1 = nt ? nt : 1;
	struct vthread *v = vm_grow(NULL, &v_cap, n1 * sizeof *v);
	uint32_t *run = vm_grow(NULL, &run_cap, n1 * sizeof *run);
	/* the threads parked on each thread: lists linked through park_next, UINT32_MAX ends */
	uint32_t *park = vm_grow(NULL, &park_cap, 2 * n1 * sizeof *park);
	uint32_t *park_head = park, *park_next = park ? park + n1 : NULL;
	int rc = -1;
	if (!v || !run || !park) {
		snprintf(err, cap, "out of memory");
		goto out;
	}
	uint32_t nrun = 0;
	for (uint32_t t = 0; t < nt; t++) {
		wl_cursor_init(r, t, &v[t].c);
		v[t].on = -1;
		run[nrun++] = t;
		park_head[t] = UINT32_MAX;
	}
	/* the requested sizes of a hostile workload may add up past 2^64: the peak is then the
	   largest value there is (and live no longer matters) */
	uint64_t live = 0, peak = 0, ops = 0;
	int huge = 0;
	if (r->progress)
		r->progress(0, r->progress_arg);
	while (nrun) {
		uint32_t t = run[--nrun];
		for (;;) {
			if (__builtin_expect((++ops & ((1u << 20) - 1)) == 0, 0) && r->progress)
				r->progress(ops, r->progress_arg);
			k = wl_next(r, &v[t].c, &op);
			if (k < 0) {
				snprintf(err, cap, "%s", r->err);
				goto out;
			}
			if (k == 0) {
				v[t].done = 1;
				break;
			}
			if (op.op == MTRACE_WL_WAIT) {
				uint32_t u = (uint32_t)op.a[0];
				if (u == t) {
					snprintf(err, cap,
						 "%s: offset %llu: thread %u waits for itself",
						 r->name, (unsigned long long)op.offset, t);
					goto out;
				}
				if (note_wait(&waits, u, op.a[1]) < 0) {
					snprintf(err, cap, "out of memory");
					goto out;
				}
				if (v[u].count >= op.a[1])
					continue;
				v[t].on = u;
				v[t].need = op.a[1];
				park_next[t] = park_head[u];
				park_head[u] = t;
				break;
			}
			if (op.op == MTRACE_WL_AT && op.a[0] > r->h.duration_us) {
				/* (a paced replay waits for it: a time past the trace's end would
				   be a wait the trace never had, for as long as a file cares to
				   claim) */
				snprintf(err, cap,
					 "%s: offset %llu: a call at %llu us, after the trace's "
					 "end (%llu us)",
					 r->name, (unsigned long long)op.offset,
					 (unsigned long long)op.a[0],
					 (unsigned long long)r->h.duration_us);
				goto out;
			}
			if (op.op == MTRACE_WL_RESIDENT || op.op == MTRACE_WL_AT)
				continue;   /* not calls */
			v[t].count++;
			if (op.op > MTRACE_WL_LAST_CALL)
				/* a mapping call: its map id was checked, it holds no slot */
				continue;
			uint64_t s = op.a[0], s2 = 0, bytes = op.a[op.n - 1];
			if (op.op == MTRACE_WL_REALLOC || op.op == MTRACE_WL_REALLOCARRAY)
				s2 = op.a[1];
			uint64_t hi = s > s2 ? s : s2;
			if (hi > max_slot) {
				/* a header may claim any number of slots; the streams say how many
				   are used. Slot numbers are dense (handed out from 1 up, reused
				   when freed), so the largest one is below the number of allocating
				   calls, and so below the file's size in bytes: a larger one would
				   only make us allocate what a few bytes claim. */
				if (hi >= r->size) {
					snprintf(err, cap,
						 "%s: offset %llu: slot %llu is used in a file of "
						 "%zu bytes: slot numbers must be dense",
						 r->name, (unsigned long long)op.offset,
						 (unsigned long long)hi, r->size);
					goto out;
				}
				max_slot = hi;
			}
			if (!need_rss)
				continue;
			if (hi >= nsizes) {
				uint64_t *g = vm_grow(sizes, &sizes_cap, (hi + 1) * sizeof *g);
				if (!g) {
					snprintf(err, cap, "out of memory");
					goto out;
				}
				sizes = g;
				nsizes = sizes_cap / sizeof *g;
			}
			switch (op.op) {
			case MTRACE_WL_FREE:
				live -= sizes[s];
				sizes[s] = 0;
				break;
			case MTRACE_WL_REALLOC: case MTRACE_WL_REALLOCARRAY:
				if (op.failed)
					break;
				if (op.op == MTRACE_WL_REALLOCARRAY &&
				    __builtin_mul_overflow(op.a[2], op.a[3], &bytes))
					bytes = UINT64_MAX;
				live -= sizes[s2];
				sizes[s2] = 0;
				if (s) {
					live -= sizes[s];
					sizes[s] = bytes;
					huge |= __builtin_add_overflow(live, bytes, &live);
				}
				break;
			default:
				if (op.op == MTRACE_WL_CALLOC &&
				    __builtin_mul_overflow(op.a[1], op.a[2], &bytes))
					bytes = UINT64_MAX;
				if (s && !op.failed) {
					live -= sizes[s];
					sizes[s] = bytes;
					huge |= __builtin_add_overflow(live, bytes, &live);
				}
			}
			if (live > peak)
				peak = live;
		}
		/* wake those parked on t that can go on now */
		for (uint32_t *at = &park_head[t], w; (w = *at) != UINT32_MAX;) {
			if (v[t].count >= v[w].need) {
				v[w].on = -1;
				run[nrun++] = w;
				*at = park_next[w];
			} else
				at = &park_next[w];
		}
	}
	for (uint32_t t = 0; t < nt; t++)
		if (!v[t].done) {
			uint32_t u = (uint32_t)v[t].on;
			snprintf(err, cap,
				 "%s: offset %llu: deadlock: thread %u waits for thread %u to "
				 "finish call %llu, but thread %u %s after %llu call%s",
				 r->name, (unsigned long long)(v[t].c.p - v[t].c.base), t, u,
				 (unsigned long long)v[t].need, u,
				 v[u].done ? "ends" : "is itself stuck",
				 (unsigned long long)v[u].count, v[u].count == 1 ? "" : "s");
			goto out;
		}
	r->h.nslots = max_slot + 1;
	plan->ideal_rss = r->h.ideal_rss ? r->h.ideal_rss : huge ? UINT64_MAX : peak;
	if (build_points(plan, nt, &waits) < 0) {
		snprintf(err, cap, "cannot map the signal points (%zu waits): %s", waits.n,
			 strerror(errno));
		goto out;
	}
	rc = 0;
out:
	vm_free(waits.w, waits.cap);
	vm_free(park, park_cap);
	vm_free(sizes, sizes_cap);
	vm_free(run, run_cap);
	vm_free(v, v_cap);
	return rc;
}
