/* sites.h - a trace's bytes by call stack (traces taken with stacks, version 5): the blocks each
 * stack allocated, those live at the ideal-RSS peak (the peak live.h finds in the global order,
 * the one trace_stats reports) and those still live at the end, named through stacks.h; what
 * trace_stats --sites and --collapsed and trace_plot --flame report.
 *
 * Two passes over the file: the stacks, objects and names in file order (stacks.h), then the
 * calls in their global order (order.h), each allocating call under the stack its CALLER
 * record named (its thread's record just before it).  Memory: the live blocks and the
 * distinct stacks, never the trace's length.
 */
#ifndef SITES_H
#define SITES_H
#include <stddef.h>
#include <stdint.h>
#include "live.h"
#include "msg.h"
#include "u64map.h"

/* What a stack is weighed by */
enum sites_what { SITES_PEAK, SITES_LEAKS, SITES_CALLS, SITES_ALLOCATED, SITES_WHATS };
extern const char *const sites_what_names[SITES_WHATS];   /* "peak", "leaks", ... */

/* One stack's figures, or (sites_group) one site's: the stacks whose innermost frames agree */
struct site {
	uint32_t stack;               /* its id (0: the calls whose stack was not taken) */
	uint64_t calls;               /* allocating calls, failed ones too */
	uint64_t blocks, bytes;       /* blocks made and their requested bytes */
	uint64_t size;                /* their size, when every block had the same, + 1; 0 */
	uint64_t peak_n, peak_b;      /* blocks and bytes live at the ideal-RSS peak */
	uint64_t end_n, end_b;        /* never freed: live at the end */
	uint64_t live_n, live_b, epoch;   /* (while reading: live now, at which peak) */
	const char **frames;          /* names, innermost first (sites_collect: all of them) */
	unsigned nframes;
};

struct sites {
	const char *name;             /* the trace, for messages */
	struct site *v;               /* the stacks met, in order of first use */
	size_t n, cap;
	uint64_t calls, blocks, bytes;   /* the totals */
	uint64_t peak_b, peak_n, peak_call;   /* the ideal-RSS peak: bytes, blocks, which call */
	uint64_t end_b, end_n;
	uint32_t depth;               /* the header's stack_depth */
	uint32_t dropped;             /* and its stacks_dropped */
	/* (while reading) */
	struct u64map index;          /* stack id + 1 -> index in v + 1 */
	struct live live;             /* address -> block: size and index in v */
	uint64_t epoch;               /* new peaks so far */
	uint64_t *pending;            /* per thread: the stack id its last CALLER named + 1 */
	uint32_t npending;
	struct trace_stacks *st;
	char *names;                  /* the frames' names, end to end */
	size_t names_len, names_cap;
};

/* Read the trace at path (a file: read twice) into s.  0; -1 with e: a bad trace, memory, or a
   trace recorded without stacks (status EXIT_BADFILE, "recorded without --stacks: ..."). */
int sites_collect(const char *path, struct sites *s, int progress, struct tool_err *e);
void sites_free(struct sites *s);

/* The value of site x that w weighs */
uint64_t sites_value(const struct site *x, enum sites_what w);

/* The stacks grouped by their depth innermost frames (0: all), a new array of *n sites, each
   with the first stack's frames (nframes <= depth); NULL out of memory. */
struct site *sites_group(const struct sites *s, unsigned depth, size_t *n);
/* Order v (n sites) by w, the largest first (then by name: a stable report) */
void sites_sort(struct site *v, size_t n, enum sites_what w);

/* A frame's name made fit for the folded format (one line, "outer;...;inner COUNT"): ';' and
   line breaks replaced, into buf (cap bytes); returns buf */
char *sites_fold_name(char *buf, size_t cap, const char *name);
#endif
