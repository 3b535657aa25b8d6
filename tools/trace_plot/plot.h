/* plot.h - trace_plot's chart kinds and the inputs they read, one file each: plot_trace.c (a
 * trace), plot_text.c (text inputs, timelines), plot_rss.c, plot_compare.c, plot_latency.c. */
#ifndef PLOT_H
#define PLOT_H
#include <stdint.h>
#include <stdio.h>
#include "sites.h"
#include "svg.h"
#include "live.h"
#include "wl_reader.h"

/* ---------------------------------------------------------------------------------------------
   A trace (plot_trace.c)
   ------------------------------------------------------------------------------------------- */

#define NBINS 2000   /* time bins of the live chart */
#define NB 65        /* power-of-two buckets: 0, then [2^(k-1), 2^k) */

/* a block live: its requested bytes and its order point */
struct plot_block { uint64_t size, born; };

struct tracepass {
	uint64_t t0, t1;                   /* the time range, from a first quick pass */
	double tps;
	struct live live;                  /* address -> struct plot_block */
	double lo[NBINS], hi[NBINS];        /* live bytes: each bin's lowest and highest */
	uint64_t allocs[NBINS];
	int seen[NBINS];
	uint64_t size_n[NB], life_n[NB];
};

void plot_trace_pass(const char *path, struct tracepass *p, char *exe, size_t cap, int progress);
void plot_live(struct svg *s, const struct tracepass *p, int h);
void plot_hist(struct svg *s, const uint64_t *n, const char *what, enum svg_unit xu,
	       const char *counted, int h);

/* ---------------------------------------------------------------------------------------------
   Text inputs (plot_text.c): each function exits naming the file and line of what is wrong
   ------------------------------------------------------------------------------------------- */

/* a trace_run --log timeline */
struct series {
	double *t, *rss, *vsz, *ideal;
	double *calls, *anon, *prog_t;   /* later columns (calls, anon_kb, program_ms): NULL if
	                                    absent */
	int col[3];                      /* their places in a line, -1 absent */
	size_t n, cap;
	char name[160];                  /* the run its first line names, or "" (older ones) */
};

FILE *plot_open_text(const char *path);
int plot_next_line(FILE *f, char *line, size_t cap, const char *path, unsigned long no);
int plot_amount(const char *s, const char **end, double *out);
void plot_read_timeline(const char *path, struct series *s);

/* ---------------------------------------------------------------------------------------------
   The other charts
   ------------------------------------------------------------------------------------------- */

void plot_rss_program(struct svg *sv, char **paths, int n, const char **labels,
		      const struct wl_reader *w, int h);
void plot_rss(struct svg *sv, char **paths, int n, const char **labels, int h, int vmsize);
void plot_compare(struct svg *sv, const char *path, int h);
void plot_latency(struct svg *sv, char **paths, int n, const char **labels, int h);
/* ---------------------------------------------------------------------------------------------
   A flame graph of a trace taken with stacks (plot_flame.c)
   ------------------------------------------------------------------------------------------- */
struct flame;
/* Read the trace at path (a file: read twice); exits naming it if it is bad or has no stacks */
struct flame *plot_flame_read(const char *path, enum sites_what what, int progress);
/* The height its stacks take */
int plot_flame_height(const struct flame *f);
void plot_flame(struct svg *s, const struct flame *f, int h);
#endif
