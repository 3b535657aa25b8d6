/* sites_report.c - trace_stats --sites and --collapsed: a trace's bytes by call site
 * (sites.h), as text for people (80 columns), JSON, or the folded stacks flame graph tools read.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sites_report.h"
#include "tool.h"
#include "units.h"

#define SITE_SEP " < "   /* between a site's frames: "callee < caller" */
#define TEXT_MIN_WIDTH 80

/* the columns of a ranking's table: the ranked figure first */
static const struct { const char *title, *cols[3]; } rankings[SITES_WHATS] = {
	[SITES_PEAK] = { "Live at the ideal-RSS peak", { "bytes", "blocks", "calls" } },
	[SITES_LEAKS] = { "Live at the end, never freed", { "bytes", "blocks", "calls" } },
	[SITES_CALLS] = { "By calls", { "calls", "blocks", "bytes" } },
	[SITES_ALLOCATED] = { "By bytes allocated", { "bytes", "blocks", "calls" } },
};

/* The three figures of x in ranking w's columns (the bytes column in bytes) */
static void row_figures(const struct site *x, enum sites_what w, uint64_t v[3])
{
	switch (w) {
	case SITES_PEAK: v[0] = x->peak_b, v[1] = x->peak_n, v[2] = x->calls; break;
	case SITES_LEAKS: v[0] = x->end_b, v[1] = x->end_n, v[2] = x->calls; break;
	case SITES_CALLS: v[0] = x->calls, v[1] = x->blocks, v[2] = x->bytes; break;
	default: v[0] = x->bytes, v[1] = x->blocks, v[2] = x->calls; break;
	}
}

/* "100 B" (every block that size) or "~97.3 B" (their mean) or "-" (none) */
static char *size_text(char *buf, size_t cap, const struct site *x)
{
	if (x->blocks == 0)
		snprintf(buf, cap, "-");
	else if (x->size)
		units_bytes(buf, cap, x->size - 1);
	else {
		buf[0] = '~';
		units_bytes(buf + 1, cap - 1, (x->bytes + x->blocks / 2) / x->blocks);
	}
	return buf;
}

/* The site's name for people: its frames, innermost first, into buf; control characters
   shown as '?' */
static char *site_name(char *buf, size_t cap, const struct site *x)
{
	size_t at = 0;
	buf[0] = 0;
	for (unsigned k = 0; k < x->nframes && at + 1 < cap; k++) {
		at += (size_t)snprintf(buf + at, cap - at, "%s%s", k ? SITE_SEP : "", x->frames[k]);
		if (at >= cap)
			at = cap - 1;
	}
	for (char *p = buf; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = '?';
	return buf;
}

/* s cut to at most cols columns, ending in an ellipsis when cut (UTF-8 kept whole) */
static void print_cut(const char *s, size_t cols)
{
	if (units_width(s) <= cols) {
		fputs(s, stdout);
		return;
	}
	size_t w = 0, i = 0;
	while (s[i] && w + 1 < cols) {
		size_t n = 1;
		while (((unsigned char)s[i + n] & 0xc0) == 0x80)
			n++;
		fwrite(s + i, 1, n, stdout);
		i += n;
		w++;
	}
	fputs("\u2026", stdout);
}

static void cell(const char *s, int width)
{
	for (size_t w = units_width(s); w < (size_t)width; w++)
		putchar(' ');
	fputs(s, stdout);
}

/* ---------------------------------------------------------------------------------------------
   Text
   ------------------------------------------------------------------------------------------- */

static void text_table(const struct site *v, size_t n, enum sites_what w, unsigned top, int width)
{
	char f[3][UNITS_CAP], sz[UNITS_CAP + 1], name[8192];
	printf("\n%s\n", rankings[w].title);
	printf("%10s %9s %9s %10s  site\n", rankings[w].cols[0], rankings[w].cols[1],
	       rankings[w].cols[2], "size");
	size_t shown = 0;
	for (size_t i = 0; i < n && shown < top; i++) {
		uint64_t x[3];
		row_figures(&v[i], w, x);
		if (x[0] == 0)
			break;   /* (sorted: the rest are 0 too) */
		for (int k = 0; k < 3; k++) {
			int bytes = !strcmp(rankings[w].cols[k], "bytes");
			if (bytes)
				units_bytes(f[k], sizeof f[k], x[k]);
			else
				fmt_commas(f[k], x[k]);
		}
		cell(f[0], 10), putchar(' '), cell(f[1], 9), putchar(' '), cell(f[2], 9);
		putchar(' ');
		cell(size_text(sz, sizeof sz, &v[i]), 10);
		fputs("  ", stdout);
		print_cut(site_name(name, sizeof name, &v[i]), (size_t)width - 43);
		putchar('\n');
		shown++;
	}
	if (shown == 0)
		printf("%10s\n", "none");
}

static void text_report(const struct sites *s, struct site *v, size_t n,
			const struct sites_opts *o)
{
	char a[UNITS_CAP], b[UNITS_CAP], c[UNITS_CAP], d[UNITS_CAP], e[UNITS_CAP];
	int width = tool_tty_width(1);
	if (width < TEXT_MIN_WIDTH)
		width = TEXT_MIN_WIDTH;
	if (o->depth == 1)
		printf("Call sites: each a stack's innermost frame");
	else
		printf("Call sites: each a stack's %u innermost frames", o->depth);
	printf(" (stacks of %u at most)\n  trace ", s->depth);
	print_cut(s->name, (size_t)width - 8);
	putchar('\n');
	printf("  %s calls allocated %s in %s blocks\n", fmt_commas(a, s->calls),
	       units_bytes(b, sizeof b, s->bytes), fmt_commas(c, s->blocks));
	printf("  ideal RSS peak %s in %s blocks, at call %s\n  live at the end %s in %s blocks\n",
	       units_bytes(d, sizeof d, s->peak_b), fmt_commas(a, s->peak_n),
	       fmt_commas(b, s->peak_call), units_bytes(e, sizeof e, s->end_b),
	       fmt_commas(c, s->end_n));
	if (s->dropped)
		printf("  %s calls have no stack: the tracer's table of stacks was full\n",
		       fmt_commas(a, s->dropped));
	for (int w = 0; w < SITES_WHATS; w++) {
		sites_sort(v, n, (enum sites_what)w);
		text_table(v, n, (enum sites_what)w, o->top, width);
	}
}

/* ---------------------------------------------------------------------------------------------
   JSON (doc: man/trace_stats.1, "--sites --json")
   ------------------------------------------------------------------------------------------- */

static void json_site(const struct site *x)
{
	char name[8192];
	fputs("{\"site\": ", stdout);
	print_json_string(stdout, site_name(name, sizeof name, x));
	fputs(", \"frames\": [", stdout);
	for (unsigned k = 0; k < x->nframes; k++) {
		fputs(k ? ", " : "", stdout);
		print_json_string(stdout, x->frames[k]);
	}
	printf("], \"calls\": %llu, \"blocks\": %llu, \"bytes\": %llu, ",
	       (unsigned long long)x->calls, (unsigned long long)x->blocks,
	       (unsigned long long)x->bytes);
	if (x->size)
		printf("\"size\": %llu, ", (unsigned long long)x->size - 1);
	else
		printf("\"size\": null, ");
	printf("\"peak_bytes\": %llu, \"peak_blocks\": %llu, \"leak_bytes\": %llu, "
	       "\"leak_blocks\": %llu}", (unsigned long long)x->peak_b,
	       (unsigned long long)x->peak_n, (unsigned long long)x->end_b,
	       (unsigned long long)x->end_n);
}

static void json_report(const struct sites *s, struct site *v, size_t n,
			const struct sites_opts *o)
{
	fputs("{\"trace\": ", stdout);
	print_json_string(stdout, s->name);
	printf(", \"depth\": %u, \"stack_depth\": %u, \"stacks_dropped\": %u, "
	       "\"calls\": %llu, \"blocks\": %llu, "
	       "\"bytes\": %llu,\n \"peak\": {\"bytes\": %llu, \"blocks\": %llu, \"call\": %llu}, "
	       "\"end\": {\"bytes\": %llu, \"blocks\": %llu},\n \"sites\": {", o->depth, s->depth,
	       s->dropped,
	       (unsigned long long)s->calls, (unsigned long long)s->blocks,
	       (unsigned long long)s->bytes, (unsigned long long)s->peak_b,
	       (unsigned long long)s->peak_n, (unsigned long long)s->peak_call,
	       (unsigned long long)s->end_b, (unsigned long long)s->end_n);
	for (int w = 0; w < SITES_WHATS; w++) {
		sites_sort(v, n, (enum sites_what)w);
		printf("%s\n  \"%s\": [", w ? "," : "", sites_what_names[w]);
		for (size_t i = 0, shown = 0; i < n && shown < o->top; i++, shown++) {
			if (sites_value(&v[i], (enum sites_what)w) == 0)
				break;
			fputs(shown ? ",\n   " : "\n   ", stdout);
			json_site(&v[i]);
		}
		fputs("]", stdout);
	}
	fputs("}}\n", stdout);
}

/* ---------------------------------------------------------------------------------------------
   Folded stacks
   ------------------------------------------------------------------------------------------- */

static void collapsed_report(struct site *v, size_t n, enum sites_what w)
{
	char name[4096];
	for (size_t i = 0; i < n; i++) {
		uint64_t x = sites_value(&v[i], w);
		if (x == 0)
			continue;
		for (unsigned k = v[i].nframes; k-- > 0;) {
			fputs(sites_fold_name(name, sizeof name, v[i].frames[k]), stdout);
			putchar(k ? ';' : ' ');
		}
		printf("%llu\n", (unsigned long long)x);
	}
}

int report_sites(const char *path, const struct sites_opts *o, int progress)
{
	struct sites s;
	struct tool_err e;
	if (sites_collect(path, &s, progress, &e) < 0) {
		tool_warn("%s", e.msg);
		sites_free(&s);
		return e.status;
	}
	size_t n;
	struct site *v = sites_group(&s, o->collapsed && !o->depth_given ? 0 : o->depth, &n);
	if (!v)
		tool_die(EXIT_SYSTEM, "out of memory");
	if (o->collapsed)
		collapsed_report(v, n, o->what);
	else if (o->json)
		json_report(&s, v, n, o);
	else
		text_report(&s, v, n, o);
	free(v);
	sites_free(&s);
	return EXIT_OK;
}
