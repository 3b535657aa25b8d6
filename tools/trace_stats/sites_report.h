/* sites_report.h - trace_stats --sites and --collapsed (sites_report.c) */
#ifndef SITES_REPORT_H
#define SITES_REPORT_H
#include "sites.h"

struct sites_opts {
	int collapsed;                /* --collapsed: folded stacks; else --sites */
	int json;
	enum sites_what what;         /* --collapsed's weight */
	unsigned depth;               /* the innermost frames a site is (--depth) */
	int depth_given;
	unsigned top;                 /* sites a ranking lists */
};

/* The report of the trace at path (a file, read twice): its exit status */
int report_sites(const char *path, const struct sites_opts *o, int progress);
#endif
