/* svg.h - self-contained SVG charts (no script, no external font): panels with labelled axes
 * and readable ticks in units (bytes as KiB/MiB/GiB, time as us/ms/s), line series downsampled
 * so that peaks survive, bar panels whose names never run into each other, a legend above the
 * panels (never on the data).
 *
 * Every text carries a class saying what it is (title, legend, ytitle, ytick, xtitle, xtick,
 * xcat, value) and every panel is a <g class="panel"> whose plot area is its <rect
 * class="frame">: tests read the layout back from the SVG itself. */
#ifndef SVG_H
#define SVG_H
#include <stddef.h>
#include <stdio.h>

/* SVG_LOG10: the axis holds log10 of a count (ticks at 10, 100, 1 k, ...); SVG_NINES: it holds
   the number of nines of a percentile, -log10(1 - q) (ticks at 0%, 90%, 99%, 99.9%, ...). */
enum svg_unit { SVG_COUNT, SVG_BYTES, SVG_SECONDS, SVG_RATE, SVG_LOG10, SVG_NINES };

struct svg {
	FILE *f;
	double w, h;
	double px0, py0, px1, py1;        /* the current panel's plot area */
	double xmin, xmax, ymin, ymax;
	int in_panel;                     /* a <g class="panel"> is open */
	int headings;                     /* y titles as headings above the panels (stacked
					     panels: one way for all, whatever fits each) */
};

/* A chart of width x height pixels with a title; its panels start at SVG_TOP. */
#define SVG_TOP 34.0
void svg_begin(struct svg *s, FILE *f, int width, int height, const char *title);
/* A legend of n entries (a colour swatch and a label each) in rows from top down, above the
   panels; returns the height it took. */
double svg_legend(struct svg *s, double top, const char *const *labels, const char *const *colors,
		  size_t n);
/* A panel from top to top+height (pixels): frame, ticks in units, axis titles (the y title
   turned along the axis, or as a heading above the panel when the panel is too low for it). */
void svg_panel(struct svg *s, double top, double height, double xmin, double xmax, enum svg_unit xu,
	       const char *xlabel, double ymin, double ymax, enum svg_unit yu, const char *ylabel);
/* A line through (x[i], y[i]) in the current panel; more points than pixels are reduced to each
   column's min and max. */
void svg_line(struct svg *s, const double *x, const double *y, size_t n, const char *color);
/* A panel of n bars, one per category, from 0 up to its value (in unit vu), each with its
   value above it where the values fit.  The names go under the bars (show_names), across or
   turned 45 degrees; with may_thin only every k-th is written when even turned they would
   touch (categories in order, as histogram buckets; never for names that each matter). */
void svg_bar_panel(struct svg *s, double top, double height, const char *const *names,
		   const double *v, size_t n, const char *color, enum svg_unit vu,
		   const char *xlabel, const char *ylabel, int show_names, int may_thin);
/* The height the names of svg_bar_panel take under its bars (so a caller can share out the
   chart's height). */
double svg_names_height(const struct svg *s, const char *const *names, size_t n);
/* A line of text (class "note") centred at y: what a chart shows, cut to the width */
void svg_note(struct svg *s, double y, const char *t);
/* A box (a flame graph's frame, class "box"): a rect filled with fill, its label inside, cut
   to the box's width (none where three characters do not fit), tip its tooltip (<title>) */
void svg_box(struct svg *s, double x, double y, double w, double h, const char *fill,
	     const char *label, const char *tip);
void svg_end(struct svg *s);

/* the colours of series, in the order they are given out */
#define SVG_NCOLORS 6
extern const char *const svg_colors[SVG_NCOLORS];

/* "12.5 MiB", "340 ms", "1.2 k": v in unit, into buf (>= 32 bytes). */
char *svg_fmt(char *buf, double v, enum svg_unit u);
#endif
