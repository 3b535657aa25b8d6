/* sites.c - see sites.h */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "order.h"
#include "progress.h"
#include "sites.h"
#include "stacks.h"
#include "trace_reader.h"

const char *const sites_what_names[SITES_WHATS] = { "peak", "leaks", "calls", "allocated" };

#define NO_STACK "(no call stack)"   /* the name of calls whose stack was not taken */

struct sblock { uint64_t size, site; };   /* a live block (live.h's table) */

static int oom(struct tool_err *e)
{
	return tool_fail(e, EXIT_SYSTEM, "out of memory");
}

/* ---------------------------------------------------------------------------------------------
   First pass: the stacks, objects and names, in file order
   ------------------------------------------------------------------------------------------- */

static int read_stacks(const char *path, struct sites *s, struct tool_err *e)
{
	struct trace_reader r;
	if (trace_open(&r, path) < 0) {
		*e = r.err;
		trace_close(&r);
		return -1;
	}
	if (r.format != TRACE_FMT_MTRACE || r.hdr.version < 5 ||
	    !(r.hdr.flags & MTRACE_HF_STACKS)) {
		trace_close(&r);
		return tool_fail(e, EXIT_BADFILE, "%s: recorded without --stacks: mtracectl "
				 "--stacks -- PROGRAM records the call stack of every allocation",
				 s->name);
	}
	s->depth = r.hdr.stack_depth;
	s->dropped = r.hdr.stacks_dropped;
	r.ext_return = 1;
	struct mtrace_record rec;
	uint64_t off;
	int k;
	while ((k = trace_next(&r, &rec, &off)) > 0)
		if ((rec.call == MTRACE_CALL_CALLER || mtrace_call_is_ext(rec.call)) &&
		    trace_stacks_add(s->st, &rec, trace_ext_slots(&r, &rec), off) < 0) {
			trace_close(&r);
			return tool_fail(e, EXIT_BADFILE, "%s", trace_stacks_error(s->st));
		}
	if (k < 0)
		*e = r.err;
	trace_close(&r);
	return k;
}

/* ---------------------------------------------------------------------------------------------
   Second pass: the calls in their global order
   ------------------------------------------------------------------------------------------- */

/* The site of stack id (made when first met): its index, or -1 out of memory */
static int64_t site_of(struct sites *s, uint32_t id)
{
	uint64_t *i = u64map_get(&s->index, (uint64_t)id + 1);
	if (i)
		return (int64_t)*i - 1;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct site *v = realloc(s->v, cap * sizeof *v);
		if (!v)
			return -1;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n] = (struct site){ .stack = id, .epoch = s->epoch };
	if (u64map_put(&s->index, (uint64_t)id + 1, s->n + 1) < 0)
		return -1;
	return (int64_t)s->n++;
}

/* x's live figures are about to change: keep them as they were at the last peak, if x has not
   changed since it (the first change after each peak keeps them) */
static void touch(struct sites *s, struct site *x)
{
	if (x->epoch != s->epoch) {
		x->peak_n = x->live_n;
		x->peak_b = x->live_b;
		x->epoch = s->epoch;
	}
}

/* Block v is no longer live (freed, or its free missing): off its site's live figures */
static void block_gone(struct sites *s, uint64_t v)
{
	struct sblock *b = live_block(&s->live, v);
	struct site *x = &s->v[b->site];
	touch(s, x);
	x->live_n--;
	x->live_b -= b->size;
	live_release_block(&s->live, v);
}

static int block_new(struct sites *s, uint64_t a, uint64_t size, uint64_t site, uint64_t idx)
{
	int64_t i = live_new_block(&s->live);
	if (i < 0)
		return -1;
	*(struct sblock *)live_block(&s->live, (uint64_t)i) = (struct sblock){ size, site };
	struct site *x = &s->v[site];
	touch(s, x);
	x->live_n++;
	x->live_b += size;
	uint64_t old;
	int k = live_add(&s->live, a, addrmap_hash(a), (uint64_t)i, size, idx, &old);
	if (k < 0)
		return -1;
	if (k & LIVE_REPLACED)   /* its free is missing (as trace_stats counts it) */
		block_gone(s, old);
	if (k & LIVE_PEAK) {
		s->epoch++;
		s->peak_b = s->live.bytes;
		s->peak_n = s->live.n;
		s->peak_call = idx;
	}
	return 0;
}

static void block_end(struct sites *s, uint64_t a)
{
	uint64_t v;
	if (live_remove(&s->live, a, addrmap_hash(a), &v))
		block_gone(s, v);
}

struct pass { struct sites *s; struct order *o; uint64_t idx; };

static int on_thread(void *ctx, uint32_t idx, uint32_t tid)
{
	struct sites *s = ((struct pass *)ctx)->s;
	(void)tid;
	if (idx >= s->npending) {
		uint32_t n = s->npending ? s->npending * 2 : 64;
		uint64_t *p = realloc(s->pending, n * sizeof *p);
		if (!p)
			return -1;
		memset(p + s->npending, 0, (n - s->npending) * sizeof *p);
		s->pending = p;
		s->npending = n;
	}
	return 0;
}

static int on_event(struct pass *p, const struct order_ev *e)
{
	struct sites *s = p->s;
	const struct mtrace_record *r = e->rec;
	uint64_t *pending = &s->pending[e->thread];
	if (r->call == MTRACE_CALL_CALLER) {
		*pending = r->size + 1;   /* (the stack id: x) */
		return 0;
	}
	if (r->call > MTRACE_CALL_LAST_API)
		return 0;   /* a mapping call, or bookkeeping */
	if (e->kind == ORDER_RELEASE) {   /* a realloc's old block ends; its result follows */
		if (r->ptr)
			block_end(s, r->ptr);
		return 0;
	}
	p->idx++;
	if (r->call == MTRACE_CALL_FREE) {
		*pending = 0;   /* (a CALLER followed by anything else belongs to nothing) */
		if (r->ptr)
			block_end(s, r->ptr);
		return 0;
	}
	uint32_t id = *pending ? (uint32_t)(*pending - 1) : 0;
	*pending = 0;
	int64_t i = site_of(s, id);
	if (i < 0)
		return -1;
	struct site *x = &s->v[i];
	x->calls++;
	s->calls++;
	if ((r->flags & MTRACE_RF_FAILED) || r->result == 0)
		return 0;
	uint64_t b = mtrace_record_bytes(r);
	x->size = x->blocks == 0 || x->size == b + 1 ? b + 1 : 0;
	x->blocks++;
	x->bytes += b;
	s->blocks++;
	s->bytes += b;
	return block_new(s, r->result, b, (uint64_t)i, p->idx);
}

static int on_events(void *ctx, const struct order_ev *ev, size_t n)
{
	struct pass *p = ctx;
	for (size_t i = 0; i < n; i++) {
		order_warm(p->o);
		if (on_event(p, &ev[i]) < 0)
			return -1;
	}
	return 0;
}

static int read_calls(const char *path, struct sites *s, int progress, struct tool_err *e)
{
	struct trace_reader r;
	if (trace_open(&r, path) < 0) {
		*e = r.err;
		trace_close(&r);
		return -1;
	}
	r.ext_return = 1;   /* (the CALLER records: each names the stack of its thread's next call) */
	struct order o;
	struct pass p = { s, &o, 0 };
	struct tool_progress pr;
	trace_progress_start(&pr, progress, &r);
	r.progress = tool_progress;
	r.progress_arg = &pr;
	int rc = order_begin(&o, on_events, on_thread, &p);
	if (rc == 0)
		rc = order_feed(&o, &r);
	tool_progress_end(&pr);
	if (rc == 0)
		rc = order_end(&o);
	if (rc < 0) {
		if (o.err.msg[0])
			*e = o.err;
		else
			oom(e);
	}
	order_free(&o);
	trace_close(&r);
	return rc;
}

/* ---------------------------------------------------------------------------------------------
   Names
   ------------------------------------------------------------------------------------------- */

/* name (n bytes) added to the names: its offset, or -1 out of memory */
static int64_t add_name(struct sites *s, const char *name)
{
	size_t n = strlen(name) + 1;
	if (s->names_len + n > s->names_cap) {
		size_t cap = s->names_cap ? s->names_cap * 2 : 4096;
		while (cap < s->names_len + n)
			cap *= 2;
		char *p = realloc(s->names, cap);
		if (!p)
			return -1;
		s->names = p;
		s->names_cap = cap;
	}
	memcpy(s->names + s->names_len, name, n);
	s->names_len += n;
	return (int64_t)(s->names_len - n);
}

/* Every site's frames named: the names end to end, then each frame's pointer */
static int name_frames(struct sites *s)
{
	size_t total = 0;
	uint64_t **offs = calloc(s->n + 1, sizeof *offs);
	if (!offs)
		return -1;
	int rc = 0;
	for (size_t i = 0; i < s->n && rc == 0; i++) {
		struct site *x = &s->v[i];
		const uint64_t *f = NULL;
		unsigned n = x->stack ? trace_stacks_frames(s->st, x->stack, &f) : 0;
		x->nframes = n ? n : 1;
		offs[i] = malloc(x->nframes * sizeof **offs);
		if (!offs[i]) {
			rc = -1;
			break;
		}
		for (unsigned k = 0; k < x->nframes && rc == 0; k++) {
			int64_t at = add_name(s, n ? trace_stacks_name(s->st, f[k]) : NO_STACK);
			rc = at < 0 ? -1 : 0;
			offs[i][k] = (uint64_t)at;
		}
		total += x->nframes;
	}
	const char **ptrs = rc == 0 ? malloc((total + 1) * sizeof *ptrs) : NULL;
	if (!ptrs)
		rc = -1;
	for (size_t i = 0, at = 0; rc == 0 && i < s->n; i++) {
		s->v[i].frames = ptrs + at;
		for (unsigned k = 0; k < s->v[i].nframes; k++)
			ptrs[at++] = s->names + offs[i][k];
	}
	for (size_t i = 0; i < s->n; i++)
		free(offs[i]);
	free(offs);
	return rc;
}

int sites_collect(const char *path, struct sites *s, int progress, struct tool_err *e)
{
	memset(s, 0, sizeof *s);
	s->name = tool_display_name(path);
	live_init(&s->live, NULL, sizeof(struct sblock));
	if (!(s->st = trace_stacks_new()))
		return oom(e);
	trace_stacks_set_name(s->st, s->name);
	if (read_stacks(path, s, e) < 0 || read_calls(path, s, progress, e) < 0)
		return -1;
	for (size_t i = 0; i < s->n; i++) {
		struct site *x = &s->v[i];
		if (x->epoch != s->epoch) {   /* unchanged since the last peak */
			x->peak_n = x->live_n;
			x->peak_b = x->live_b;
		}
		x->end_n = x->live_n;
		x->end_b = x->live_b;
		s->end_n += x->end_n;
		s->end_b += x->end_b;
	}
	return name_frames(s) < 0 ? oom(e) : 0;
}

void sites_free(struct sites *s)
{
	if (s->n && s->v[0].frames) {
		const char **first = s->v[0].frames;
		free((void *)first);
	}
	free(s->v);
	free(s->names);
	free(s->pending);
	u64map_free(&s->index);
	live_free(&s->live);
	trace_stacks_free(s->st);
	memset(s, 0, sizeof *s);
}

/* ---------------------------------------------------------------------------------------------
   Reports' shapes
   ------------------------------------------------------------------------------------------- */

uint64_t sites_value(const struct site *x, enum sites_what w)
{
	switch (w) {
	case SITES_PEAK: return x->peak_b;
	case SITES_LEAKS: return x->end_b;
	case SITES_CALLS: return x->calls;
	default: return x->bytes;
	}
}

/* the frames two sites are grouped by: -1, 0, 1 */
static unsigned group_depth;
static int cmp_frames(const struct site *a, const struct site *b)
{
	unsigned na = a->nframes, nb = b->nframes;
	if (group_depth) {
		na = na < group_depth ? na : group_depth;
		nb = nb < group_depth ? nb : group_depth;
	}
	for (unsigned k = 0; k < na && k < nb; k++) {
		int c = strcmp(a->frames[k], b->frames[k]);
		if (c)
			return c;
	}
	return na < nb ? -1 : na > nb;
}

static int cmp_group(const void *a, const void *b)
{
	return cmp_frames(a, b);
}

struct site *sites_group(const struct sites *s, unsigned depth, size_t *n)
{
	struct site *v = malloc((s->n + 1) * sizeof *v);
	if (!v)
		return NULL;
	memcpy(v, s->v, s->n * sizeof *v);
	group_depth = depth;
	qsort(v, s->n, sizeof *v, cmp_group);
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (k && cmp_frames(&v[k - 1], &v[i]) == 0) {
			struct site *g = &v[k - 1], *x = &v[i];
			g->size = g->size == x->size || g->blocks == 0 ? x->size :
				  x->blocks == 0 ? g->size : 0;
			g->calls += x->calls;
			g->blocks += x->blocks;
			g->bytes += x->bytes;
			g->peak_n += x->peak_n;
			g->peak_b += x->peak_b;
			g->end_n += x->end_n;
			g->end_b += x->end_b;
			continue;
		}
		v[k] = v[i];
		if (depth && v[k].nframes > depth)
			v[k].nframes = depth;
		k++;
	}
	*n = k;
	return v;
}

static enum sites_what sort_what;
static int cmp_value(const void *a, const void *b)
{
	uint64_t x = sites_value(a, sort_what), y = sites_value(b, sort_what);
	if (x != y)
		return x > y ? -1 : 1;
	group_depth = 0;
	return cmp_frames(a, b);
}

void sites_sort(struct site *v, size_t n, enum sites_what w)
{
	sort_what = w;
	qsort(v, n, sizeof *v, cmp_value);
}

char *sites_fold_name(char *buf, size_t cap, const char *name)
{
	size_t i = 0;
	for (; name[i] && i + 1 < cap; i++) {
		char c = name[i];
		buf[i] = c == ';' ? ':' : (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
	}
	buf[i] = 0;
	return buf;
}
