/* plot_latency.c - trace_plot's latency chart: each call class's time against its
 * percentile, from trace_run --latency and trace_stats --latency distributions. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lat_hist.h"
#include "plot.h"
#include "tool.h"

/* ---------------------------------------------------------------------------------------------
   From trace_run --latency distributions
   ------------------------------------------------------------------------------------------- */

/* the panels, top to bottom */
static const int lat_order[LAT_CLASSES] = { LAT_MALLOC, LAT_FREE, LAT_REALLOC, LAT_CALLOC,
					    LAT_MEMALIGN };

static void read_latency(const char *path, struct lat_table *d)
{
	FILE *f = plot_open_text(path);
	struct tool_err err;
	if (lat_read_tsv(f, d, &err) < 0)
		tool_die(EXIT_BADFILE, "%s: %s", path, err.msg);
	fclose(f);
}

/* The time at percentile x (in nines): the first row at or above that share of the calls. */
static double lat_at(const struct lat_table *d, int c, double x)
{
	double q = 1 - pow(10, -x);
	size_t i = 0;
	while (i + 1 < d->n[c] && d->share[c][i] < q - 1e-12)
		i++;
	return d->time[c][i];
}

/* A panel per call class present, each run a curve: the time under which a share of the calls
   finished, the share in nines (90%, 99%, 99.9%: the rarer calls to the right), both axes
   logarithmic.  Each curve goes as far right as its calls say anything about (10^k calls: k
   nines). */
void plot_latency(struct svg *sv, char **paths, int n, const char **labels, int h)
{
	struct lat_table *d = calloc((size_t)n, sizeof *d);
	if (!d)
		tool_die(EXIT_SYSTEM, "out of memory");
	int present[LAT_CLASSES] = { 0 }, panels = 0;
	for (int i = 0; i < n; i++) {
		read_latency(paths[i], &d[i]);
		for (int c = 0; c < LAT_CLASSES; c++)
			present[c] |= d[i].n[c] > 0;
		if (strcmp(d[i].unit, d[0].unit))   /* one axis, one unit */
			tool_die(EXIT_BADFILE, "%s counts call times in %s, %s in %s: a chart shows "
				 "one unit (times measured by one timer)", paths[0], d[0].unit,
				 paths[i], d[i].unit);
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
	const char **names = calloc((size_t)n, sizeof *names),
		   **cols = calloc((size_t)n, sizeof *cols);
	if (!names || !cols)
		tool_die(EXIT_SYSTEM, "out of memory");
	for (int i = 0; i < n; i++) {
		const char *slash = strrchr(paths[i], '/');
		names[i] = labels[i]      ? labels[i]
			   : d[i].name[0] ? d[i].name
			   : slash        ? slash + 1
					  : paths[i];
		cols[i] = svg_colors[i % SVG_NCOLORS];
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
			if (d[i].time[c][0] < ylo)
				ylo = d[i].time[c][0];
			if (d[i].time[c][d[i].n[c] - 1] > yhi)
				yhi = d[i].time[c][d[i].n[c] - 1];
		}
		double y0 = floor(log10(ylo > 1 ? ylo : 1)), y1 = ceil(log10(yhi > 1 ? yhi : 1));
		char ylabel[64];
		snprintf(ylabel, sizeof ylabel, "%s (%s)", lat_class_names[c], d[0].unit);
		int last = ++drawn == panels;
		svg_panel(sv, top, ph + (last ? 18 : 0), 0, xmax, SVG_NINES,
			  last ? "share of the calls that took at most that long" : NULL, y0,
			  y1 > y0 ? y1 : y0 + 1, SVG_LOG10, ylabel);
		for (int i = 0; i < n; i++) {
			if (!d[i].n[c])
				continue;
			double reach = log10(d[i].calls[c]) < xmax ? log10(d[i].calls[c]) : xmax;
			for (int k = 0; k <= POINTS; k++) {
				xs[k] = reach * k / POINTS;
				double v = lat_at(&d[i], c, xs[k]);
				ys[k] = log10(v > 1 ? v : 1);
			}
			svg_line(sv, xs, ys, POINTS + 1, svg_colors[i % SVG_NCOLORS]);
		}
		top += ph;
	}
	free(cols);
	free(names);
	free(d);
}
