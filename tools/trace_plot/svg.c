/* svg.c - see svg.h */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "svg.h"

static const char *const palette_text = "#333";
const char *const svg_colors[SVG_NCOLORS] = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
						"#8c564b" };

/* ---------------------------------------------------------------------------------------------
   Text: sizes are estimated, never measured (no font is embedded), so the layout assumes each
   character 0.65 em wide: DejaVu Sans, what browsers on Debian draw sans-serif with, has its
   digits 0.636 em wide and most letters narrower.
   ------------------------------------------------------------------------------------------- */

#define FS        12.0                 /* the chart's font size */
#define CHAR_EM   0.65
#define LINE      (1.2 * FS)           /* a line of text, ascent and descent with room */
#define LEFT      96.0                 /* the y axis: room for 8-character ticks and the title */

static double text_width(const char *t, double fs)
{
	size_t chars = 0;
	for (; t && *t; t++)
		chars += ((unsigned char)*t & 0xc0) != 0x80;   /* UTF-8: one per code point */
	return (double)chars * CHAR_EM * fs;
}

/* t, cut with an ellipsis to at most width pixels (a chart drawn narrow), into buf[cap] */
static const char *fit(char *buf, size_t cap, const char *t, double width)
{
	if (!t || text_width(t, FS) <= width)
		return t;
	size_t keep = width > 2 * CHAR_EM * FS ? (size_t)(width / (CHAR_EM * FS)) - 1 : 0;
	size_t n = 0, i = 0;
	for (; t[i] && i + 4 < cap; i++) {   /* whole UTF-8 characters */
		if (((unsigned char)t[i] & 0xc0) != 0x80 && n++ == keep)
			break;
		buf[i] = t[i];
	}
	memcpy(buf + i, "\xe2\x80\xa6", 4);   /* U+2026 and the terminator */
	return buf;
}

/* text with XML's five special characters escaped */
static void esc(FILE *f, const char *t)
{
	for (; t && *t; t++)
		switch (*t) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			if ((unsigned char)*t >= 32)
				fputc(*t, f);
		}
}

/* A text of class cls at (x, y), anchored start, middle or end, turned by rot degrees around
   that point (0: none) */
static void text(struct svg *s, double x, double y, const char *anchor, const char *cls, double rot,
		 const char *t)
{
	fprintf(s->f, "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" fill=\"%s\"",
		cls, x, y, anchor, palette_text);
	if (rot != 0)
		fprintf(s->f, " transform=\"rotate(%g %.1f %.1f)\"", rot, x, y);
	fputc('>', s->f);
	esc(s->f, t);
	fputs("</text>\n", s->f);
}

char *svg_fmt(char *buf, double v, enum svg_unit u)
{
	static const char *const bu[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int i = 0;
	switch (u) {
	case SVG_LOG10:
		return svg_fmt(buf, pow(10, v), SVG_COUNT);
	case SVG_NINES: {
		/* 99.9%: one decimal for 3 nines */
		int places = v > 2 ? (int)ceil(v - 2 - 1e-9) : 0;
		snprintf(buf, 32, "%.*f%%", places, 100 * (1 - pow(10, -v)));
		break;
	}
	case SVG_BYTES:
		while (fabs(v) >= 1024 && i < 4)
			v /= 1024, i++;
		snprintf(buf, 32, "%.*f %s", v < 10 && i && fmod(v, 1) != 0 ? 1 : 0, v, bu[i]);
		break;
	case SVG_SECONDS:
		if (fabs(v) >= 1 || v == 0)
			snprintf(buf, 32, "%.*f s",
				 fabs(v) < 10 && v != 0 && fmod(v, 1) != 0 ? 1 : 0, v);
		else if (fabs(v) >= 1e-3)
			snprintf(buf, 32, "%.*f ms",
				 fabs(v) < 1e-2 && fmod(v * 1e3, 1) != 0 ? 1 : 0, v * 1e3);
		else if (fabs(v) >= 1e-6)
			snprintf(buf, 32, "%.0f us", v * 1e6);
		else
			snprintf(buf, 32, "%.0f ns", v * 1e9);
		break;
	default: {
		static const char *const k[] = { "", " k", " M", " G", " T" };
		while (fabs(v) >= 1000 && i < 4)
			v /= 1000, i++;
		snprintf(buf, 32, "%.*f%s%s", v < 10 && i && fmod(v, 1) != 0 ? 1 : 0, v, k[i],
			 u == SVG_RATE ? "/s" : "");
	}
	}
	return buf;
}

/* The unit an axis up to max shows bytes or seconds in, in bytes or seconds (every tick in
   the same one: 0.5 MiB, 1 MiB, ... rather than 512 KiB, 1 MiB, ...); 1 for other units */
static double axis_scale(double max, enum svg_unit u)
{
	double scale = 1;
	if (u == SVG_BYTES)
		while (max / scale >= 1024 && scale < 0x1p40)
			scale *= 1024;
	if (u == SVG_SECONDS)
		for (scale = 1; max < scale && scale > 1e-9; scale /= 1000)
			;
	return scale;
}

/* a "nice" step near range/n: 1, 2 or 5 times a power of ten of the axis's unit */
static double nice_step(double range, int n, enum svg_unit u)
{
	if (range <= 0)
		return 1;
	double raw = range / n, unit = axis_scale(range, u);
	if (u == SVG_LOG10 || u == SVG_NINES)   /* whole powers of ten, whole nines */
		return raw <= 1 ? 1 : ceil(raw);
	double m = raw / unit, p = pow(10, floor(log10(m)));
	double step = m / p <= 1 ? 1 : m / p <= 2 ? 2 : m / p <= 5 ? 5 : 10;
	return step * p * unit;
}

/* A tick's label: bytes and seconds in the axis's unit, with the decimals its step needs */
static char *tick_fmt(char *buf, double v, enum svg_unit u, double step, double max)
{
	if (u != SVG_BYTES && u != SVG_SECONDS)
		return svg_fmt(buf, v, u);
	static const char *const bu[] = { "B", "KiB", "MiB", "GiB", "TiB" },
			  *const su[] = { "s", "ms", "us", "ns" };
	double scale = axis_scale(max, u), st = step / scale;
	int places = st >= 1 ? 0 : st >= 0.1 ? 1 : 2, k = 0;
	for (double x = scale; u == SVG_BYTES ? x > 1.5 : x < 0.5;
	     x = u == SVG_BYTES ? x / 1024 : x * 1000)
		k++;
	snprintf(buf, 32, "%.*f %s", places, fabs(v / scale) < 1e-12 ? 0 : v / scale,
		 u == SVG_BYTES ? bu[k] : su[k]);
	return buf;
}

/* ---------------------------------------------------------------------------------------------
   The chart, its legend, its panels
   ------------------------------------------------------------------------------------------- */

void svg_begin(struct svg *s, FILE *f, int width, int height, const char *title)
{
	memset(s, 0, sizeof *s);
	s->f = f;
	s->w = width;
	s->h = height;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"%g\">\n"
		   "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n",
		width, height, width, height, FS, width, height);
	fprintf(f, "<text class=\"title\" x=\"%d\" y=\"22\" text-anchor=\"middle\" "
		   "font-size=\"15\" fill=\"%s\">", width / 2, palette_text);
	char buf[400];
	/* (measured in 12-pixel characters) */
	esc(f, fit(buf, sizeof buf, title, (width - 20) * FS / 15));
	fprintf(f, "</text>\n");
}

static void close_panel(struct svg *s)
{
	if (s->in_panel)
		fputs("</g>\n", s->f);
	s->in_panel = 0;
}

double svg_legend(struct svg *s, double top, const char *const *labels, const char *const *colors,
		  size_t n)
{
	close_panel(s);
	if (n == 0)
		return 0;
	/* entries flow left to right from the y axis, a row at a time */
	double x0 = LEFT, x1 = s->w - 30, gap = 18, sw = 14;
	double x = x0, rows = 1;
	char buf[400];
	for (size_t i = 0; i < n; i++) {
		double w =
			sw + 5 + text_width(fit(buf, sizeof buf, labels[i], x1 - x0 - sw - 5), FS);
		if (x > x0 && x + w > x1)
			x = x0, rows++;
		x += w + gap;
	}
	double h = rows * LINE + 8;
	fprintf(s->f,
		"<g class=\"legend\">\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		"fill=\"#f6f6f6\" stroke=\"#ccc\"/>\n",
		x0 - 6, top, x1 - x0 + 12, h);
	x = x0;
	double y = top + 4 + 0.85 * FS + (LINE - FS) / 2;   /* the first row's baseline */
	for (size_t i = 0; i < n; i++) {
		const char *label = fit(buf, sizeof buf, labels[i], x1 - x0 - sw - 5);
		double w = sw + 5 + text_width(label, FS);
		if (x > x0 && x + w > x1)
			x = x0, y += LINE;
		fprintf(s->f,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"3\" fill=\"%s\"/>\n",
			x, y - 0.35 * FS - 1.5, sw, colors[i]);
		text(s, x + sw + 5, y, "start", "legend", 0, label);
		x += w + gap;
	}
	fputs("</g>\n", s->f);
	return h + 6;
}

/* The frame of a panel from top to top+height with `bottom` pixels under the plot area for
   the x axis; its y title turned along the axis, or as a heading above the plot area when it
   is longer than the axis. */
static void frame(struct svg *s, double top, double height, double bottom, const char *ylabel)
{
	close_panel(s);
	fputs("<g class=\"panel\">\n", s->f);
	s->in_panel = 1;
	s->px0 = LEFT;
	s->px1 = s->w - 30;
	s->py0 = top + 10;
	s->py1 = top + height - bottom;
	int heading = s->headings || text_width(ylabel, FS) > s->py1 - s->py0;
	if (heading)
		s->py0 = top + 10 + LINE;
	if (s->py1 < s->py0 + 10)   /* a chart asked to be too low: squeezed, still drawn */
		s->py1 = s->py0 + 10;
	fprintf(s->f,
		"<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		"fill=\"none\" stroke=\"#999\"/>\n",
		s->px0, s->py0, s->px1 - s->px0, s->py1 - s->py0);
	char buf[400];
	if (heading)
		text(s, s->px0, s->py0 - 6, "start", "ytitle", 0,
		     fit(buf, sizeof buf, ylabel, s->px1 - s->px0));
	else
		text(s, 4 + 0.85 * FS, (s->py0 + s->py1) / 2, "middle", "ytitle", -90, ylabel);
}

/* The y range, gridlines and ticks: as many ticks as fit 30 pixels apart (6 at most) */
static void yaxis(struct svg *s, double ymin, double ymax, enum svg_unit yu)
{
	if (ymax <= ymin)
		ymax = ymin + 1;
	s->ymin = ymin, s->ymax = ymax;
	int n = (int)((s->py1 - s->py0) / 25);
	double ys = nice_step(ymax - ymin, n < 2 ? 2 : n > 6 ? 6 : n, yu);
	/* the axis ends at a tick: its top value is written */
	if (yu != SVG_LOG10 && ceil(ymax / ys - 1e-9) * ys > ymax)
		s->ymax = ymax = ceil(ymax / ys - 1e-9) * ys;
	char buf[32];
	/* the last label's y: in a low panel, a label only a line below it */
	double last = 1e300;
	for (double v = ceil(ymin / ys) * ys; v <= ymax + ys * 1e-9; v += ys) {
		double y = s->py1 - (v - ymin) / (ymax - ymin) * (s->py1 - s->py0);
		fprintf(s->f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"#e5e5e5\"/>\n",
			s->px0, y, s->px1, y);
		if (last - y < LINE)
			continue;
		text(s, s->px0 - 6, y + 4, "end", "ytick", 0, tick_fmt(buf, v, yu, ys, ymax));
		last = y;
	}
}

void svg_panel(struct svg *s, double top, double height, double xmin, double xmax, enum svg_unit xu,
	       const char *xlabel, double ymin, double ymax, enum svg_unit yu, const char *ylabel)
{
	frame(s, top, height, xlabel ? 40 : 22, ylabel);
	if (xmax <= xmin)
		xmax = xmin + 1;
	s->xmin = xmin, s->xmax = xmax;
	yaxis(s, ymin, ymax, yu);
	char buf[32], buf2[400];
	/* x ticks at least 100 pixels apart: room for "99.999%" */
	double xs = nice_step(xmax - xmin, (int)((s->px1 - s->px0) / 100), xu);
	for (double v = ceil(xmin / xs) * xs; v <= xmax + xs * 1e-9; v += xs) {
		double x = s->px0 + (v - xmin) / (xmax - xmin) * (s->px1 - s->px0);
		fprintf(s->f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\"/>\n",
			x, s->py1, x, s->py1 + 4);
		text(s, x, s->py1 + 17, "middle", "xtick", 0, tick_fmt(buf, v, xu, xs, xmax));
	}
	if (xlabel)
		text(s, (s->px0 + s->px1) / 2, s->py1 + 33, "middle", "xtitle", 0,
		     fit(buf2, sizeof buf2, xlabel, s->px1 - s->px0));
}

static double X(const struct svg *s, double v)
{
	return s->px0 + (v - s->xmin) / (s->xmax - s->xmin) * (s->px1 - s->px0);
}

static double Y(const struct svg *s, double v)
{
	double y = s->py1 - (v - s->ymin) / (s->ymax - s->ymin) * (s->py1 - s->py0);
	return y < s->py0 ? s->py0 : y > s->py1 ? s->py1 : y;
}

void svg_line(struct svg *s, const double *x, const double *y, size_t n, const char *color)
{
	FILE *f = s->f;
	fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", color);
	int cols = (int)(s->px1 - s->px0);
	if (n <= (size_t)cols * 2) {
		for (size_t i = 0; i < n; i++)
			fprintf(f, "%.1f,%.1f ", X(s, x[i]), Y(s, y[i]));
	} else {
		/* one pixel column at a time: its first point, then its lowest and highest in the
		   order they came, so no peak and no dip is lost */
		size_t i = 0;
		while (i < n) {
			int col = (int)(X(s, x[i]) - s->px0);
			size_t j = i, lo = i, hi = i;
			while (j < n && (int)(X(s, x[j]) - s->px0) == col) {
				if (y[j] < y[lo]) lo = j;
				if (y[j] > y[hi]) hi = j;
				j++;
			}
			size_t a = lo < hi ? lo : hi, b = lo < hi ? hi : lo;
			fprintf(f, "%.1f,%.1f %.1f,%.1f ", X(s, x[a]), Y(s, y[a]), X(s, x[b]),
				Y(s, y[b]));
			i = j;
		}
	}
	fprintf(f, "\"/>\n");
}

/* ---------------------------------------------------------------------------------------------
   Bars: the names under them across when each fits its slot, else turned 45 degrees (two
   neighbours then stand slot / sqrt 2 apart, which must be a line), every step-th
   ------------------------------------------------------------------------------------------- */

struct names_layout { int turned, step; double height, width; };

/* The names turned take at most a third of the chart's height: longer ones are cut to fit */
static struct names_layout names_layout(const struct svg *s, double slot, const char *const *names,
					size_t n)
{
	double wmax = 0, wcap = (s->h / 3 - 12) / M_SQRT1_2 - FS;
	for (size_t i = 0; i < n; i++)
		if (text_width(names[i], FS) > wmax)
			wmax = text_width(names[i], FS);
	if (wmax + 6 <= slot)
		return (struct names_layout){ 0, 1, 22, slot - 6 };
	if (wmax > wcap)
		wmax = wcap;
	int step = (int)ceil(LINE / (slot * M_SQRT1_2));
	return (struct names_layout){ 1, step < 1 ? 1 : step, 12 + (wmax + FS) * M_SQRT1_2, wmax };
}

double svg_names_height(const struct svg *s, const char *const *names, size_t n)
{
	return names_layout(s, (s->w - 30 - LEFT) / (double)(n ? n : 1), names, n).height;
}

void svg_bar_panel(struct svg *s, double top, double height, const char *const *names,
		   const double *v, size_t n, const char *color, enum svg_unit vu,
		   const char *xlabel, const char *ylabel, int show_names, int may_thin)
{
	double slot = (s->w - 30 - LEFT) / (double)(n ? n : 1);
	struct names_layout nl = names_layout(s, slot, names, n);
	if (!may_thin)
		nl.step = 1;
	double bottom = (show_names ? nl.height : 8) + (xlabel ? LINE + 4 : 0);
	frame(s, top, height, bottom, ylabel);
	s->xmin = 0, s->xmax = 1;
	/* each value above its bar when every one fits its slot and the panel has room for a
	   line above the tallest bar (the y range is stretched to leave it) */
	char buf[32], name[400];
	double vmax = 0, plot = s->py1 - s->py0, room = LINE + 6;
	int values = plot > 3 * room;
	for (size_t i = 0; i < n; i++) {
		if (v[i] > vmax)
			vmax = v[i];
		if (text_width(svg_fmt(buf, v[i], vu), FS) + 4 > slot)
			values = 0;
	}
	yaxis(s, 0, vmax > 0 ? vmax * (values ? plot / (plot - room) : 1.05) : 1, vu);
	double bw = slot * 0.6;
	for (size_t i = 0; i < n; i++) {
		double cx = s->px0 + slot * ((double)i + 0.5), y = Y(s, v[i]);
		fprintf(s->f,
			"<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			"fill=\"%s\"/>\n",
			cx - bw / 2, y, bw, s->py1 - y, color);
		if (values)
			text(s, cx, y - 4, "middle", "value", 0, svg_fmt(buf, v[i], vu));
		if (!show_names || i % (size_t)nl.step)
			continue;
		const char *t = fit(name, sizeof name, names[i], nl.width);
		if (nl.turned)
			text(s, cx + 4, s->py1 + 12, "end", "xcat", -45, t);
		else
			text(s, cx, s->py1 + 16, "middle", "xcat", 0, t);
	}
	char buf2[400];
	if (xlabel)
		text(s, (s->px0 + s->px1) / 2, s->py1 + (show_names ? nl.height : 8) + FS + 2,
		     "middle", "xtitle", 0, fit(buf2, sizeof buf2, xlabel, s->px1 - s->px0));
}

void svg_note(struct svg *s, double y, const char *t)
{
	char buf[600];
	text(s, s->w / 2, y, "middle", "note", 0, fit(buf, sizeof buf, t, s->w - 20));
}

void svg_box(struct svg *s, double x, double y, double w, double h, const char *fill,
	     const char *label, const char *tip)
{
	fprintf(s->f, "<g class=\"box\"><title>");
	esc(s->f, tip);
	fprintf(s->f, "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
		   "fill=\"%s\" stroke=\"#fff\" stroke-width=\"0.5\"/>", x, y, w, h, fill);
	char buf[600];
	double room = w - 6;
	if (label && room >= 3 * CHAR_EM * FS) {   /* (three characters, or nothing) */
		fprintf(s->f, "<text class=\"boxlabel\" x=\"%.2f\" y=\"%.1f\" fill=\"%s\">",
			x + 3, y + h / 2 + FS * 0.35, palette_text);
		esc(s->f, fit(buf, sizeof buf, label, room));
		fputs("</text>", s->f);
	}
	fputs("</g>\n", s->f);
}

void svg_end(struct svg *s)
{
	close_panel(s);
	fprintf(s->f, "</svg>\n");
}
