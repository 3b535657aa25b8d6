/* lat_hist.c - see lat_hist.h */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lat_hist.h"
#include "output.h"

const char *const lat_class_names[LAT_CLASSES] = { "malloc", "calloc", "realloc", "free",
						   "memalign" };

static const char *const lat_units[] = { LAT_UNIT_CYCLES, LAT_UNIT_TICKS, LAT_UNIT_NS };

const char *lat_unit_title(const char *unit)
{
	return !strcmp(unit, LAT_UNIT_NS) ? "Nanoseconds" : !strcmp(unit, LAT_UNIT_TICKS) ? "Ticks"
											  : "Cycles";
}

int lat_write_tsv(int fd, const char *title, const char *unit,
		  const uint64_t (*b)[HIST_BUCKETS], const uint64_t *max)
{
	/* static: trace_run writes this with the allocator under test */
	static char buf[1 << 16];
	size_t n = (size_t)snprintf(buf, sizeof buf, "# %s\nclass\t%s\tcalls\tat_or_below\n",
				    title, unit);
	if (n >= sizeof buf)
		n = sizeof buf - 1;
	for (unsigned c = 0; c < LAT_CLASSES && b; c++) {
		uint64_t total = 0, seen = 0;
		for (unsigned i = 0; i < HIST_BUCKETS; i++)
			total += b[c][i];
		for (unsigned i = 0; i < HIST_BUCKETS; i++) {
			if (!b[c][i])
				continue;
			seen += b[c][i];
			uint64_t upper = hist_upper(i) < max[c] ? hist_upper(i) : max[c];
			if (n > sizeof buf - 128) {   /* (a row is under 80 bytes) */
				if (tool_write_all(fd, buf, n) < 0)
					return -1;
				n = 0;
			}
			n += (size_t)snprintf(buf + n, sizeof buf - n, "%s\t%llu\t%llu\t%.9g\n",
					      lat_class_names[c], (unsigned long long)upper,
					      (unsigned long long)b[c][i],
					      (double)seen / (double)total);
		}
	}
	return tool_write_all(fd, buf, n);
}

/* A number lat_write_tsv writes: decimal, from 0 to below 10^18 (strtod alone would take
   "nan", "inf", "-5", "1e400" and leading blanks).  0 or -1; *end is left after it. */
static int number(const char *s, const char **end, double *out)
{
	if (!(*s >= '0' && *s <= '9'))
		return -1;
	char *e;
	errno = 0;
	double v = strtod(s, &e);
	if (errno == ERANGE || !(v >= 0 && v < 1e18))
		return -1;
	*end = e;
	*out = v;
	return 0;
}

int lat_read_tsv(FILE *f, struct lat_table *t, struct tool_err *err)
{
	char line[1024];
	unsigned long no = 0;
	int header = 0;
	memset(t, 0, sizeof *t);
	while (fgets(line, sizeof line, f)) {
		no++;
		size_t len = strlen(line);
		if (len && line[len - 1] == '\n')
			line[--len] = 0;
		else if (len + 1 == sizeof line) {
			tool_fail(err, EXIT_BADFILE, "line %lu: longer than %zu bytes", no,
				  sizeof line - 2);
			return -1;
		}
		if (line[0] == '#') {
			/* "# trace_run latency: NAME, TIMER" (trace_stats: "NAME as traced,
			   CLOCK"); the timer's and clock's names have no comma, NAME may (a
			   --compare column's settings): it ends at the last ", " */
			const char *tag = strstr(line, " latency: ");
			if (no == 1 && tag) {
				const char *name = tag + 10, *end = NULL;
				for (const char *q = strstr(name, ", "); q; q = strstr(q + 1, ", "))
					end = q;
				snprintf(t->name, sizeof t->name, "%.*s",
					 end ? (int)(end - name) : (int)strlen(name), name);
			}
			continue;
		}
		if (!header) {
			for (size_t u = 0; u < sizeof lat_units / sizeof lat_units[0]; u++) {
				size_t k = strlen(lat_units[u]);
				if (!strncmp(line, "class\t", 6) && !strncmp(line + 6, lat_units[u], k) &&
				    !strcmp(line + 6 + k, "\tcalls\tat_or_below"))
					t->unit = lat_units[u];
			}
			if (!t->unit)
				return tool_fail(err, EXIT_BADFILE, "line %lu: not a --latency "
						 "distribution of trace_run or trace_stats", no);
			header = 1;
			continue;
		}
		size_t name_len = strcspn(line, "\t");
		int c = 0;
		while (c < LAT_CLASSES && (strlen(lat_class_names[c]) != name_len ||
					    strncmp(line, lat_class_names[c], name_len)))
			c++;
		double v[3];
		const char *p = line + name_len;
		for (int k = 0; k < 3 && c < LAT_CLASSES; k++)
			if (*p++ != '\t' || number(p, &p, &v[k]) < 0)
				c = LAT_CLASSES;
		if (c == LAT_CLASSES || *p)
			return tool_fail(err, EXIT_BADFILE, "line %lu: not a class (malloc, "
					 "calloc, realloc, free, memalign) and three numbers", no);
		size_t i = t->n[c];
		if (v[1] < 1)
			return tool_fail(err, EXIT_BADFILE, "line %lu: a row of no calls (only "
					 "buckets that have some are written)", no);
		if (v[2] > 1 || (i && (v[0] < t->time[c][i - 1] || v[2] < t->share[c][i - 1]))) {
			tool_fail(err, EXIT_BADFILE, "line %lu: %s's rows must rise in %s and in "
				  "share, to at most 1", no, lat_class_names[c], t->unit);
			return -1;
		}
		if (i == LAT_ROWS)
			return tool_fail(err, EXIT_BADFILE, "line %lu: more than %d rows for %s",
					 no, LAT_ROWS, lat_class_names[c]);
		t->time[c][i] = v[0];
		t->share[c][i] = v[2];
		t->calls[c] += v[1];
		t->n[c]++;
	}
	if (ferror(f)) {
		tool_fail(err, EXIT_BADFILE, "%s", strerror(errno));
		return -1;
	}
	if (!header) {
		tool_fail(err, EXIT_BADFILE,
			  "not a --latency distribution of trace_run or trace_stats");
		return -1;
	}
	return 0;
}
