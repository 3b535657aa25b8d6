/* trace_plot - self-contained SVG charts of traces, replay timelines and comparisons. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "input.h"
#include "lat_hist.h"
#include "order.h"
#include "svg.h"
#include "tool.h"
#include "u64map.h"
#include "wl_reader.h"

static const char usage_text[] =
	"Usage: trace_plot [OPTION]... INPUT...\n"
	"Write a self-contained SVG chart (no script, no external font; opens in any browser).\n"
	"INPUT is a trace, one or more `trace_run --log` timelines or `--latency` distributions, or\n"
	"`trace_run --compare --csv` output; the kind of chart follows from it unless --kind says\n"
	"otherwise:\n"
	"  live      (a trace) live requested bytes over time, and the allocation rate\n"
	"  sizes     (a trace) request sizes, power-of-two histogram\n"
	"  lifetime  (a trace) block lifetimes, power-of-two histogram\n"
	"  rss       (timelines) VmRSS and ideal RSS over time; several runs overlaid\n"
	"            (--vmsize adds a panel of VmSize, the address space); with a workload\n"
	"            among them, the program's anonymous RSS as traced beside the replays',\n"
	"            by calls (by the program's time when every replay was paced)\n"
	"  compare   (compare CSV) wall time, Max RSS and the 99th percentile of malloc and free\n"
	"            per allocator\n"
	"  latency   (`trace_run --latency`, `trace_stats --latency` files) each call class's time\n"
	"            against its percentile (50%, 90%, 99%, 99.9%, ...); several runs overlaid\n"
	"\n"
	"  -k, --kind=KIND      one of the above\n"
	"  -o, --output=FILE    the SVG (default: the first INPUT's name + .KIND.svg; - for stdout)\n"
	"  -t, --title=TEXT     the chart's title\n"
	"      --label=NAME     legend name of the next timeline or distribution (repeatable;\n"
	"                       default: file names, the allocator for distributions)\n"
	"  -W, --width=N        width in pixels (default 900; 300 at least)\n"
	"      --height=N       height in pixels (default 560; 300 at least)\n"
	"      --vmsize         rss: VmSize too, in a panel of its own\n"
	"  -p, --progress       show progress even when standard error is not a terminal (on a\n"
	"                       terminal it shows after a second)\n"
	"  -h, --help           show this help and exit\n"
	"  -V, --version        show the version and exit\n"
	"\n"
	"Exit status: 0 done; 1 an input is missing or malformed (the error names where);\n"
	"2 bad command line; 3 the output could not be written.\n";

static const char *const colors[] = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b" };
#define NBINS 2000
static int progress;   /* tool_progress's on: on a terminal, or 2 with -p */
#define NB 65

/* ---------------------------------------------------------------------------------------------
   From a trace: one ordered pass; memory is the live blocks and fixed bins
   ------------------------------------------------------------------------------------------- */

struct tracepass {
	uint64_t t0, t1;                   /* the time range, from a first quick pass */
	double tps;
	struct u64map size, born;          /* live block: address -> size, -> order point */
	uint64_t live;
	double lo[NBINS], hi[NBINS];        /* live bytes: each bin's lowest and highest */
	uint64_t allocs[NBINS];
	int seen[NBINS];
	uint64_t size_n[NB], life_n[NB];
};

static int bucket(uint64_t v)
{
	return v == 0 ? 0 : 64 - __builtin_clzll(v);
}

static int bin_of(const struct tracepass *p, uint64_t t)
{
	if (t <= p->t0)
		return 0;
	uint64_t b = (t - p->t0) * (uint64_t)(NBINS - 1) / (p->t1 > p->t0 ? p->t1 - p->t0 : 1);
	return b >= NBINS ? NBINS - 1 : (int)b;
}

static void note(struct tracepass *p, uint64_t t)
{
	int b = bin_of(p, t);
	double v = (double)p->live;
	if (!p->seen[b] || v < p->lo[b])
		p->lo[b] = v;
	if (!p->seen[b] || v > p->hi[b])
		p->hi[b] = v;
	p->seen[b] = 1;
}

static void gone(struct tracepass *p, uint64_t a, uint64_t t)
{
	uint64_t sz, born;
	if (a && u64map_take(&p->size, a, &sz)) {
		p->live -= sz;
		if (u64map_take(&p->born, a, &born))
			p->life_n[bucket((uint64_t)((double)(t > born ? t - born : 0) * 1e9 / p->tps))]++;
	}
}

static int arrived(struct tracepass *p, uint64_t a, uint64_t bytes, uint64_t t)
{
	uint64_t old;
	int had = u64map_swap(&p->size, a, bytes, &old);
	if (had < 0 || u64map_put(&p->born, a, t) < 0)
		return -1;
	if (had)
		p->live -= old;
	p->live += bytes;
	p->size_n[bucket(bytes)]++;
	p->allocs[bin_of(p, t)]++;
	return 0;
}

static int on_event(struct tracepass *p, const struct order_ev *e)
{
	const struct mtrace_record *r = e->rec;
	uint64_t bytes = mtrace_record_bytes(r);
	if (r->call - 1u >= MTRACE_CALL_LAST_API)
		return 0;   /* a mapping call or a memory sample: not requested bytes */
	if (e->kind == ORDER_RELEASE) {   /* a realloc's first half (a failed one is ORDER_CALL) */
		gone(p, r->ptr, e->t);
		note(p, e->t);
		return 0;
	}
	if (r->call == MTRACE_CALL_FREE)
		gone(p, r->ptr, e->t);
	else if (!(r->flags & MTRACE_RF_FAILED) && r->result && arrived(p, r->result, bytes, e->t) < 0)
		return -1;
	note(p, e->t);
	return 0;
}

/* order.h callback */
static int on_events(void *ctx, const struct order_ev *ev, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (on_event(ctx, &ev[i]) < 0)
			return -1;
	return 0;
}

static void trace_pass(const char *path, struct tracepass *p, char *exe, size_t cap)
{
	memset(p, 0, sizeof *p);
	struct trace_reader r;
	struct mtrace_record rec;
	int k;
	if (trace_open(&r, path) < 0)
		tool_die(EXIT_BADFILE, "%s", r.err);
	p->t0 = UINT64_MAX;
	struct tool_progress pr;
	char what[4300];
	snprintf(what, sizeof what, "%s, time range", r.name);
	trace_progress_start(&pr, progress, &r);
	pr.name = what;
	r.progress = tool_progress;
	r.progress_arg = &pr;
	while ((k = trace_next(&r, &rec, NULL)) > 0) {   /* the time range first */
		uint64_t end = rec.ts + rec.duration;
		if (rec.ts < p->t0)
			p->t0 = rec.ts;
		if (end > p->t1)
			p->t1 = end;
	}
	tool_progress_end(&pr);
	if (k < 0)
		tool_die(EXIT_BADFILE, "%s", r.err);
	if (p->t0 == UINT64_MAX)
		p->t0 = p->t1 = 0;
	trace_close(&r);
	if (trace_open(&r, path) < 0)
		tool_die(EXIT_BADFILE, "%s", r.err);
	p->tps = (double)r.hdr.ticks_per_sec;
	const char *base = strrchr(r.exe, '/') ? strrchr(r.exe, '/') + 1 : r.exe;
	size_t bl = strnlen(base, cap - 1);
	memcpy(exe, base, bl);
	exe[bl] = 0;
	struct order o;
	trace_progress_start(&pr, progress, &r);
	r.progress = tool_progress;
	r.progress_arg = &pr;
	if (order_begin(&o, on_events, NULL, p) < 0 || order_feed(&o, &r) < 0 || order_end(&o) < 0) {
		tool_progress_end(&pr);
		tool_die(EXIT_BADFILE, "%s", o.err[0] ? o.err : "out of memory");
	}
	tool_progress_end(&pr);
	order_free(&o);
	trace_close(&r);
	u64map_free(&p->size);
	u64map_free(&p->born);
}

static void plot_live(struct svg *s, const struct tracepass *p, int h)
{
	static double x[2 * NBINS], y[2 * NBINS], rx[NBINS], ry[NBINS];
	size_t n = 0;
	double span = (double)(p->t1 - p->t0) / p->tps, ymax = 0, rmax = 0, binw = span / NBINS;
	for (int b = 0; b < NBINS; b++) {
		double t = span * b / (NBINS - 1);
		rx[b] = t;
		ry[b] = binw > 0 ? (double)p->allocs[b] / binw : 0;
		if (ry[b] > rmax)
			rmax = ry[b];
		if (!p->seen[b])
			continue;
		x[n] = t, y[n++] = p->lo[b];
		x[n] = t, y[n++] = p->hi[b];
		if (p->hi[b] > ymax)
			ymax = p->hi[b];
	}
	double top = SVG_TOP, ph = (h - top) * 0.62;
	s->headings = 1;   /* stacked panels: their titles the same way */
	svg_panel(s, top, ph, 0, span, SVG_SECONDS, NULL, 0, ymax * 1.05, SVG_BYTES, "live requested bytes");
	svg_line(s, x, y, n, colors[0]);
	svg_panel(s, top + ph, h - top - ph, 0, span, SVG_SECONDS, "time since the trace started", 0, rmax * 1.05,
		  SVG_RATE, "allocations per second");
	svg_line(s, rx, ry, NBINS, colors[1]);
}

/* A power-of-two histogram: a bar per bucket from the first used to the last, named by its
   lower bound */
static void plot_hist(struct svg *s, const uint64_t *n, const char *what, enum svg_unit xu, const char *counted,
		      int h)
{
	int lo = NB, hi = -1;
	for (int k = 0; k < NB; k++)
		if (n[k]) {
			if (k < lo) lo = k;
			hi = k;
		}
	if (hi < 0)
		lo = hi = 0;
	static char labels[NB][40];
	const char *names[NB];
	double v[NB];
	size_t m = 0;
	for (int k = lo; k <= hi; k++) {
		char a[32];
		double from = k == 0 ? 0 : ldexp(1, k - 1);
		if (xu == SVG_SECONDS)
			from /= 1e9;   /* lifetimes are counted in nanoseconds */
		snprintf(labels[m], sizeof labels[m], "%s%s", k == 0 ? "" : "\xe2\x89\xa5", svg_fmt(a, from, xu));
		names[m] = labels[m];
		v[m] = (double)n[k];
		m++;
	}
	svg_bar_panel(s, SVG_TOP, h - SVG_TOP, names, v, m, colors[0], SVG_COUNT, what, counted, 1, 1);
}

/* ---------------------------------------------------------------------------------------------
   From trace_run --log timelines
   ------------------------------------------------------------------------------------------- */

struct series {
	double *t, *rss, *vsz, *ideal;
	double *calls, *anon, *prog_t;   /* later columns (calls, anon_kb, program_ms): NULL if absent */
	int col[3];                      /* their places in a line, -1 absent */
	size_t n, cap;
};
#define EXTRA_COLS 8   /* a timeline's columns read at most */

/* A number trace_run writes: decimal, not negative, below 10^18 (kilobytes or microseconds:
   scaled, it stays finite); *end is left after it.  0 or -1 (strtod alone would take "nan",
   "inf", "-5" and "1e308", which draw nothing or off the chart). */
static int parse_amount(const char *s, const char **end, double *out)
{
	char *e;
	errno = 0;
	double v = strtod(s, &e);
	if (e == s || errno == ERANGE || !(v >= 0 && v < 1e18) || strchr(" \t", *s) || *s == '+' || *s == '-')
		return -1;
	*end = e;
	*out = v;
	return 0;
}

/* A text input (timeline, CSV, distribution), or exit 1 naming it */
static FILE *open_text(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		tool_die(EXIT_BADFILE, "%s: %s", path, strerror(errno));
	return f;
}

/* Read the next line of f into line[cap] without its newline: 1, 0 at the end, or exit on a
   line too long (a text file of ours never has one). */
static int next_line(FILE *f, char *line, size_t cap, const char *path, unsigned long no)
{
	if (!fgets(line, (int)cap, f))
		return 0;
	size_t len = strlen(line);
	if (len && line[len - 1] == '\n')
		line[--len] = 0;
	else if (len + 1 == cap)
		tool_die(EXIT_BADFILE, "%s: line %lu: longer than %zu bytes", path, no, cap - 2);
	return 1;
}

/* The header's later columns this reader knows, by name (calls, anon_kb, program_ms) */
static void timeline_columns(char *head, struct series *s)
{
	static const char *const names[3] = { "calls", "anon_kb", "program_ms" };
	s->col[0] = s->col[1] = s->col[2] = -1;
	int k = 0;
	for (char *name = strtok(head, "\t"); name && k < EXTRA_COLS; name = strtok(NULL, "\t"), k++)
		for (int c = 0; c < 3; c++)
			if (k >= 4 && !strcmp(name, names[c]))
				s->col[c] = k;
}

static void read_timeline(const char *path, struct series *s)
{
	FILE *f = open_text(path);
	char line[1024];
	unsigned long no = 0;
	int ncol = 4;   /* the columns a line must have: the first four, and the later ones known */
	static const char *const words[EXTRA_COLS - 3] = { "four", "five", "six", "seven", "eight" };
	memset(s, 0, sizeof *s);
	while (next_line(f, line, sizeof line, path, no + 1)) {
		no++;
		if (no == 1) {
			if (strncmp(line, "time_ms\tvmrss_kb\tvmsize_kb\tideal_kb", 35) != 0)
				tool_die(EXIT_BADFILE, "%s: line 1: not a trace_run --log timeline", path);
			timeline_columns(line, s);
			for (int c = 0; c < 3; c++)
				if (s->col[c] >= ncol)
					ncol = s->col[c] + 1;
			continue;
		}
		/* tab-separated amounts: the first four, then the known later ones; columns a later
		   trace_run may add after them are left */
		double v[EXTRA_COLS];
		const char *p = line;
		for (int k = 0; k < ncol; k++) {
			if ((k && *p++ != '\t') || parse_amount(p, &p, &v[k]) < 0)
				tool_die(EXIT_BADFILE, "%s: line %lu: not %s numbers (time, VmRSS, VmSize, "
					  "ideal RSS%s: each a number from 0 to 10^18)", path, no, words[ncol - 4],
					  ncol > 4 ? ", and the later columns its header names" : "");
		}
		if (*p != 0 && *p != '\t')
			tool_die(EXIT_BADFILE, "%s: line %lu: not %s numbers", path, no, words[ncol - 4]);
		double t = v[0], a = v[1], b = v[2], c = v[3];
		if (s->n == s->cap) {
			s->cap = s->cap ? s->cap * 2 : 1024;
			s->t = realloc(s->t, s->cap * sizeof *s->t);
			s->rss = realloc(s->rss, s->cap * sizeof *s->rss);
			s->vsz = realloc(s->vsz, s->cap * sizeof *s->vsz);
			s->ideal = realloc(s->ideal, s->cap * sizeof *s->ideal);
			s->calls = realloc(s->calls, s->cap * sizeof *s->calls);
			s->anon = realloc(s->anon, s->cap * sizeof *s->anon);
			s->prog_t = realloc(s->prog_t, s->cap * sizeof *s->prog_t);
			if (!s->t || !s->rss || !s->vsz || !s->ideal || !s->calls || !s->anon || !s->prog_t)
				tool_die(EXIT_SYSTEM, "out of memory");
		}
		s->t[s->n] = t / 1e3, s->rss[s->n] = a * 1024, s->vsz[s->n] = b * 1024, s->ideal[s->n] = c * 1024;
		s->calls[s->n] = s->col[0] >= 0 ? v[s->col[0]] : 0;
		s->anon[s->n] = s->col[1] >= 0 ? v[s->col[1]] * 1024 : 0;
		s->prog_t[s->n] = s->col[2] >= 0 ? v[s->col[2]] / 1e3 : 0;
		s->n++;
	}
	fclose(f);
	if (s->n == 0)
		tool_die(EXIT_BADFILE, "%s: no samples", path);
}

/* ---------------------------------------------------------------------------------------------
   The program's curve beside the replays' (a workload holding its memory samples among the
   inputs): anonymous RSS above each one's start, by calls completed, or by the program's time
   when every replay was paced (its timeline's program_ms)
   ------------------------------------------------------------------------------------------- */

static void plot_rss_program(struct svg *sv, char **paths, int n, const char **labels, const struct wl_reader *w, int h)
{
	struct series *s = calloc((size_t)n, sizeof *s);
	int bytime = 1, bycalls = 1;
	for (int i = 0; i < n; i++) {
		read_timeline(paths[i], &s[i]);
		bytime &= s[i].col[2] >= 0 && s[i].col[1] >= 0;
		bycalls &= s[i].col[0] >= 0 && s[i].col[1] >= 0;
	}
	if (!bytime && !bycalls)
		tool_die(EXIT_USAGE, "%s: its timeline has no calls column (from an older trace_run): the program's "
			 "curve can be set beside replays by calls, or by time for paced ones", paths[0]);
	uint64_t m = w->h.nsamples;
	double *px = calloc(m ? m : 1, sizeof *px), *py = calloc(m ? m : 1, sizeof *py), xmax = 0, ymax = 0;
	if (!px || !py)
		tool_die(EXIT_SYSTEM, "out of memory");
	struct mtrace_wl_sample first = { 0 }, x;
	for (uint64_t i = 0; i < m; i++) {
		wl_sample(w, i, &x);
		if (i == 0)
			first = x;
		px[i] = bytime ? (double)x.time_us / 1e6 : (double)x.calls;
		py[i] = (double)x.anon - (double)first.anon;
	}
	for (int i = 0; i < n; i++) {   /* the replays' likewise, in place */
		double base = s[i].anon[0];
		for (size_t j = 0; j < s[i].n; j++) {
			s[i].t[j] = bytime ? s[i].prog_t[j] : s[i].calls[j];
			s[i].anon[j] -= base;
		}
	}
	for (int i = 0; i <= n; i++) {
		const double *xs = i < n ? s[i].t : px, *ys = i < n ? s[i].anon : py;
		for (size_t j = 0; j < (i < n ? s[i].n : m); j++) {
			if (xs[j] > xmax) xmax = xs[j];
			if (ys[j] > ymax) ymax = ys[j];
		}
	}
	if (xmax <= 0)
		xmax = 1;
	if (ymax <= 0)
		ymax = 1;
	const char **names = calloc((size_t)n + 1, sizeof *names), **cols = calloc((size_t)n + 1, sizeof *cols);
	char (*lab)[300] = calloc((size_t)n, sizeof *lab);
	if (!names || !cols || !lab)
		tool_die(EXIT_SYSTEM, "out of memory");
	names[0] = "the program, as traced";
	cols[0] = "#000";
	for (int i = 0; i < n; i++) {
		const char *name = labels[i] ? labels[i] : (strrchr(paths[i], '/') ? strrchr(paths[i], '/') + 1 : paths[i]);
		snprintf(lab[i], sizeof lab[i], "replay: %s", name);
		names[i + 1] = lab[i];
		cols[i + 1] = colors[i % 6];
	}
	double top = SVG_TOP + svg_legend(sv, SVG_TOP, names, cols, (size_t)n + 1);
	svg_panel(sv, top, h - top, 0, xmax, bytime ? SVG_SECONDS : SVG_COUNT, bytime ?
		  "the program's time (paced replays: where they were in it)" : "calls completed (all threads)",
		  0, ymax * 1.05, SVG_BYTES, "anonymous RSS above the start");
	svg_line(sv, px, py, m, "#000");
	for (int i = 0; i < n; i++)
		svg_line(sv, s[i].t, s[i].anon, s[i].n, colors[i % 6]);
	free(lab);
	free(cols);
	free(names);
	free(px);
	free(py);
}



/* VmRSS and ideal RSS of each run over time; VmSize (the address space, often a hundred times
   the RSS: it would flatten the others) only when asked, in a panel of its own below */
static void plot_rss(struct svg *sv, char **paths, int n, const char **labels, int h, int vmsize)
{
	struct series *s = calloc((size_t)n, sizeof *s);
	const char **names = calloc((size_t)n + 1, sizeof *names), **cols = calloc((size_t)n + 1, sizeof *cols);
	char (*lab)[300] = calloc((size_t)n, sizeof *lab);
	if (!s || !names || !cols || !lab)
		tool_die(EXIT_SYSTEM, "out of memory");
	double tmax = 0, ymax = 0, vmax = 0;
	for (int i = 0; i < n; i++) {
		read_timeline(paths[i], &s[i]);
		for (size_t j = 0; j < s[i].n; j++) {
			if (s[i].t[j] > tmax) tmax = s[i].t[j];
			if (s[i].rss[j] > ymax) ymax = s[i].rss[j];
			if (s[i].ideal[j] > ymax) ymax = s[i].ideal[j];
			if (s[i].vsz[j] > vmax) vmax = s[i].vsz[j];
		}
		const char *name = labels[i] ? labels[i] : (strrchr(paths[i], '/') ? strrchr(paths[i], '/') + 1 : paths[i]);
		snprintf(lab[i], sizeof lab[i], n == 1 ? "VmRSS" : "VmRSS: %s", name);
		names[i] = lab[i];
		cols[i] = colors[i % 6];
	}
	names[n] = "ideal RSS (requested bytes live)";
	cols[n] = "#000";
	double top = SVG_TOP + svg_legend(sv, SVG_TOP, names, cols, (size_t)n + 1);
	double ph = vmsize ? (h - top) * 0.62 : h - top;
	sv->headings = vmsize;   /* stacked panels: their titles the same way */
	svg_panel(sv, top, ph, 0, tmax, SVG_SECONDS, vmsize ? NULL : "time since the replay started", 0, ymax * 1.05,
		  SVG_BYTES, "resident memory");
	for (int i = 0; i < n; i++)
		svg_line(sv, s[i].t, s[i].rss, s[i].n, colors[i % 6]);
	svg_line(sv, s[0].t, s[0].ideal, s[0].n, "#000");
	if (vmsize) {
		svg_panel(sv, top + ph, h - top - ph, 0, tmax, SVG_SECONDS, "time since the replay started", 0,
			  vmax * 1.05, SVG_BYTES, "VmSize");
		for (int i = 0; i < n; i++)
			svg_line(sv, s[i].t, s[i].vsz, s[i].n, colors[i % 6]);
	}
	free(lab);
	free(cols);
	free(names);
}

/* ---------------------------------------------------------------------------------------------
   From trace_run --compare --csv
   ------------------------------------------------------------------------------------------- */

static void plot_compare(struct svg *sv, const char *path, int h)
{
	FILE *f = open_text(path);
	char line[4096];
	int wall = -1, rss = -1, alloc = -1, p99[2] = { -1, -1 };   /* malloc's, free's: newer CSVs */
	unsigned long no = 0;
	static char names[32][128];
	const char *np[32];
	double w[32], r[32], lat[2][32];
	size_t n = 0;
	while (next_line(f, line, sizeof line, path, no + 1)) {
		no++;
		char *fields[128];   /* trace_run --csv: 56 columns */
		int nf = csv_split(line, fields, 128);   /* (a name may be quoted: it holds a comma) */
		if (nf && !strcmp(fields[0], "cycles")) {   /* a header line */
			for (int i = 0; i < nf; i++) {
				if (!strcmp(fields[i], "wall_usec")) wall = i;
				if (!strcmp(fields[i], "maxrss_growth_kb")) rss = i;   /* Max RSS, as trace_run means it */
				if (!strcmp(fields[i], "allocator")) alloc = i;
				if (!strcmp(fields[i], "malloc_p99_cycles")) p99[0] = i;
				if (!strcmp(fields[i], "free_p99_cycles")) p99[1] = i;
			}
			continue;
		}
		if (wall < 0 || rss < 0 || alloc < 0 || nf <= alloc || nf <= rss)
			tool_die(EXIT_BADFILE, "%s: line %lu: not trace_run --csv output", path, no);
		if (n == 32)
			tool_die(EXIT_BADFILE, "%s: line %lu: more than 32 allocators to draw", path, no);
		snprintf(names[n], sizeof names[n], "%s", fields[alloc]);
		np[n] = names[n];
		const char *e1, *e2;
		if (parse_amount(fields[wall], &e1, &w[n]) < 0 || *e1 ||
		    parse_amount(fields[rss], &e2, &r[n]) < 0 || *e2)
			tool_die(EXIT_BADFILE, "%s: line %lu: wall_usec and maxrss_growth_kb must be numbers "
				  "from 0 to 10^18", path, no);
		for (int k = 0; k < 2; k++) {
			const char *e3;
			lat[k][n] = 0;
			if (p99[k] >= 0 && (nf <= p99[k] || parse_amount(fields[p99[k]], &e3, &lat[k][n]) < 0 || *e3))
				tool_die(EXIT_BADFILE, "%s: line %lu: %s must be a number from 0 to 10^18", path, no,
					 k ? "free_p99_cycles" : "malloc_p99_cycles");
		}
		w[n] /= 1e6;
		r[n] *= 1024;
		n++;
	}
	fclose(f);
	if (n == 0)
		tool_die(EXIT_BADFILE, "%s: no result lines", path);
	/* and, from trace_run's percentiles (not in older CSVs, nor with --no-timing), the 99th of
	   malloc and free: the calls a program waits longest for */
	struct { const double *v; enum svg_unit u; const char *title, *color; } panel[4] = {
		{ w, SVG_SECONDS, "wall time", colors[0] }, { r, SVG_BYTES, "Max RSS", colors[1] },
	};
	int panels = 2;
	for (int k = 0; k < 2; k++)
		if (p99[k] >= 0)
			panel[panels++] = (typeof(panel[0])){ lat[k], SVG_COUNT, k ? "free p99 (cycles)" : "malloc p99 (cycles)",
							       colors[2 + k] };
	/* the allocators' names under every panel when they fit across; turned, under the last
	   alone, which gets the height they take (the bars stand one above the other) */
	double nh = svg_names_height(sv, np, n), top = SVG_TOP;
	sv->headings = 1;
	int every = nh <= 22;
	double ph = (h - SVG_TOP - (every ? 0 : nh - 8)) / panels;
	for (int k = 0; k < panels; k++) {
		int last = k == panels - 1;
		double height = ph + (last && !every ? nh - 8 : 0);
		svg_bar_panel(sv, top, height, np, panel[k].v, n, panel[k].color, panel[k].u, NULL, panel[k].title,
			      every || last, 0);
		top += height;
	}
}

/* ---------------------------------------------------------------------------------------------
   From trace_run --latency distributions
   ------------------------------------------------------------------------------------------- */

/* the panels, top to bottom */
static const int lat_order[LAT_CLASSES] = { LAT_MALLOC, LAT_FREE, LAT_REALLOC, LAT_CALLOC, LAT_MEMALIGN };

static void read_latency(const char *path, struct lat_table *d)
{
	FILE *f = open_text(path);
	char err[300];
	if (lat_read_tsv(f, d, err, sizeof err) < 0)
		tool_die(EXIT_BADFILE, "%s: %s", path, err);
	fclose(f);
}

/* The time at percentile x (in nines): the first row at or above that share of the calls. */
static double lat_at(const struct lat_table *d, int c, double x)
{
	double q = 1 - pow(10, -x);
	size_t i = 0;
	while (i + 1 < d->n[c] && d->share[c][i] < q - 1e-12)
		i++;
	return d->cycles[c][i];
}

/* A panel per call class present, each run a curve: the time under which a share of the calls
   finished, the share in nines (90%, 99%, 99.9%: the rarer calls to the right), both axes
   logarithmic.  Each curve goes as far right as its calls say anything about (10^k calls: k
   nines). */
static void plot_latency(struct svg *sv, char **paths, int n, const char **labels, int h)
{
	struct lat_table *d = calloc((size_t)n, sizeof *d);
	if (!d)
		tool_die(EXIT_SYSTEM, "out of memory");
	int present[LAT_CLASSES] = { 0 }, panels = 0;
	for (int i = 0; i < n; i++) {
		read_latency(paths[i], &d[i]);
		for (int c = 0; c < LAT_CLASSES; c++)
			present[c] |= d[i].n[c] > 0;
	}
	for (int c = 0; c < LAT_CLASSES; c++)
		panels += present[c];
	if (panels == 0)
		tool_die(EXIT_BADFILE, "%s: no call times in it", paths[0]);
	/* one percentile axis for every panel, as far as the most calls of a class reach */
	double xmax = 1;
	for (int i = 0; i < n; i++)
		for (int c = 0; c < LAT_CLASSES; c++)
			if (d[i].n[c] && log10(d[i].calls[c]) > xmax)
				xmax = log10(d[i].calls[c]) < 6 ? log10(d[i].calls[c]) : 6;
	/* the legend above the panels: a run's colour is the same in each */
	const char **names = calloc((size_t)n, sizeof *names), **cols = calloc((size_t)n, sizeof *cols);
	if (!names || !cols)
		tool_die(EXIT_SYSTEM, "out of memory");
	for (int i = 0; i < n; i++) {
		const char *slash = strrchr(paths[i], '/');
		names[i] = labels[i] ? labels[i] : d[i].name[0] ? d[i].name : slash ? slash + 1 : paths[i];
		cols[i] = colors[i % 6];
	}
	double top = SVG_TOP + svg_legend(sv, SVG_TOP, names, cols, (size_t)n);
	/* the percentile axis named once, under the last panel (it gets the room that takes) */
	double ph = (h - top - 18) / (double)panels;
	int drawn = 0;
	sv->headings = 1;
	enum { POINTS = 400 };
	static double xs[POINTS + 1], ys[POINTS + 1];
	for (int o = 0; o < LAT_CLASSES; o++) {
		int c = lat_order[o];
		if (!present[c])
			continue;
		double ylo = 1e300, yhi = 0;
		for (int i = 0; i < n; i++) {
			if (!d[i].n[c])
				continue;
			if (d[i].cycles[c][0] < ylo)
				ylo = d[i].cycles[c][0];
			if (d[i].cycles[c][d[i].n[c] - 1] > yhi)
				yhi = d[i].cycles[c][d[i].n[c] - 1];
		}
		double y0 = floor(log10(ylo > 1 ? ylo : 1)), y1 = ceil(log10(yhi > 1 ? yhi : 1));
		char ylabel[64];
		snprintf(ylabel, sizeof ylabel, "%s (cycles)", lat_class_names[c]);
		int last = ++drawn == panels;
		svg_panel(sv, top, ph + (last ? 18 : 0), 0, xmax, SVG_NINES,
			  last ? "share of the calls that took at most that long" : NULL, y0, y1 > y0 ? y1 : y0 + 1,
			  SVG_LOG10, ylabel);
		for (int i = 0; i < n; i++) {
			if (!d[i].n[c])
				continue;
			double reach = log10(d[i].calls[c]) < xmax ? log10(d[i].calls[c]) : xmax;
			for (int k = 0; k <= POINTS; k++) {
				xs[k] = reach * k / POINTS;
				double v = lat_at(&d[i], c, xs[k]);
				ys[k] = log10(v > 1 ? v : 1);
			}
			svg_line(sv, xs, ys, POINTS + 1, colors[i % 6]);
		}
		top += ph;
	}
	free(cols);
	free(names);
	free(d);
}

/* ---------------------------------------------------------------------------------------------
   main
   ------------------------------------------------------------------------------------------- */

/* What trace_plot reads: a trace, or one of the text files guess_kind knows (input_check_fn) */
static const char *plot_head_check(const unsigned char *b, size_t n)
{
	static const char *const heads[] = { "time_ms\t", "cycles,wall_usec", "# trace_run latency",
					     "# trace_stats latency" };
	for (size_t i = 0; i < sizeof heads / sizeof *heads; i++)
		if (n >= strlen(heads[i]) && !memcmp(b, heads[i], strlen(heads[i])))
			return NULL;
	const char *why = trace_head_check(b, n);
	return !why ? NULL : strncmp(why, "not ", 4) ? why :
	       "neither a trace, a trace_run --log timeline, a --compare --csv table nor a latency "
	       "distribution (bad magic)";
}

static const char *guess_kind(const char *path)
{
	char head[40] = { 0 };
	FILE *f = open_text(path);
	size_t n = fread(head, 1, sizeof head - 1, f);
	fclose(f);
	head[n] = 0;
	if (!strncmp(head, "time_ms\t", 8) || !strncmp(head, MTRACE_WL_MAGIC, MTRACE_WL_MAGIC_LEN))
		return "rss";
	if (!strncmp(head, "cycles,wall_usec", 16))
		return "compare";
	if (!strncmp(head, "# trace_run latency", 19) || !strncmp(head, "# trace_stats latency", 21))
		return "latency";
	return "live";
}

enum { OPT_VMSIZE = 256, OPT_LABEL, OPT_HEIGHT };

int main(int argc, char **argv)
{
	tool_set_name("trace_plot", argv);
	static const struct option longopts[] = {
		{ "kind", required_argument, 0, 'k' }, { "output", required_argument, 0, 'o' },
		{ "title", required_argument, 0, 't' }, { "label", required_argument, 0, OPT_LABEL },
		{ "width", required_argument, 0, 'W' }, { "height", required_argument, 0, OPT_HEIGHT },
		{ "progress", no_argument, 0, 'p' }, { "vmsize", no_argument, 0, OPT_VMSIZE },
		{ "help", no_argument, 0, 'h' }, { "version", no_argument, 0, 'V' }, { 0, 0, 0, 0 },
	};
	const char *kind = NULL, *out = NULL, *title = NULL, *labels[64] = { 0 };
	int nlabels = 0, c, vmsize = 0;
	uint64_t w = 900, h = 560;
	progress = isatty(2);
	while ((c = getopt_long(argc, argv, "k:o:t:W:phV", longopts, NULL)) != -1) {
		switch (c) {
		case 'k': kind = optarg; break;
		case 'o': out = optarg; break;
		case 't': title = optarg; break;
		case OPT_LABEL: if (nlabels < 64) labels[nlabels++] = optarg; break;
		case 'W': if (parse_u64(optarg, &w) < 0 || w < 300 || w > 10000) tool_die(EXIT_USAGE, "--width: 300 to 10000"); break;
		case OPT_HEIGHT: if (parse_u64(optarg, &h) < 0 || h < 300 || h > 10000) tool_die(EXIT_USAGE, "--height: 300 to 10000"); break;
		case 'p': progress = 2; break;
		case OPT_VMSIZE: vmsize = 1; break;
		case 'h': fputs(usage_text, stdout); return EXIT_OK;
		case 'V': tool_version();
		default: fputs("Try 'trace_plot --help'.\n", stderr); return EXIT_USAGE;
		}
	}
	if (optind == argc) {
		fputs("trace_plot: no input given\nTry 'trace_plot --help'.\n", stderr);
		return EXIT_USAGE;
	}
	/* a trace is read twice (its time range first): standard input or a pipe is copied to a
	   file, and the chart then goes to standard output unless -o says otherwise */
	int streams = 0;
	for (int i = optind; i < argc; i++)
		if (tool_input_is_stream(argv[i])) {
			if (streams++)
				tool_die(EXIT_USAGE, "%s: only one input may be standard input or a pipe",
					 tool_display_name(argv[i]));
			argv[i] = (char *)input_reopenable(argv[i], plot_head_check, 0, progress);
			if (!out)
				out = "-";
		}
	if (!kind)
		kind = guess_kind(argv[optind]);
	int ninputs = argc - optind;
	if (strcmp(kind, "live") && strcmp(kind, "sizes") && strcmp(kind, "lifetime") && strcmp(kind, "rss") &&
	    strcmp(kind, "compare") && strcmp(kind, "latency"))
		tool_die(EXIT_USAGE, "unknown --kind '%s' (live, sizes, lifetime, rss, compare, latency)", kind);
	if (vmsize && strcmp(kind, "rss"))
		tool_die(EXIT_USAGE, "--vmsize: only rss charts draw VmSize");
	if (strcmp(kind, "rss") && strcmp(kind, "latency") && ninputs != 1)
		tool_die(EXIT_USAGE, "--kind=%s takes one input (only rss and latency overlay several)", kind);
	char def[4200];
	if (!out) {
		snprintf(def, sizeof def, "%s.%s.svg", argv[optind], kind);
		out = def;
	}
	out = tool_check_output(out, argv + optind, ninputs, 0);
	/* "-", /dev/stdout, a FIFO: in place; a file: renamed into place when complete (a failed
	   run, tool_die exiting, leaves no half-written output) */
	struct output o;
	FILE *f;
	if (output_open(&o, out, 0) < 0 || !(f = output_stdio(&o)))
		tool_die(o.status, "%s", o.err);
	int in_place = !o.tmp[0];
	char exe[256] = "";
	/* rss: a workload among the timelines is the program, whose samples are drawn beside them */
	struct wl_reader program = { 0 };
	char *timelines[256];
	int ntimelines = 0;
	if (!strcmp(kind, "rss"))
		for (int i = optind; i < argc; i++) {
			char head[MTRACE_WL_MAGIC_LEN] = { 0 };
			FILE *in = open_text(argv[i]);
			size_t got = fread(head, 1, sizeof head, in);
			fclose(in);
			if (got < sizeof head || memcmp(head, MTRACE_WL_MAGIC, MTRACE_WL_MAGIC_LEN)) {
				if (ntimelines < 256)
					timelines[ntimelines++] = argv[i];
				continue;
			}
			if (program.map)
				tool_die(EXIT_USAGE, "%s: one workload (the program) at a time", argv[i]);
			if (wl_open(&program, argv[i]) < 0)
				tool_die(EXIT_BADFILE, "%s", program.err);
			if (!(program.h.flags & MTRACE_WL_HF_SAMPLES) || !program.h.nsamples)
				tool_die(EXIT_BADFILE, "%s: the workload holds no memory samples of the program (its trace "
					 "has none): nothing to draw beside the replays", argv[i]);
		}
	if (program.map && !ntimelines)
		tool_die(EXIT_USAGE, "the program's curve goes beside replays: give their trace_run --log timelines too");
	if (program.map) {   /* the chart's title names it */
		const char *slash = strrchr(program.h.program, '/');
		snprintf(exe, sizeof exe, "%s", slash ? slash + 1 : program.h.program);
	}
	/* read (and fail) before writing anything */
	struct tracepass *tp = NULL;
	char t[600];
	if (!strcmp(kind, "live") || !strcmp(kind, "sizes") || !strcmp(kind, "lifetime")) {
		tp = malloc(sizeof *tp);
		if (!tp)
			tool_die(EXIT_SYSTEM, "out of memory");
		trace_pass(argv[optind], tp, exe, sizeof exe);
	}
	if (!title) {
		const char *what = !strcmp(kind, "live") ? "live requested bytes and allocation rate" :
				   !strcmp(kind, "sizes") ? "request sizes" : !strcmp(kind, "lifetime") ? "block lifetimes" :
				   !strcmp(kind, "rss") ? (program.map ? "the program's memory beside its replays'" : "RSS over time")
				   : !strcmp(kind, "latency") ?
				   "call times, percentiles" : "allocators compared";
		snprintf(t, sizeof t, "%s%s%s", exe[0] ? exe : "", exe[0] ? ": " : "", what);
		title = t;
	}
	struct svg s;
	svg_begin(&s, f, (int)w, (int)h, title);
	if (!strcmp(kind, "live"))
		plot_live(&s, tp, (int)h);
	else if (!strcmp(kind, "sizes"))
		plot_hist(&s, tp->size_n, "requested size", SVG_BYTES, "allocations (count)", (int)h);
	else if (!strcmp(kind, "lifetime"))
		plot_hist(&s, tp->life_n, "lifetime", SVG_SECONDS, "blocks freed (count)", (int)h);
	else if (!strcmp(kind, "rss") && program.map)
		plot_rss_program(&s, timelines, ntimelines, labels, &program, (int)h);
	else if (!strcmp(kind, "rss"))
		plot_rss(&s, argv + optind, ninputs, labels, (int)h, vmsize);
	else if (!strcmp(kind, "latency"))
		plot_latency(&s, argv + optind, ninputs, labels, (int)h);
	else
		plot_compare(&s, argv[optind], (int)h);
	svg_end(&s);
	if (output_commit(&o) < 0)
		tool_die(EXIT_SYSTEM, "%s", o.err);
	if (!in_place)
		fprintf(stderr, "trace_plot: wrote %s\n", out);
	free(tp);
	return EXIT_OK;
}
