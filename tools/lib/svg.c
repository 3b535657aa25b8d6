/* svg.c - see svg.h */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "svg.h"

static const char *const palette_text = "#333";

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

char *svg_fmt(char *buf, double v, enum svg_unit u)
{
	static const char *const bu[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int i = 0;
	switch (u) {
	case SVG_LOG10:
		return svg_fmt(buf, pow(10, v), SVG_COUNT);
	case SVG_NINES: {
		int places = v > 2 ? (int)ceil(v - 2 - 1e-9) : 0;   /* 99.9%: one decimal for 3 nines */
		snprintf(buf, 32, "%.*f%%", places, 100 * (1 - pow(10, -v)));
		break;
	}
	case SVG_BYTES:
		while (fabs(v) >= 1024 && i < 4)
			v /= 1024, i++;
		snprintf(buf, 32, "%.*f %s", v < 10 && i ? 1 : 0, v, bu[i]);
		break;
	case SVG_SECONDS:
		if (fabs(v) >= 1 || v == 0)
			snprintf(buf, 32, "%.*f s", fabs(v) < 10 && v != 0 && fmod(v, 1) != 0 ? 1 : 0, v);
		else if (fabs(v) >= 1e-3)
			snprintf(buf, 32, "%.*f ms", fabs(v) < 1e-2 && fmod(v * 1e3, 1) != 0 ? 1 : 0, v * 1e3);
		else if (fabs(v) >= 1e-6)
			snprintf(buf, 32, "%.0f us", v * 1e6);
		else
			snprintf(buf, 32, "%.0f ns", v * 1e9);
		break;
	default: {
		static const char *const k[] = { "", " k", " M", " G", " T" };
		while (fabs(v) >= 1000 && i < 4)
			v /= 1000, i++;
		snprintf(buf, 32, "%.*f%s%s", v < 10 && i && fmod(v, 1) != 0 ? 1 : 0, v, k[i], u == SVG_RATE ? "/s" : "");
	}
	}
	return buf;
}

/* a "nice" step near range/n: 1, 2 or 5 times a power of ten; for bytes, of the unit the
   numbers are shown in (KiB, MiB, ...), so the ticks read 50 KiB, 100 KiB, ... */
static double nice_step(double range, int n, enum svg_unit u)
{
	if (range <= 0)
		return 1;
	double raw = range / n, unit = 1;
	if (u == SVG_LOG10 || u == SVG_NINES)   /* whole powers of ten, whole nines */
		return raw <= 1 ? 1 : ceil(raw);
	if (u == SVG_BYTES)
		while (raw / unit >= 1024)
			unit *= 1024;
	double m = raw / unit, p = pow(10, floor(log10(m)));
	double step = m / p <= 1 ? 1 : m / p <= 2 ? 2 : m / p <= 5 ? 5 : 10;
	return step * p * unit;
}

void svg_begin(struct svg *s, FILE *f, int width, int height, const char *title)
{
	memset(s, 0, sizeof *s);
	s->f = f;
	s->w = width;
	s->h = height;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		   "font-family=\"sans-serif\" font-size=\"12\">\n"
		   "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n",
		width, height, width, height, width, height);
	fprintf(f, "<text x=\"%d\" y=\"22\" text-anchor=\"middle\" font-size=\"15\" fill=\"%s\">", width / 2, palette_text);
	esc(f, title);
	fprintf(f, "</text>\n");
}

void svg_panel(struct svg *s, double top, double height, double xmin, double xmax, enum svg_unit xu,
	       const char *xlabel, double ymin, double ymax, enum svg_unit yu, const char *ylabel)
{
	FILE *f = s->f;
	s->px0 = 80;
	s->px1 = s->w - 30;
	s->py0 = top + 10;
	s->py1 = top + height - 40;
	if (xmax <= xmin)
		xmax = xmin + 1;
	if (ymax <= ymin)
		ymax = ymin + 1;
	s->xmin = xmin, s->xmax = xmax, s->ymin = ymin, s->ymax = ymax;
	s->nlegend = 0;
	s->legend_y = s->py0 + 4;
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#999\"/>\n",
		s->px0, s->py0, s->px1 - s->px0, s->py1 - s->py0);
	char buf[32];
	double ys = nice_step(ymax - ymin, 5, yu);
	for (double v = ceil(ymin / ys) * ys; v <= ymax + ys * 1e-9; v += ys) {
		double y = s->py1 - (v - ymin) / (ymax - ymin) * (s->py1 - s->py0);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>\n", s->px0, y, s->px1, y);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"%s\">%s</text>\n", s->px0 - 6, y + 4,
			palette_text, svg_fmt(buf, v, yu));
	}
	if (xu != SVG_COUNT || xlabel) {
		double xs = nice_step(xmax - xmin, 8, xu);
		for (double v = ceil(xmin / xs) * xs; xlabel && v <= xmax + xs * 1e-9; v += xs) {
			double x = s->px0 + (v - xmin) / (xmax - xmin) * (s->px1 - s->px0);
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\"/>\n", x, s->py1, x, s->py1 + 4);
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"%s\">%s</text>\n", x, s->py1 + 17,
				palette_text, svg_fmt(buf, v, xu));
		}
	}
	if (xlabel) {
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"%s\">", (s->px0 + s->px1) / 2,
			s->py1 + 33, palette_text);
		esc(f, xlabel);
		fprintf(f, "</text>\n");
	}
	fprintf(f, "<text transform=\"translate(16,%.1f) rotate(-90)\" text-anchor=\"middle\" fill=\"%s\">",
		(s->py0 + s->py1) / 2, palette_text);
	esc(f, ylabel);
	fprintf(f, "</text>\n");
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

static void legend(struct svg *s, const char *color, const char *label)
{
	if (!label)
		return;
	double x = s->legend_left ? s->px0 + 10 : s->px1 - 230, y = s->legend_y + 15.0 * s->nlegend++;
	/* a white backing, so the legend stays readable over the lines */
	fprintf(s->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"224\" height=\"15\" fill=\"#fff\" fill-opacity=\"0.85\"/>", x - 4, y - 1);
	fprintf(s->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"3\" fill=\"%s\"/>", x, y + 5, color);
	fprintf(s->f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">", x + 16, y + 10, palette_text);
	esc(s->f, label);
	fprintf(s->f, "</text>\n");
}

void svg_line(struct svg *s, const double *x, const double *y, size_t n, const char *color, const char *label)
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
			fprintf(f, "%.1f,%.1f %.1f,%.1f ", X(s, x[a]), Y(s, y[a]), X(s, x[b]), Y(s, y[b]));
			i = j;
		}
	}
	fprintf(f, "\"/>\n");
	legend(s, color, label);
}

void svg_bars(struct svg *s, const char *const *names, const double *v, size_t n, const char *color,
	      enum svg_unit yu)
{
	FILE *f = s->f;
	double slot = (s->px1 - s->px0) / (double)(n ? n : 1), bw = slot * 0.6;
	char buf[32];
	for (size_t i = 0; i < n; i++) {
		double x = s->px0 + slot * (double)i + (slot - bw) / 2, y = Y(s, v[i]);
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n", x, y, bw,
			s->py1 - y, color);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"%s\">%s</text>\n", x + bw / 2,
			y - 4, palette_text, svg_fmt(buf, v[i], yu));
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"%s\">", x + bw / 2, s->py1 + 16,
			palette_text);
		esc(f, names[i]);
		fprintf(f, "</text>\n");
	}
}

void svg_end(struct svg *s)
{
	fprintf(s->f, "</svg>\n");
}
