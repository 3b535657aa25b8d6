/* plot_compare.c - trace_plot's compare chart: wall time, Max RSS and the 99th percentiles
 * per allocator, from trace_run --compare --csv. */
#define _GNU_SOURCE
#include <string.h>
#include "plot.h"
#include "tool.h"

/* ---------------------------------------------------------------------------------------------
   From trace_run --compare --csv
   ------------------------------------------------------------------------------------------- */

void plot_compare(struct svg *sv, const char *path, int h)
{
	FILE *f = plot_open_text(path);
	char line[4096];
	/* p99: malloc's, free's: newer CSVs */
	int wall = -1, rss = -1, alloc = -1, p99[2] = { -1, -1 }, unit = -1;
	char unit_name[16] = "cycles";   /* what the percentiles count (older CSVs: cycles) */
	unsigned long no = 0;
	static char names[32][128];
	const char *np[32];
	double w[32], r[32], lat[2][32];
	size_t n = 0;
	while (plot_next_line(f, line, sizeof line, path, no + 1)) {
		no++;
		char *fields[128];   /* trace_run --csv: 56 columns */
		/* (a name may be quoted: it holds a comma) */
		int nf = csv_split(line, fields, 128);
		if (nf && !strcmp(fields[0], "cycles")) {   /* a header line */
			for (int i = 0; i < nf; i++) {
				if (!strcmp(fields[i], "wall_usec")) wall = i;
				/* Max RSS, as trace_run means it */
				if (!strcmp(fields[i], "maxrss_growth_kb")) rss = i;
				if (!strcmp(fields[i], "allocator")) alloc = i;
				if (!strcmp(fields[i], "malloc_p99_cycles")) p99[0] = i;
				if (!strcmp(fields[i], "free_p99_cycles")) p99[1] = i;
				if (!strcmp(fields[i], "timer_unit")) unit = i;
			}
			continue;
		}
		if (wall < 0 || rss < 0 || alloc < 0 || nf <= alloc || nf <= rss)
			tool_die(EXIT_BADFILE, "%s: line %lu: not trace_run --csv output", path,
				 no);
		if (n == 32)
			tool_die(EXIT_BADFILE, "%s: line %lu: more than 32 allocators to draw",
				 path, no);
		snprintf(names[n], sizeof names[n], "%s", fields[alloc]);
		if (unit >= 0 && nf > unit) {
			if (strcmp(fields[unit], "cycles") && strcmp(fields[unit], "ns") &&
			    strcmp(fields[unit], "ticks"))
				tool_die(EXIT_BADFILE, "%s: line %lu: timer_unit is cycles, ns or "
					 "ticks, not '%.20s'", path, no, fields[unit]);
			snprintf(unit_name, sizeof unit_name, "%s", fields[unit]);
		}
		np[n] = names[n];
		const char *e1, *e2;
		if (plot_amount(fields[wall], &e1, &w[n]) < 0 || *e1 ||
		    plot_amount(fields[rss], &e2, &r[n]) < 0 || *e2)
			tool_die(EXIT_BADFILE,
				 "%s: line %lu: wall_usec and maxrss_growth_kb must be numbers "
				 "from 0 to 10^18",
				 path, no);
		for (int k = 0; k < 2; k++) {
			const char *e3;
			lat[k][n] = 0;
			if (p99[k] >= 0 &&
			    (nf <= p99[k] || plot_amount(fields[p99[k]], &e3, &lat[k][n]) < 0 ||
			     *e3))
				tool_die(EXIT_BADFILE,
					 "%s: line %lu: %s must be a number from 0 to 10^18", path,
					 no, k ? "free_p99_cycles" : "malloc_p99_cycles");
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
		{ w, SVG_SECONDS, "wall time", svg_colors[0] },
		{ r, SVG_BYTES, "Max RSS", svg_colors[1] },
	};
	int panels = 2;
	static char titles[2][48];
	for (int k = 0; k < 2; k++)
		if (p99[k] >= 0) {
			snprintf(titles[k], sizeof titles[k], "%s p99 (%s)", k ? "free" : "malloc",
				 unit_name);
			panel[panels++] = (typeof(panel[0])){ lat[k], SVG_COUNT, titles[k],
							      svg_colors[2 + k] };
		}
	/* the allocators' names under every panel when they fit across; turned, under the last
	   alone, which gets the height they take (the bars stand one above the other) */
	double nh = svg_names_height(sv, np, n), top = SVG_TOP;
	sv->headings = 1;
	int every = nh <= 22;
	double ph = (h - SVG_TOP - (every ? 0 : nh - 8)) / panels;
	for (int k = 0; k < panels; k++) {
		int last = k == panels - 1;
		double height = ph + (last && !every ? nh - 8 : 0);
		svg_bar_panel(sv, top, height, np, panel[k].v, n, panel[k].color, panel[k].u, NULL,
			      panel[k].title, every || last, 0);
		top += height;
	}
}
