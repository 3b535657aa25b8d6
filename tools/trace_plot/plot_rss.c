/* plot_rss.c - trace_plot's rss charts: VmRSS and ideal RSS of replays over time, and the
 * program's own memory (a workload's samples) beside its replays'. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "plot.h"
#include "tool.h"

/* A run's name in a legend: the one given (--label), the one its timeline names (the allocator,
   as --compare's table and the latency chart name it), or its file's */
static const char *run_name(const char *label, const struct series *s, const char *path)
{
	const char *slash = strrchr(path, '/');
	return label ? label : s->name[0] ? s->name : slash ? slash + 1 : path;
}

/* ---------------------------------------------------------------------------------------------
   The program's curve beside the replays' (a workload holding its memory samples among the
   inputs): anonymous RSS above each one's start, by the program's time when every timeline
   says where its replay was in it (program_ms), else by calls completed
   ------------------------------------------------------------------------------------------- */

void plot_rss_program(struct svg *sv, char **paths, int n, const char **labels,
		      const struct wl_reader *w, int h)
{
	struct series *s = calloc((size_t)n, sizeof *s);
	int bytime = 1, bycalls = 1;
	for (int i = 0; i < n; i++) {
		plot_read_timeline(paths[i], &s[i]);
		bytime &= s[i].col[2] >= 0 && s[i].col[1] >= 0;
		bycalls &= s[i].col[0] >= 0 && s[i].col[1] >= 0;
	}
	if (!bytime && !bycalls)
		tool_die(EXIT_USAGE,
			 "%s: its timeline has no calls column (from an older trace_run): "
			 "the program's curve can be set beside replays "
			 "by calls, or by time for paced ones",
			 paths[0]);
	uint64_t m = w->h.nsamples;
	double *px = calloc(m ? m : 1, sizeof *px), *py = calloc(m ? m : 1, sizeof *py);
	double xmax = 0, ymax = 0;
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
	const char **names = calloc((size_t)n + 1, sizeof *names),
		   **cols = calloc((size_t)n + 1, sizeof *cols);
	char (*lab)[300] = calloc((size_t)n, sizeof *lab);
	if (!names || !cols || !lab)
		tool_die(EXIT_SYSTEM, "out of memory");
	names[0] = "the program, as traced";
	cols[0] = "#000";
	for (int i = 0; i < n; i++) {
		snprintf(lab[i], sizeof lab[i], "replay: %s", run_name(labels[i], &s[i], paths[i]));
		names[i + 1] = lab[i];
		cols[i + 1] = svg_colors[i % SVG_NCOLORS];
	}
	double top = SVG_TOP + svg_legend(sv, SVG_TOP, names, cols, (size_t)n + 1);
	svg_panel(sv, top, h - top, 0, xmax, bytime ? SVG_SECONDS : SVG_COUNT,
		  bytime ? "the program's time (replays: where they were in it)"
			 : "calls completed (all threads)",
		  0, ymax * 1.05, SVG_BYTES, "anonymous RSS above the start");
	svg_line(sv, px, py, m, "#000");
	for (int i = 0; i < n; i++)
		svg_line(sv, s[i].t, s[i].anon, s[i].n, svg_colors[i % SVG_NCOLORS]);
	free(lab);
	free(cols);
	free(names);
	free(px);
	free(py);
}



/* Each run's VmRSS over time as the summary's figures are: its growth above the timeline's
   first row (the process before the first call: the harness's own few MiB are not the
   allocator's), beside ideal RSS; VmSize (the address space, often a hundred times the RSS:
   it would flatten the others) only when asked, in a panel of its own below, as it is */
void plot_rss(struct svg *sv, char **paths, int n, const char **labels, int h, int vmsize)
{
	struct series *s = calloc((size_t)n, sizeof *s);
	const char **names = calloc((size_t)n + 1, sizeof *names),
		   **cols = calloc((size_t)n + 1, sizeof *cols);
	char (*lab)[300] = calloc((size_t)n, sizeof *lab);
	if (!s || !names || !cols || !lab)
		tool_die(EXIT_SYSTEM, "out of memory");
	double tmax = 0, ymax = 0, vmax = 0;
	for (int i = 0; i < n; i++) {
		plot_read_timeline(paths[i], &s[i]);
		double base = s[i].rss[0];
		for (size_t j = 0; j < s[i].n; j++) {
			s[i].rss[j] -= base;
			if (s[i].t[j] > tmax) tmax = s[i].t[j];
			if (s[i].rss[j] > ymax) ymax = s[i].rss[j];
			if (s[i].ideal[j] > ymax) ymax = s[i].ideal[j];
			if (s[i].vsz[j] > vmax) vmax = s[i].vsz[j];
		}
		snprintf(lab[i], sizeof lab[i], "VmRSS growth: %s",
			 run_name(labels[i], &s[i], paths[i]));
		names[i] = lab[i];
		cols[i] = svg_colors[i % SVG_NCOLORS];
	}
	names[n] = "ideal RSS (requested bytes live)";
	cols[n] = "#000";
	double top = SVG_TOP + svg_legend(sv, SVG_TOP, names, cols, (size_t)n + 1);
	double ph = vmsize ? (h - top) * 0.62 : h - top;
	sv->headings = vmsize;   /* stacked panels: their titles the same way */
	svg_panel(sv, top, ph, 0, tmax, SVG_SECONDS,
		  vmsize ? NULL : "time since the replay started", 0, ymax * 1.05, SVG_BYTES,
		  "resident memory above the start");
	for (int i = 0; i < n; i++)
		svg_line(sv, s[i].t, s[i].rss, s[i].n, svg_colors[i % SVG_NCOLORS]);
	svg_line(sv, s[0].t, s[0].ideal, s[0].n, "#000");
	if (vmsize) {
		svg_panel(sv, top + ph, h - top - ph, 0, tmax, SVG_SECONDS,
			  "time since the replay started", 0, vmax * 1.05, SVG_BYTES, "VmSize");
		for (int i = 0; i < n; i++)
			svg_line(sv, s[i].t, s[i].vsz, s[i].n, svg_colors[i % SVG_NCOLORS]);
	}
	free(lab);
	free(cols);
	free(names);
}
