/* replay_check.c - see replay_check.h: a workload checked before it is replayed (replay_validate),
 * and the plan the replay takes from the check; whether its waits order the slots passed
 * between streams is replay_race.c's.  Everything here runs in the process under test, before
 * the replay: none of its memory comes from the allocator under test (replay_vm.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "replay_race.h"
#include "replay_vm.h"

/* ---------------------------------------------------------------------------------------------
   Validation, in one pass over every stream: schedule abstractly, event-driven: a thread runs
   until a WAIT it cannot pass, parks on the thread it waits for, and is woken when that one has
   run far enough.  Every op is decoded (and checked) once on the way; what is left parked at
   the end can never run.  The race check, when a workload needs it, runs the same
   schedule again.
   ------------------------------------------------------------------------------------------- */

struct vthread { struct wl_cursor c; uint64_t count, need; int64_t on; int done; };

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* A WAIT seen: thread u must publish its count k.  Kept as (u, k) pairs until the schedule is
   known to complete; waits for 0 need nothing. */
struct waitlist { uint64_t (*w)[2]; size_t n, cap; };   /* cap in bytes */

static int note_wait(struct waitlist *l, uint64_t u, uint64_t k)
{
	if (k == 0)
		return 0;
	if ((l->n + 1) * sizeof *l->w > l->cap) {
		void *n = replay_vm_grow(l->w, &l->cap, (l->n + 1) * sizeof *l->w);
		if (!n)
			return -1;
		l->w = n;
	}
	l->w[l->n][0] = u;
	l->w[l->n++][1] = k;
	return 0;
}

/* The ATs seen, as (stream, calls completed before it, usec), when the plan keeps them */
struct atlist { uint64_t (*a)[3]; size_t n, cap; int keep; };   /* cap in bytes */

static int note_at(struct atlist *l, uint64_t t, uint64_t k, uint64_t us)
{
	if (!l->keep)
		return 0;
	if ((l->n + 1) * sizeof *l->a > l->cap) {
		void *n = replay_vm_grow(l->a, &l->cap, (l->n + 1) * sizeof *l->a);
		if (!n)
			return -1;
		l->a = n;
	}
	memcpy(l->a[l->n++], (uint64_t[3]){ t, k, us }, sizeof *l->a);
	return 0;
}

/* The plan's ATs by stream (each stream's were noted in its order: a stable count sort) */
static int build_ats(struct replay_plan *p, uint32_t nt, const struct atlist *l)
{
	if (!l->keep)
		return 0;
	size_t cap = 0;
	void *map = replay_vm_grow(NULL, &cap, ((size_t)nt + 1) * sizeof(uint64_t) +
					       l->n * sizeof *p->at);
	if (map == NULL)
		return -1;
	p->at_bytes = cap;
	p->at_start = map;
	p->at = (uint64_t (*)[2])(p->at_start + nt + 1);
	for (size_t i = 0; i < l->n; i++)
		p->at_start[l->a[i][0] + 1]++;
	for (uint32_t t = 0; t < nt; t++)
		p->at_start[t + 1] += p->at_start[t];
	uint64_t *next = p->at_start;   /* (advanced as filled, then put back) */
	for (size_t i = 0; i < l->n; i++) {
		uint64_t *e = p->at[next[l->a[i][0]]++];
		e[0] = l->a[i][1], e[1] = l->a[i][2];
	}
	for (uint32_t t = nt; t > 0; t--)
		next[t] = next[t - 1];
	next[0] = 0;
	return 0;
}

/* The plan's signal points from the waits: by thread waited for, sorted, unique. */
static int build_points(struct replay_plan *p, uint32_t nt, const struct waitlist *l)
{
	size_t total = (size_t)l->n + nt, cap = 0;
	/* (no threads: still a block, as NULL means failure) */
	void *map = replay_vm_grow(NULL, &cap, ((size_t)nt * 2 + total) * sizeof(uint64_t) + 1);
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
		replay_vm_free(p->start, p->map_bytes);
	if (p->at_start)
		replay_vm_free(p->at_start, p->at_bytes);
	memset(p, 0, sizeof *p);
}

/* What the first pass also learns: the waits (the signal points), the largest slot, and the
   live requested bytes along the schedule for workloads without an ideal RSS (dj's): sizes[]
   grows with the largest slot met.  The requested sizes of a hostile workload may add up past
   2^64: the peak is then the largest value there is (and live no longer matters). */
struct first {
	struct waitlist waits;
	struct atlist ats;
	uint64_t max_slot, *sizes, nsizes, live, peak;
	size_t sizes_cap;
	int need_rss, huge;
};

/* The schedule's threads, the runnable ones, and those parked on each thread (lists linked
   through park_next, UINT32_MAX ends) */
struct sched {
	struct vthread *v;
	uint32_t *run, *park_head, *park_next;
	size_t v_cap, run_cap, park_cap;
};

/* The first pass's look at call op: ids in range, the live bytes.  0, or -1 with err. */
static int first_call(struct wl_reader *r, struct first *f, const struct wl_op *op,
		      struct tool_err *err)
{
	/* a header may claim any number of slots or map ids; the streams say how many are used.
	   They are dense (handed out from 1 or 0 up, reused when freed), so the largest one is
	   below the number of calls that allocate or map, and so below the file's size in bytes:
	   a larger one would only make us allocate what a few bytes claim. */
	if (op->op > MTRACE_WL_LAST_CALL) {
		if (op->a[0] < r->size)
			return 0;
		tool_fail(err, EXIT_BADFILE, "%s: offset %llu: map id %llu is used in a file of "
			  "%zu bytes: map ids must be dense", r->name,
			  (unsigned long long)op->offset, (unsigned long long)op->a[0], r->size);
		return -1;
	}
	uint64_t s = op->a[0], s2 = 0, bytes = op->a[op->n - 1];
	if (mtrace_wl_resizes(op->op))
		s2 = op->a[1];
	uint64_t hi = s > s2 ? s : s2;
	if (hi > f->max_slot) {
		if (hi >= r->size) {
			tool_fail(err, EXIT_BADFILE, "%s: offset %llu: slot %llu is used in a file "
				  "of %zu bytes: slot numbers must be dense", r->name,
				  (unsigned long long)op->offset, (unsigned long long)hi, r->size);
			return -1;
		}
		f->max_slot = hi;
	}
	if (!f->need_rss)
		return 0;
	uint64_t *sizes = f->sizes;
	if (hi >= f->nsizes) {
		if (!(sizes = replay_vm_grow(sizes, &f->sizes_cap, (hi + 1) * sizeof *sizes))) {
			tool_fail(err, EXIT_SYSTEM, "out of memory");
			return -1;
		}
		f->sizes = sizes;
		f->nsizes = f->sizes_cap / sizeof *sizes;
	}
	/* (calloc, reallocarray: the bytes are the last two operands' product) */
	if (mtrace_wl_has(op->op, MTRACE_OPD_COUNT) &&
	    __builtin_mul_overflow(op->a[op->n - 2], op->a[op->n - 1], &bytes))
		bytes = UINT64_MAX;
	if (op->op == MTRACE_WL_FREE) {
		f->live -= sizes[s];
		sizes[s] = 0;
	} else if (!op->failed) {   /* (a failed realloc's block stayed) */
		if (mtrace_wl_resizes(op->op)) {
			f->live -= sizes[s2];
			sizes[s2] = 0;
		}
		if (s) {
			f->live -= sizes[s];
			sizes[s] = bytes;
			f->huge |= __builtin_add_overflow(f->live, bytes, &f->live);
		}
	}
	if (f->live > f->peak)
		f->peak = f->live;
	return 0;
}

/* Stream t's call n (op): the slots or map id it uses, for the race check.  0, or -1. */
static inline int race_uses(struct race *o, uint32_t t, uint64_t n, const struct wl_op *op)
{
	if (op->op > MTRACE_WL_LAST_CALL) {
		if (race_use(o, t, n, op, op->a[0], 1) < 0)
			return -1;
	} else {
		uint64_t s = op->a[0], s2 = 0;
		if (mtrace_wl_resizes(op->op))
			s2 = op->a[1];
		if ((s && race_use(o, t, n, op, s, 0) < 0) ||
		    (s2 && s2 != s && race_use(o, t, n, op, s2, 0) < 0))
			return -1;
	}
	race_call(o, t, n);
	return 0;
}

/* Run every stream as far as its waits let it (f: the first pass, which checks what it decodes;
   o: the race check, NULL with one stream).  What is left parked at the end can never run.
   0, or -1 with err. */
static int schedule(struct wl_reader *r, struct sched *s, struct first *f, struct race *o,
		    struct tool_err *err)
{
	uint32_t nt = r->h.nthreads, nrun = 0;
	struct vthread *v = s->v;
	memset(v, 0, (nt ? nt : 1) * sizeof *v);
	for (uint32_t t = nt; t-- > 0;) {   /* (stream 0 runs first: a race is told in the
	                                        order a reader expects) */
		wl_cursor_init(r, t, &v[t].c);
		v[t].on = -1;
		s->run[nrun++] = t;
		s->park_head[t] = UINT32_MAX;
	}
	struct wl_op op;
	uint64_t ops = 0;
	void (*progress)(uint64_t, void *) = f ? r->progress : NULL;
	if (progress)
		progress(0, r->progress_arg);
	while (nrun) {
		uint32_t t = s->run[--nrun];
		for (;;) {
			if (__builtin_expect((++ops & ((1u << 20) - 1)) == 0, 0) && progress)
				progress(ops, r->progress_arg);
			int k = wl_next(r, &v[t].c, &op);
			if (k < 0) {
				tool_fail(err, EXIT_BADFILE, "%s", r->err.msg);
				return -1;
			}
			if (k == 0) {
				v[t].done = 1;
				break;
			}
			if (op.op == MTRACE_WL_WAIT) {
				uint32_t u = (uint32_t)op.a[0];
				if (f && u == t) {
					tool_fail(err, EXIT_BADFILE,
						  "%s: offset %llu: thread %u waits for itself",
						  r->name, (unsigned long long)op.offset, t);
					return -1;
				}
				if (f && note_wait(&f->waits, u, op.a[1]) < 0) {
					tool_fail(err, EXIT_SYSTEM, "out of memory");
					return -1;
				}
				if (v[u].count >= op.a[1]) {
					if (o && op.a[1] && race_waited(o, t, u, op.a[1]) < 0)
						return race_next(o, r, NULL, err);
					continue;
				}
				v[t].on = u;
				v[t].need = op.a[1];
				s->park_next[t] = s->park_head[u];
				s->park_head[u] = t;
				break;
			}
			if (f && op.op == MTRACE_WL_AT && op.a[0] > r->h.duration_us) {
				/* (a paced replay waits for it: a time past the trace's end would
				   be a wait the trace never had, for as long as a file cares to
				   claim) */
				tool_fail(err, EXIT_BADFILE,
					  "%s: offset %llu: a call at %llu us, after the trace's "
					  "end (%llu us)",
					  r->name, (unsigned long long)op.offset,
					  (unsigned long long)op.a[0],
					  (unsigned long long)r->h.duration_us);
				return -1;
			}
			if (f && op.op == MTRACE_WL_AT &&
			    note_at(&f->ats, t, v[t].count, op.a[0]) < 0) {
				tool_fail(err, EXIT_SYSTEM, "out of memory");
				return -1;
			}
			if (op.op == MTRACE_WL_RESIDENT || op.op == MTRACE_WL_AT)
				continue;   /* not calls */
			uint64_t n = ++v[t].count;
			if (f && first_call(r, f, &op, err) < 0)
				return -1;
			if (o && race_uses(o, t, n, &op) < 0)
				return race_next(o, r, NULL, err);
		}
		/* wake those parked on t that can go on now */
		for (uint32_t *at = &s->park_head[t], w; (w = *at) != UINT32_MAX;) {
			if (v[t].count >= v[w].need) {
				if (o && race_waited(o, w, t, v[w].need) < 0)
					return race_next(o, r, NULL, err);
				v[w].on = -1;
				s->run[nrun++] = w;
				*at = s->park_next[w];
			} else
				at = &s->park_next[w];
		}
	}
	return 0;
}

int replay_validate(struct wl_reader *r, struct replay_plan *plan, struct tool_err *err)
{
	memset(plan, 0, sizeof *plan);
	uint32_t nt = r->h.nthreads;
	size_t n1 = nt ? nt : 1;
	struct first f = { .need_rss = r->h.ideal_rss == 0,
			   .ats.keep = (r->h.flags & MTRACE_WL_HF_SAMPLES) && r->h.nsamples };
	struct sched s = { 0 };
	struct race race, *o = nt > 1 ? &race : NULL;
	uint32_t *park;
	int rc = -1;
	s.v = replay_vm_grow(NULL, &s.v_cap, n1 * sizeof *s.v);
	s.run = replay_vm_grow(NULL, &s.run_cap, n1 * sizeof *s.run);
	s.park_head = park = replay_vm_grow(NULL, &s.park_cap, 2 * n1 * sizeof *park);
	s.park_next = park ? park + n1 : NULL;
	if (o && race_init(o, nt, r->size) < 0)
		o->failed = -1;
	if (!s.v || !s.run || !park || (o && o->failed)) {
		tool_fail(err, EXIT_SYSTEM, "out of memory");
		goto out;
	}
	if (schedule(r, &s, &f, o, err) < 0)
		goto out;
	struct vthread *v = s.v;
	for (uint32_t t = 0; t < nt; t++)
		if (!v[t].done) {
			uint32_t u = (uint32_t)v[t].on;
			tool_fail(err, EXIT_BADFILE,
				  "%s: offset %llu: deadlock: thread %u waits for thread %u to "
				  "finish call %llu, but thread %u %s after %llu call%s",
				  r->name, (unsigned long long)(v[t].c.p - v[t].c.base), t, u,
				  (unsigned long long)v[t].need, u,
				  v[u].done ? "ends" : "is itself stuck",
				  (unsigned long long)v[u].count, v[u].count == 1 ? "" : "s");
			rc = -2;
			goto out;
		}
	r->h.nslots = f.max_slot + 1;
	plan->ideal_rss = r->h.ideal_rss ? r->h.ideal_rss : f.huge ? UINT64_MAX : f.peak;
	if (build_points(plan, nt, &f.waits) < 0) {
		tool_fail(err, EXIT_SYSTEM, "cannot map the signal points (%zu waits): %s",
			  f.waits.n, strerror(errno));
		goto out;
	}
	if (build_ats(plan, nt, &f.ats) < 0) {
		tool_fail(err, EXIT_SYSTEM, "cannot map the times of %zu ATs: %s", f.ats.n,
			  strerror(errno));
		replay_plan_free(plan);
		goto out;
	}
	/* the uses no direct wait orders: again, exactly, as many passes as it takes */
	for (int k; o && (k = race_next(o, r, plan, err)) != 0;)
		if (k < 0 || schedule(r, &s, NULL, o, err) < 0) {
			replay_plan_free(plan);
			rc = o->failed > 0 ? -2 : -1;
			goto out;
		}
	rc = 0;
out:
	if (o)
		race_free(o);
	replay_vm_free(f.waits.w, f.waits.cap);
	replay_vm_free(f.ats.a, f.ats.cap);
	replay_vm_free(park, s.park_cap);
	replay_vm_free(f.sizes, f.sizes_cap);
	replay_vm_free(s.run, s.run_cap);
	replay_vm_free(s.v, s.v_cap);
	return rc;
}
