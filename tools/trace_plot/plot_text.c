/* plot_text.c - trace_plot's text inputs: opening them, reading lines and amounts, and
 * trace_run --log timelines. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "plot.h"
#include "tool.h"

/* ---------------------------------------------------------------------------------------------
   Text inputs: timelines, compare CSVs, latency distributions
   ------------------------------------------------------------------------------------------- */

/* A number trace_run writes: decimal, not negative, below 10^18 (kilobytes or microseconds:
   scaled, it stays finite); *end is left after it.  0 or -1 (strtod alone would take "nan",
   "inf", "-5" and "1e308", which draw nothing or off the chart). */
int plot_amount(const char *s, const char **end, double *out)
{
	char *e;
	errno = 0;
	double v = strtod(s, &e);
	if (e == s || errno == ERANGE || !(v >= 0 && v < 1e18) ||
	    strchr(" \t", *s) || *s == '+' || *s == '-')
		return -1;
	*end = e;
	*out = v;
	return 0;
}

/* A text input (timeline, CSV, distribution), or exit 1 naming it */
FILE *plot_open_text(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		tool_die(EXIT_BADFILE, "%s: %s", path, strerror(errno));
	return f;
}

/* Read the next line of f into line[cap] without its newline: 1, 0 at the end, or exit on a
   line too long (a text file of ours never has one). */
int plot_next_line(FILE *f, char *line, size_t cap, const char *path, unsigned long no)
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

/* ---------------------------------------------------------------------------------------------
   trace_run --log timelines
   ------------------------------------------------------------------------------------------- */

#define EXTRA_COLS 8   /* a timeline's columns read at most */

/* The header's later columns this reader knows, by name (calls, anon_kb, program_ms) */
static void timeline_columns(char *head, struct series *s)
{
	static const char *const names[3] = { "calls", "anon_kb", "program_ms" };
	s->col[0] = s->col[1] = s->col[2] = -1;
	int k = 0;
	for (char *name = strtok(head, "\t"); name && k < EXTRA_COLS;
	     name = strtok(NULL, "\t"), k++)
		for (int c = 0; c < 3; c++)
			if (k >= 4 && !strcmp(name, names[c]))
				s->col[c] = k;
}

void plot_read_timeline(const char *path, struct series *s)
{
	FILE *f = plot_open_text(path);
	char line[1024];
	unsigned long no = 0;
	int ncol = 4;   /* the columns a line must have: the first four, and the later ones known */
	static const char *const words[EXTRA_COLS - 3] = { "four", "five", "six", "seven",
							   "eight" };
	memset(s, 0, sizeof *s);
	int head = 1;   /* the line that names the columns: the first, or the second after a
			   "# trace_run timeline: NAME" */
	while (plot_next_line(f, line, sizeof line, path, no + 1)) {
		no++;
		if (no == 1 && !strncmp(line, "# trace_run timeline: ", 22)) {
			snprintf(s->name, sizeof s->name, "%.159s", line + 22);
			head = 2;
			continue;
		}
		if (no == (unsigned long)head) {
			if (strncmp(line, "time_ms\tvmrss_kb\tvmsize_kb\tideal_kb", 35) != 0)
				tool_die(EXIT_BADFILE, "%s: line %lu: not a trace_run --log timeline",
					 path, no);
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
			if ((k && *p++ != '\t') || plot_amount(p, &p, &v[k]) < 0)
				tool_die(EXIT_BADFILE,
					 "%s: line %lu: not %s numbers (time, VmRSS, VmSize, "
					 "ideal RSS%s: each a number from 0 to 10^18)",
					 path, no, words[ncol - 4],
					 ncol > 4 ? ", and the later columns its header names"
						  : "");
		}
		if (*p != 0 && *p != '\t')
			tool_die(EXIT_BADFILE, "%s: line %lu: not %s numbers", path, no,
				 words[ncol - 4]);
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
			if (!s->t || !s->rss || !s->vsz || !s->ideal || !s->calls || !s->anon ||
			    !s->prog_t)
				tool_die(EXIT_SYSTEM, "out of memory");
		}
		s->t[s->n] = t / 1e3, s->rss[s->n] = a * 1024, s->vsz[s->n] = b * 1024,
			s->ideal[s->n] = c * 1024;
		s->calls[s->n] = s->col[0] >= 0 ? v[s->col[0]] : 0;
		s->anon[s->n] = s->col[1] >= 0 ? v[s->col[1]] * 1024 : 0;
		s->prog_t[s->n] = s->col[2] >= 0 ? v[s->col[2]] / 1e3 : 0;
		s->n++;
	}
	fclose(f);
	if (s->n == 0)
		tool_die(EXIT_BADFILE, "%s: no samples", path);
}
