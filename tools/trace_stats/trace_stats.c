/* trace_stats - what a trace says about a program's allocations. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "emit.h"
#include "follow.h"
#include "sites_report.h"
#include "stats.h"
#include "tool.h"

static const char usage_text[] =
	"Usage: trace_stats [OPTION]... TRACE...\n"
	"       trace_stats --diff TRACE_A TRACE_B\n"
	"       trace_stats --sites [--depth=N] [--top=N] [--json] TRACE\n"
	"       trace_stats --collapsed [--what=peak|leaks|calls|allocated] TRACE\n"
	"Statistics of each trace (mtrace, dj/malloc, or compressed): calls by type and\n"
	"by thread, request sizes and lifetimes (power-of-two histograms), the ideal RSS\n"
	"peak and when it happened, blocks live at the end (leaks at stop) with the\n"
	"largest, allocator overhead, cross-thread frees, realloc behaviour, mmap and\n"
	"heap-growth calls (glibc traces), the most frequent sizes, and how long calls\n"
	"took where the trace says (realloc's always; every call's in a trace taken with\n"
	"mtracectl -d): average and percentiles by call type.  Records are taken in\n"
	"their global order; memory is bounded by the live blocks, not the trace's\n"
	"length.\n"
	"\n"
	"      --tsv        tab-separated: section, key, value(s)\n"
	"      --json       one JSON object per trace\n"
	"      --diff       two traces side by side, with the difference and the ratio\n"
	"      --follow     TRACE is still being written: a view of it every second\n"
	"                   (calls a second by kind, live bytes and blocks, the RSS, the\n"
	"                   largest blocks, the top call sites) until its writer is done\n"
	"  -i, --interval=MS  --follow's view every MS milliseconds (default 1000)\n"
	"      --sites      the top call sites of a trace taken with mtracectl --stacks:\n"
	"                   by bytes live at the ideal-RSS peak, by bytes never freed,\n"
	"                   by calls and by bytes allocated\n"
	"      --depth=N    a site is the N innermost frames of a stack (default 1)\n"
	"      --top=N      the sites each ranking lists (default 10)\n"
	"      --collapsed  one line per call stack, \"outer;...;inner BYTES\": the folded\n"
	"                   format flamegraph.pl, speedscope and inferno read\n"
	"      --what=W     what --collapsed weighs: peak (bytes live at the ideal-RSS\n"
	"                   peak, the default), leaks, calls or allocated (bytes)\n"
	"  -L, --latency=FILE  the recorded call durations (of one trace) as trace_run\n"
	"                   --latency writes call times, in the trace's clock ticks:\n"
	"                   trace_plot draws them beside a replay's\n"
	"  -p, --progress   show progress even when standard error is not a terminal (on\n"
	"                   a terminal it shows after a second)\n"
	"  -h, --help       show this help and exit\n"
	"  -V, --version    show the version and exit\n"
	"\n"
	"Exit status: 0 done; 1 a trace is missing, corrupt or truncated; 2 bad command\n"
	"line.\n";

/* -L: the recorded durations' histograms, as trace_run --latency writes its call times (in
   the trace's clock's unit: on x86 the TSC's cycles, as trace_run's, or nanoseconds).  0, or -1 when the
   trace holds no durations (nothing written). */
static int write_latency(const char *path, const struct stats *s)
{
	int any = 0;
	for (int c = 0; c < LAT_CLASSES; c++)
		any |= s->dur->max[c] != 0;
	if (!any) {
		tool_warn("%s: no call durations in it "
			  "(a trace taken with mtracectl -d has every call's)", s->name);
		return -1;
	}
	if (s->durations == 1)
		tool_warn("warning: %s: only realloc's durations are recorded without mtracectl -d",
			  s->name);
	const char *exe = strrchr(s->exe, '/') ? strrchr(s->exe, '/') + 1 :
			  s->exe[0] ? s->exe : "program";
	char title[400], tmp[TOOL_TMP_CAP];
	snprintf(title, sizeof title, "trace_stats latency: %s as traced, %s", exe,
		 trace_clock_name(s->clock));
	int fd = tool_output_open(path, tmp);
	int e = lat_write_tsv(fd, title, trace_clock_unit(s->clock),
			      (const uint64_t (*)[HIST_BUCKETS])s->dur->b, s->dur->max) < 0 ? errno : 0;
	tool_output_finish(path, fd, tmp, e);
	return 0;
}

int main(int argc, char **argv)
{
	tool_set_name("trace_stats", argv);
	static const struct option longopts[] = {
		{ "tsv", no_argument, 0, 1 },
		{ "json", no_argument, 0, 2 },
		{ "diff", no_argument, 0, 3 },
		{ "follow", no_argument, 0, 4 },
		{ "interval", required_argument, 0, 'i' },
		{ "sites", no_argument, 0, 6 },
		{ "collapsed", no_argument, 0, 7 },
		{ "what", required_argument, 0, 8 },
		{ "depth", required_argument, 0, 9 },
		{ "top", required_argument, 0, 10 },
		{ "progress", no_argument, 0, 'p' },
		{ "latency", required_argument, 0, 'L' },
		{ "help", no_argument, 0, 'h' },
		{ "version", no_argument, 0, 'V' },
		{ 0, 0, 0, 0 },
	};
	int c, want_diff = 0, progress = isatty(2);   /* tool_progress's on: 2 with -p */
	enum report_format fmt = REPORT_TEXT;
	const char *latency = NULL;
	int follow = 0;
	uint64_t interval_ms = 1000;
	struct sites_opts so = { .what = SITES_PEAK, .depth = 1, .top = 10 };
	int want_sites = 0, what_given = 0, top_given = 0;
	uint64_t v;
	while ((c = getopt_long(argc, argv, "L:i:phV", longopts, NULL)) != -1) {
		switch (c) {
		case 1: case 2:
			if (fmt != REPORT_TEXT && fmt != (c == 1 ? REPORT_TSV : REPORT_JSON))
				tool_die(EXIT_USAGE, "--tsv and --json: choose one");
			fmt = c == 1 ? REPORT_TSV : REPORT_JSON;
			break;
		case 3: want_diff = 1; break;
		case 4: follow = 1; break;
		case 'i':
			if (parse_u64(optarg, &interval_ms) < 0 || interval_ms < 10 ||
			    interval_ms > 3600000)
				tool_die(EXIT_USAGE, "--interval wants milliseconds (10 to 3600000), "
					 "not '%s'", optarg);
			break;
		case 6: want_sites = 1; break;
		case 7: so.collapsed = 1; break;
		case 8:
			for (so.what = 0; so.what < SITES_WHATS; so.what++)
				if (!strcmp(optarg, sites_what_names[so.what]))
					break;
			if (so.what == SITES_WHATS)
				tool_die(EXIT_USAGE, "--what wants peak, leaks, calls or allocated, "
					 "not '%s'", optarg);
			what_given = 1;
			break;
		case 9: case 10:
			if (parse_u64(optarg, &v) < 0 || v == 0 ||
			    v > (c == 9 ? MTRACE_STACK_DEPTH_MAX : 1000000))
				tool_die(EXIT_USAGE, "--%s wants a number from 1 to %u, not '%s'",
					 c == 9 ? "depth" : "top",
					 c == 9 ? MTRACE_STACK_DEPTH_MAX : 1000000, optarg);
			if (c == 9)
				so.depth = (unsigned)v, so.depth_given = 1;
			else
				so.top = (unsigned)v, top_given = 1;
			break;
		case 'p': progress = 2; break;
		case 'L': latency = optarg; break;
		case 'h': tool_help(usage_text);
		case 'V': tool_version();
		default: fputs("Try 'trace_stats --help'.\n", stderr); return EXIT_USAGE;
		}
	}
	if (optind == argc || (want_diff && argc - optind != 2)) {
		fprintf(stderr, "trace_stats: %s\nTry 'trace_stats --help'.\n",
			want_diff ? "--diff wants exactly two traces" : "no trace given");
		return EXIT_USAGE;
	}
	if (follow) {
		if (want_diff || latency || fmt != REPORT_TEXT || argc - optind != 1)
			tool_die(EXIT_USAGE, "--follow takes one trace, and no other output");
		return stats_follow(argv[optind], (unsigned)interval_ms) < 0 ? EXIT_BADFILE
									    : EXIT_OK;
	}
	if (want_sites || so.collapsed) {
		if (want_sites && so.collapsed)
			tool_die(EXIT_USAGE, "--sites and --collapsed: choose one");
		if (follow || want_diff || latency || fmt == REPORT_TSV || (so.collapsed && fmt == REPORT_JSON))
			tool_die(EXIT_USAGE, "--%s takes neither --follow, --diff, --latency nor --tsv%s",
				 want_sites ? "sites" : "collapsed",
				 so.collapsed ? " nor --json" : "");
		if (argc - optind != 1)
			tool_die(EXIT_USAGE, "--%s takes one trace", want_sites ? "sites" : "collapsed");
		so.json = fmt == REPORT_JSON;
		/* (a pipe or a compressed trace made a file: it is read twice) */
		const char *in = input_reopenable(argv[optind], trace_head_check, trace_copy, 1,
						  progress);
		int rc = report_sites(in, &so, progress);
		input_release(in);
		if (fflush(stdout) != 0)
			tool_die(EXIT_SYSTEM, "cannot write output: %s", strerror(errno));
		return rc;
	}
	if (what_given || so.depth_given || top_given)
		tool_die(EXIT_USAGE, "--what, --depth and --top are for --sites and --collapsed");
	if (latency && (want_diff || argc - optind != 1))
		tool_die(EXIT_USAGE, "--latency takes one trace");
	if (latency)
		latency = tool_check_output(latency, argv + optind, 1, 0);
	int bad = 0;
	if (want_diff) {
		struct stats a, b;
		if (stats_collect(argv[optind], &a, progress) < 0 ||
		    stats_collect(argv[optind + 1], &b, progress) < 0)
			return EXIT_BADFILE;
		if (fmt == REPORT_TEXT)
			for (int k = 0; k < 2; k++) {
				/* what each ran on and with:
				   a difference there explains the figures' */
				const struct stats *x = k ? &b : &a;
				int on = x->allocator[0] || x->settings[0];
				text_line("%c: %s%s%s%s%s%s\n", k ? 'B' : 'A', argv[optind + k],
					  on ? " (on " : "", !on ? "" : x->allocator[0]
					  ? x->allocator : "an allocator not named",
					  on ? ", with " : "", !on ? "" : x->settings[0]
					  ? x->settings : "no settings", on ? ")" : "");
			}
		report_diff(&a, &b, fmt);
		stats_release(&a);
		stats_release(&b);
	} else
		for (int i = optind; i < argc; i++) {
			struct stats s;
			if (stats_collect(argv[i], &s, progress) < 0)
				bad = 1;
			else {
				report_trace(&s, fmt);
				if (latency && write_latency(latency, &s) < 0)
					bad = 1;
			}
			stats_release(&s);
		}
	if (fflush(stdout) != 0)
		tool_die(EXIT_SYSTEM, "cannot write output: %s", strerror(errno));
	return bad ? EXIT_BADFILE : EXIT_OK;
}

