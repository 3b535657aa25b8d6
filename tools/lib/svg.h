/* svg.h - self-contained SVG charts (no script, no external font): panels with labelled axes
 * and readable ticks in units (bytes as KiB/MiB/GiB, time as us/ms/s), line series downsampled
 * so that peaks survive, bars, a legend. */
#ifndef SVG_H
#define SVG_H
#include <stddef.h>
#include <stdio.h>

/* SVG_LOG10: the axis holds log10 of a count (ticks at 10, 100, 1 k, ...); SVG_NINES: it holds
   the number of nines of a percentile, -log10(1 - q) (ticks at 0%, 90%, 99%, 99.9%, ...). */
enum svg_unit { SVG_COUNT, SVG_BYTES, SVG_SECONDS, SVG_RATE, SVG_CYCLES, SVG_LOG10, SVG_NINES };

struct svg {
	FILE *f;
	double w, h;
	double px0, py0, px1, py1;        /* the current panel's plot area */
	double xmin, xmax, ymin, ymax;
	int nlegend;
	double legend_y;
	int legend_left;                  /* the legend in the top left corner, not the right */
};

void svg_begin(struct svg *s, FILE *f, int width, int height, const char *title);
/* A panel from top to top+height (pixels); axes, ticks and labels drawn. */
void svg_panel(struct svg *s, double top, double height, double xmin, double xmax, enum svg_unit xu,
	       const char *xlabel, double ymin, double ymax, enum svg_unit yu, const char *ylabel);
/* A line through (x[i], y[i]); more points than pixels are reduced to each column's min and max. */
void svg_line(struct svg *s, const double *x, const double *y, size_t n, const char *color, const char *label);
/* Bars for n categories (the panel's x range is ignored: categories spread evenly). */
void svg_bars(struct svg *s, const char *const *names, const double *v, size_t n, const char *color,
	      enum svg_unit yu);
void svg_end(struct svg *s);

/* "12.5 MiB", "340 ms", "1.2 k": v in unit, into buf (>= 32 bytes). */
char *svg_fmt(char *buf, double v, enum svg_unit u);
#endif
