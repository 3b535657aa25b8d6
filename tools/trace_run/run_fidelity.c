/* run_fidelity.c - see run_fidelity.h */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "run_fidelity.h"
#include "run_report.h"
#include "tool.h"

#define POINTS 4096   /* where the curves are compared, evenly spread over calls or time */

/* A curve walked at increasing values of x, linear between its points; of several points at one
   x (the sampler saw no call between them: an idle time), the last.  x and y: which of a
   point's values (as enum below) */
enum { V_CALLS, V_ANON, V_US, V_PCALLS };
struct walk {
	const struct wl_reader *r;    /* the program's samples, or */
	const struct replay_curve *c; /* the replay's points */
	int x, y;
	uint64_t n, i, base;          /* points; the last at or before x; y's zero */
};

static uint64_t value(const struct walk *w, uint64_t i, int v)
{
	if (w->r) {
		struct mtrace_wl_sample s;
		wl_sample(w->r, i, &s);
		return v == V_CALLS ? s.calls : v == V_ANON ? s.anon : s.time_us;
	}
	const struct replay_point *p = &w->c->pt[i];
	return v == V_CALLS ? p->calls : v == V_ANON ? p->anon : v == V_US ? p->us : p->pcalls;
}

/* y (above base, may be negative) at x; x only grows from call to call */
static double at(struct walk *w, uint64_t x)
{
	while (w->i + 1 < w->n && value(w, w->i + 1, w->x) <= x)
		w->i++;
	uint64_t x0 = value(w, w->i, w->x), y0 = value(w, w->i, w->y);
	double v = (double)y0;
	if (x0 < x && w->i + 1 < w->n) {
		uint64_t x1 = value(w, w->i + 1, w->x), y1 = value(w, w->i + 1, w->y);
		v += ((double)y1 - (double)y0) * (double)(x - x0) / (double)(x1 - x0);
	}
	return v - (double)w->base;
}

/* The curves' mean distance over the program's time, at POINTS times from its start to its end
   (end_us): a paced replay's where its clock says it was; a fast one's where it had made as
   many of the program's calls (pcalls), as time has no meaning for it */
static double time_error(const struct wl_reader *r, const struct replay_curve *c, uint64_t first,
			 uint64_t end_us, int paced)
{
	struct walk p = { r, NULL, V_US, V_ANON, r->h.nsamples, 0, first },
		    pc = { r, NULL, V_US, V_CALLS, r->h.nsamples, 0, 0 },
		    q = { NULL, c, paced ? V_US : V_PCALLS, V_ANON, c->n, 0, c->anon0 };
	double sum = 0;
	for (uint64_t i = 0; i < POINTS; i++) {
		uint64_t t = mul_div_u64(end_us, i, POINTS - 1);
		uint64_t x = paced ? t : (uint64_t)(at(&pc, t) + 0.5);
		sum += fabs(at(&q, x) - at(&p, t));
	}
	return sum / POINTS;
}

void fidelity_compute(const struct wl_reader *r, const struct replay_curve *c, uint64_t hwm_growth,
		      int applies, int paced, struct fidelity *f)
{
	*f = (struct fidelity){ 0 };
	const struct mtrace_wl_header *h = &r->h;
	if (!(h->flags & MTRACE_WL_HF_SAMPLES) || !h->nsamples || !c || !c->n)
		return;
	f->have = 1;
	f->applies = applies;
	struct mtrace_wl_sample s;
	uint64_t first = 0, peak = 0, end_us = h->duration_us;
	for (uint64_t i = 0; i < h->nsamples; i++) {
		wl_sample(r, i, &s);
		if (i == 0)
			first = s.anon;
		if (s.anon > peak)
			peak = s.anon;
		if (s.time_us > end_us)
			end_us = s.time_us;
	}
	f->prog_growth = peak > first ? peak - first : 0;
	/* the replay's: as sampled, or its high-water mark's when higher (a peak between two
	   samples; the few file pages a replay brings in count there, as the program's samples
	   leave out) */
	f->replay_growth = c->anon_peak > c->anon0 ? c->anon_peak - c->anon0 : 0;
	if (hwm_growth > f->replay_growth)
		f->replay_growth = hwm_growth;
	f->time_error = NAN;
	if (!f->prog_growth) {
		f->peak_error = f->curve_error = NAN;   /* nothing to compare with */
		return;
	}
	f->peak_error =
		((double)f->replay_growth - (double)f->prog_growth) / (double)f->prog_growth;
	struct walk p = { r, NULL, V_CALLS, V_ANON, h->nsamples, 0, first },
		    q = { NULL, c, V_CALLS, V_ANON, c->n, 0, c->anon0 };
	uint64_t total = h->ncalls, k = total + 1 < POINTS ? total + 1 : POINTS;
	double sum = 0;
	for (uint64_t i = 0; i < k; i++) {
		uint64_t call = k > 1 ? mul_div_u64(total, i, k - 1) : 0;
		sum += fabs(at(&q, call) - at(&p, call));
	}
	f->curve_error = sum / (double)k / (double)f->prog_growth;
	if (end_us)   /* (a count of order points has no times) */
		f->time_error = time_error(r, c, first, end_us, paced) / (double)f->prog_growth;
}

uint64_t fidelity_memory_need(const struct wl_reader *r, uint64_t ideal, int touch,
			      const char **what)
{
	const struct mtrace_wl_header *h = &r->h;
	if (touch == TOUCH_RESIDENT && (h->flags & MTRACE_WL_HF_SAMPLES) && h->nsamples) {
		struct mtrace_wl_sample s;
		uint64_t peak = 0;
		for (uint64_t i = 0; i < h->nsamples; i++) {
			wl_sample(r, i, &s);
			if (s.anon > peak)
				peak = s.anon;
		}
		*what = "the program held %s MiB at its peak (its anonymous RSS, which a replay "
			"touching as the program did follows)";
		return peak;
	}
	*what = h->mapped_peak ? "its blocks and own mappings reach %s MiB live at their peak "
				 "(its ideal RSS and mapped bytes)"
			       : "its blocks reach %s MiB live at their peak (its ideal RSS)";
	return ideal + h->mapped_peak < ideal ? UINT64_MAX : ideal + h->mapped_peak;
}

/* ---------------------------------------------------------------------------------------------
   As trace_run reports them (run_report.h's fields)
   ------------------------------------------------------------------------------------------- */

static int is_fraction(int i)
{
	return i == F_PEAK_ERR || i == F_CURVE_ERR || i == F_TIME_ERR;
}

void report_value(FILE *out, int i, int64_t v, int json)
{
	if (v == F_NA)
		fputs(json ? "null" : "", out);
	else if (is_fraction(i))
		fprintf(out, "%.6f", (double)v / 1e6);
	else
		fprintf(out, "%lld", (long long)v);
}

int report_parse_value(int i, char **s, int64_t *v)
{
	char *end;
	if (**s == ',') {
		*v = F_NA;
		return 0;
	}
	if (is_fraction(i)) {
		double d = strtod(*s, &end);
		if (end == *s || !(fabs(d) < 9e12))
			return -1;
		*v = (int64_t)llround(d * 1e6);
	} else
		*v = strtoll(*s, &end, 10);
	if (end == *s || *end != ',')
		return -1;
	*s = end;
	return 0;
}

static int64_t millionths(double x)
{
	return isfinite(x) && fabs(x) < 9e12 ? (int64_t)llround(x * 1e6) : F_NA;
}

void report_fidelity_fields(const struct fidelity *fid, const struct replay_result *r, int64_t *f)
{
	int have = fid && fid->have;
	f[F_PROG_GROWTH] = have ? (int64_t)(fid->prog_growth / 1024) : F_NA;
	f[F_REPLAY_GROWTH] = have ? (int64_t)(fid->replay_growth / 1024) : F_NA;
	f[F_PEAK_ERR] = have ? millionths(fid->peak_error) : F_NA;
	f[F_CURVE_ERR] = have ? millionths(fid->curve_error) : F_NA;
	f[F_TIME_ERR] = have ? millionths(fid->time_error) : F_NA;
	f[F_FID_APPLIES] = have ? fid->applies : F_NA;
	f[F_MAPPED_KB] = (int64_t)(r->mapped_peak / 1024);
	f[F_RESIDENT_TOLD] = (int64_t)r->resident_told;
	f[F_UNKNOWN_KB] = (int64_t)(r->resident_unknown_bytes / 1024);
}

void report_fidelity_text(FILE *out, const int64_t *f, const char *traced_alloc, int paced)
{
	if (f[F_MAPPED_KB])
		fprintf(out, "Program's own mappings: %s Kb at the most, replayed (in the RSS above)\n",
		       report_num(f[F_MAPPED_KB]));
	if (f[F_RESIDENT_TOLD])
		fprintf(out, "Touched as the program had them resident: %s blocks and mappings\n",
		       report_num(f[F_RESIDENT_TOLD]));
	if (f[F_PROG_GROWTH] == F_NA)
		return;
	if (f[F_RFAIL]) {   /* (its figures are not the program's: calls it made did not happen) */
		fprintf(out, "Program as traced: %s Kb peak anonymous RSS growth; this replay's figures "
		       "are not comparable: calls failed in it\n", report_num(f[F_PROG_GROWTH]));
		return;
	}
	char pct[32] = "", curve[200] = "";
	if (f[F_PEAK_ERR] != F_NA)
		snprintf(pct, sizeof pct, " (%+.1f%%)", (double)f[F_PEAK_ERR] / 1e4);
	if (f[F_TIME_ERR] != F_NA && f[F_CURVE_ERR] != F_NA)
		snprintf(curve, sizeof curve,
			 "; the two curves differ by %.1f%% of that peak on average over the "
			 "program's time (%.1f%% call by call)",
			 (double)f[F_TIME_ERR] / 1e4, (double)f[F_CURVE_ERR] / 1e4);
	else if (f[F_CURVE_ERR] != F_NA)
		snprintf(curve, sizeof curve,
			 "; the two curves differ by %.1f%% of that peak on average, call by call",
			 (double)f[F_CURVE_ERR] / 1e4);
	/* what the replay cannot do as the program did, where it bears on the figures: a clause
	   each */
	char why[300] = "";
	size_t n = 0;
	if (f[F_UNKNOWN_KB] > 0 && f[F_UNKNOWN_KB] >= f[F_PROG_GROWTH] / 100)
		n += (size_t)snprintf(why + n, sizeof why - n,
				      "; %s MiB of large blocks written whole, the trace not "
				      "saying what of them was resident", report_num(
				      (f[F_UNKNOWN_KB] + 512) / 1024));
	if (!paced && f[F_TIME_ERR] != F_NA && f[F_FID_APPLIES] && n < sizeof why)
		snprintf(why + n, sizeof why - n, "; as fast as it goes, a replay does not "
			 "keep the program's time between its calls (--pace does)");
	if (f[F_FID_APPLIES])
		fprintf(out, "Program as traced: %s Kb peak anonymous RSS growth; "
		       "this replay: %s Kb%s%s%s\n",
		       report_num(f[F_PROG_GROWTH]), report_num(f[F_REPLAY_GROWTH]), pct, curve,
		       why);
	else
		fprintf(out, "Program as traced (on %s): %s Kb peak anonymous RSS growth; what this "
		       "allocator would have used: %s Kb%s%s (not a fidelity figure: this "
		       "replay's allocator or settings are not the traced ones)%s\n",
		       traced_alloc && *traced_alloc ? traced_alloc : "an allocator not named",
		       report_num(f[F_PROG_GROWTH]), report_num(f[F_REPLAY_GROWTH]), pct, curve,
		       why);
}

int report_fidelity_cell(char *cell, size_t cap, int i, int64_t v)
{
	if (i < F_PROG_GROWTH)
		return 0;
	if (v == F_NA)
		snprintf(cell, cap, "-");
	else if (i == F_PROG_GROWTH)   /* the program's: the same in every column */
		snprintf(cell, cap, "%s", report_num(v));
	else if (is_fraction(i))
		snprintf(cell, cap, i == F_PEAK_ERR ? "%+.1f%%" : "%.1f%%", (double)v / 1e4);
	else
		return 0;
	return 1;
}
