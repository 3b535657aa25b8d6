/* replay_prog.c - see replay_prog.h */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>
#include <time.h>
#include "replay_int.h"

static void *map_zero(size_t bytes, uint64_t *harness)
{
	*harness += bytes;
	void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* ---------------------------------------------------------------------------------------------
   Mappings.  An UNMAP of part of a mapping gives its pages back (MADV_DONTNEED) and the mapping
   goes once all its bytes are unmapped: the replay only ever unmaps what it mapped itself, so a
   workload can never make it unmap its own tables (a real munmap of a part, a hole, could let a
   later mapping of the harness's land there).
   ------------------------------------------------------------------------------------------- */

int replay_maps_init(struct replay_maps *r, uint64_t n, uint64_t page, int mode, uint64_t *harness)
{
	memset(r, 0, sizeof *r);
	r->n = n;
	r->page = page;
	r->mode = mode;
	if (n && !(r->m = map_zero(n * sizeof *r->m, harness)))
		return -1;
	return 0;
}

static void mapped(struct replay_maps *r, int64_t d)
{
	int64_t now = __atomic_add_fetch(&r->mapped, d, __ATOMIC_RELAXED);
	for (int64_t pk = __atomic_load_n(&r->peak, __ATOMIC_RELAXED); now > pk;)
		if (__atomic_compare_exchange_n(&r->peak, &pk, now, 0, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			break;
}

/* A mapping whose pages are about to change: no longer written by the sampler */
static void unfill(struct replay_maps *r, struct rmap *m)
{
	if (m->fill)
		replay_fill_release(r->fill, m->fill);
	m->fill = 0;
}

static void drop(struct replay_maps *r, struct rmap *m)
{
	unfill(r, m);
	munmap(m->p, m->len);
	mapped(r, -(int64_t)m->len);
	*m = (struct rmap){ 0 };
}

/* Touch as much of mapping m, [q, q + n), as the RESIDENT at *p says (or pool it, to be
   written as the program's memory rises) */
static void touch(struct replay_maps *r, struct rmap *m, char *q, uint64_t n, const uint8_t **p)
{
	int told, large = **p == MTRACE_WL_RESIDENT;
	uint64_t k = replay_resident(p, n, r->mode, &told);
	if (told > 0)
		__atomic_fetch_add(&r->resident_told, 1, __ATOMIC_RELAXED);
	if (large && r->fill && (m->fill = replay_fill_add(r->fill, q, n, k, 0, told > 0)))
		return;
	if (told < 0) {
		__atomic_fetch_add(&r->unknown, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&r->unknown_bytes, n, __ATOMIC_RELAXED);
	}
	replay_touch(q, n, k, r->mode, r->page);
}

const uint8_t *replay_map_op(struct replay_maps *r, unsigned op, const uint8_t *p,
			     uint64_t *failed_len)
{
	struct rmap *m = &r->m[varint_get_fast(&p)];
	if (op == MTRACE_WL_MAP) {
		uint64_t len = varint_get_fast(&p);
		if (m->p)
			drop(r, m);   /* (a hostile workload's: the id held one still) */
		char *q = mmap(NULL, len ? len : 1, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (q == MAP_FAILED) {
			*failed_len = len ? len : 1;
			return p;   /* (its RESIDENT, if any, is skipped by the loop) */
		}
		*m = (struct rmap){ q, len ? len : 1, len ? len : 1, 0 };
		mapped(r, (int64_t)m->len);
		touch(r, m, q, len, &p);
		return p;
	}
	if (op == MTRACE_WL_REMAP) {
		uint64_t len = varint_get_fast(&p);
		if (!m->p || !len)
			return p;
		unfill(r, m);
		char *q = mremap(m->p, m->len, len, MREMAP_MAYMOVE);
		if (q == MAP_FAILED) {
			*failed_len = len;
			return p;
		}
		mapped(r, (int64_t)len - (int64_t)m->len);
		*m = (struct rmap){ q, len, len, 0 };
		touch(r, m, q, len, &p);
		return p;
	}
	/* UNMAP map offset length: within the mapping only */
	uint64_t off = varint_get_fast(&p), len = varint_get_fast(&p);
	if (!m->p || off >= m->len)
		return p;
	if (len > m->len - off)
		len = m->len - off;
	if (len >= m->left) {
		drop(r, m);
		return p;
	}
	unfill(r, m);
	m->left -= len;
	uintptr_t a = ((uintptr_t)m->p + off + r->page - 1) & ~(uintptr_t)(r->page - 1);
	uintptr_t b = ((uintptr_t)m->p + off + len) & ~(uintptr_t)(r->page - 1);
	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
	return p;
}

/* ---------------------------------------------------------------------------------------------
   The replay's curve
   ------------------------------------------------------------------------------------------- */

#define CURVE_POINTS 8192u       /* 256 KiB: 80 s of samples at 10 ms before thinning */

int replay_curve_init(struct replay_curve *c, uint64_t *harness)
{
	memset(c, 0, sizeof *c);
	c->cap = CURVE_POINTS;
	c->stride = 1;
	c->pt = map_zero(c->cap * sizeof *c->pt, harness);
	return c->pt ? 0 : -1;
}

void replay_curve_add(struct replay_curve *c, uint64_t calls, uint64_t anon, uint64_t us,
		      uint64_t pcalls)
{
	if (anon > c->anon_peak)
		c->anon_peak = anon;
	if (!c->pt || c->seen++ % c->stride)
		return;
	if (c->n == c->cap) {   /* full: every other one goes, and half as many are kept */
		for (uint64_t i = 0; i < c->n / 2; i++)
			c->pt[i] = c->pt[2 * i + 1];
		c->n /= 2;
		c->stride *= 2;
	}
	c->pt[c->n++] = (struct replay_point){ calls, anon, us, pcalls };
}

int replay_statm(int fd, uint64_t page, uint64_t *vsz, uint64_t *rss, uint64_t *anon)
{
	char buf[160];
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	char *end;
	unsigned long long v = strtoull(buf, &end, 10), r = strtoull(end, &end, 10),
			   sh = strtoull(end, NULL, 10);
	*vsz = v * page;
	*rss = r * page;
	*anon = (r > sh ? r - sh : 0) * page;
	return 0;
}

/* ---------------------------------------------------------------------------------------------
   Pace
   ------------------------------------------------------------------------------------------- */

void replay_pace_wait(uint64_t t0_ns, double factor, uint64_t usec)
{
	double ns = (double)usec * 1000.0 / factor;
	if (!(ns < 9e18))
		return;   /* (absurd: a hostile workload's) */
	uint64_t at = t0_ns + (uint64_t)ns;
	struct timespec ts = { (time_t)(at / 1000000000u), (long)(at % 1000000000u) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}
