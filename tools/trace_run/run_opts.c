/* run_opts.c - trace_run's command line: its help text, its options parsed and checked. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "run_opts.h"
#include "tool.h"

static const char usage_text[] =
	"Usage: trace_run [OPTION]... WORKLOAD\n"
	"Replay a workload (from trace2wl, or an original dj/malloc .wl file) with one\n"
	"thread per stream, timing each allocator call (in cycles where the CPU has\n"
	"RDTSCP, else in nanoseconds: the summary names the unit) and sampling RSS over\n"
	"time.  WORKLOAD - reads standard input; a workload compressed with gzip, xz or\n"
	"zstd is decompressed first.\n"
	"\n"
	"  -m, --malloc=NAME       allocator: glibc (default), jemalloc, tcmalloc,\n"
	"                          mimalloc, or a path to a shared object (preloaded, in\n"
	"                          a fresh process); traced: the one the program ran on,\n"
	"                          with its settings\n"
	"  -C, --compare=A,B,...   replay with each allocator in a fresh process; one\n"
	"                          table; a column may have settings of its own,\n"
	"                          A(SETTING ...): glibc.NAME=V (tunable), M_NAME=V\n"
	"                          (mallopt), NAME=V (environment), e.g.\n"
	"                          'glibc,jemalloc(MALLOC_CONF=tcache:false)'\n"
	"  -r, --repeat=N          N runs in fresh processes (interleaved with\n"
	"                          --compare); medians; from 3 on, --compare marks ~ a\n"
	"                          ratio whose columns' runs overlap\n"
	"      --touch=MODE        after each allocation write to the block: resident\n"
	"                          (default: a byte a page of as much as the program had\n"
	"                          resident, where the workload says; else as pages),\n"
	"                          pages (one byte a page and the last byte), full\n"
	"                          (every byte), none\n"
	"      --pace[=F]          make each thread wait for the time its next call came\n"
	"                          in the program after an idle time (F times its speed;\n"
	"                          default 1)\n"
	"  -i, --interval=MS       sample VmRSS every MS milliseconds (default 10)\n"
	"  -l, --log=FILE          write the samples as TSV: time_ms vmrss_kb vmsize_kb\n"
	"                          ideal_kb calls anon_kb mapped_kb (and program_ms with\n"
	"                          --pace) (with --compare/--repeat: FILE.<allocator>,\n"
	"                          first run; a library by its file name, .N after it if\n"
	"                          two share one)\n"
	"  -L, --latency=FILE      write each call class's distribution of call times as\n"
	"                          TSV: class UNIT calls at_or_below (UNIT: cycles, ns\n"
	"                          or ticks, as the timer counts), a row per histogram\n"
	"                          bucket (trace_plot draws it; --compare/--repeat: as\n"
	"                          --log)\n"
	"  -M, --mallopt=NAME=VAL  call mallopt before the replay (glibc):\n"
	"                          M_MMAP_THRESHOLD, M_TRIM_THRESHOLD, M_TOP_PAD,\n"
	"                          M_MMAP_MAX, M_ARENA_MAX, M_ARENA_TEST, M_PERTURB,\n"
	"                          M_MXFAST; may be repeated\n"
	"  -T, --tunables=STRING   GLIBC_TUNABLES for the replay (e.g.\n"
	"                          glibc.malloc.tcache_count=0)\n"
	"      --trim-every=N      call malloc_trim(0) after every N calls of each\n"
	"                          thread\n"
	"      --threads=N         at most N replay threads at once (default: as many as\n"
	"                          the program had threads alive at once, from the\n"
	"                          workload; 10000 for workloads without that figure):\n"
	"                          streams beyond wait, in order, for a thread to come\n"
	"                          free (and one is added when a stream waits for one\n"
	"                          nobody has taken)\n"
	"      --timeout=S         end a replay in which no call completes for S seconds\n"
	"                          (an allocator that deadlocked) as a crash is, saying\n"
	"                          where (default 60; 0: never); --compare's other\n"
	"                          columns still print\n"
	"      --no-timing         do not time the calls (the timer costs more than a\n"
	"                          small malloc): for wall time and RSS alone; averages\n"
	"                          print as 0\n"
	"      --allow-failures    exit 0 when calls that succeeded in the program\n"
	"                          failed in the replay (they are reported all the same)\n"
	"      --csv, --json       the figures for scripts instead of the summary\n"
	"      --dj-summary        the summary's first 12 lines exactly as the original\n"
	"                          trace_run printed them (\"cycles\" whatever the timer,\n"
	"                          the sizeof line), for parsers that read them by line\n"
	"                          number\n"
	"  -p, --progress          show the workload's check and the calls replayed on\n"
	"                          stderr from the start (by default only on a terminal,\n"
	"                          after the first second)\n"
	"  -h, --help              show this help and exit\n"
	"  -V, --version           show the version and exit\n"
	"\n"
	"The summary's first 11 lines follow the original trace_run's (which had a 12th,\n"
	"\"sizeof ticks_t is 8\": --dj-summary), naming the timer's unit: Kb is KiB; \"usec\n"
	"across N threads\" is the replay threads' user CPU time; Max RSS is how much the\n"
	"peak resident set grew during the replay (START -> END), in --compare too.\n"
	"Calls that failed in the replay where the program's succeeded are counted on a\n"
	"line of their own after those, and mark a --compare column '!' (no ratios).  A\n"
	"workload with the program's memory samples gets a line after them that sets the\n"
	"program's peak anonymous RSS growth beside this replay's.\n"
	"\n"
	"Exit status: 0 done; 1 the workload is missing, malformed or would deadlock; 2\n"
	"bad command line; 3 the allocator or the system failed us (a crash, --timeout,\n"
	"not enough memory); 4 calls failed in the replay that succeeded in the program.\n";

/* --log's or --latency's file: not standard output (the summary's), and, where each run of
   --compare or --repeat writes FILE.ALLOCATOR, a name to add to.  What to open. */
static const char *check_output(const char *opt, const char *path, const struct run_opts *o,
				char *const *inputs)
{
	if (!strcmp(path, "-"))
		tool_die(EXIT_USAGE, "%s -: standard output carries the summary; name a file", opt);
	if ((o->compare || o->repeat > 1) && tool_output_in_place(path))
		tool_die(EXIT_USAGE,
			 "%s %s: with --compare or --repeat each run writes a file named "
			 "after it (%s.ALLOCATOR): give a file name",
			 opt, path, path);
	return tool_check_output(path, inputs, 1, OUTPUT_NO_STDOUT);
}

int run_opts_parse(int argc, char **argv, struct run_opts *o, int *workload)
{
	static struct run_variant cols[RUN_COLUMNS];
	static const struct option longopts[] = {
		{ "malloc", required_argument, 0, 'm' }, { "compare", required_argument, 0, 'C' },
		{ "repeat", required_argument, 0, 'r' }, { "touch", required_argument, 0, 9 },
		{ "interval", required_argument, 0, 'i' }, { "log", required_argument, 0, 'l' },
		{ "mallopt", required_argument, 0, 'M' }, { "tunables", required_argument, 0, 'T' },
		{ "trim-every", required_argument, 0, 1 }, { "csv", no_argument, 0, 2 },
		{ "json", no_argument, 0, 3 }, { "help", no_argument, 0, 'h' },
		{ "version", no_argument, 0, 'V' }, { "no-timing", no_argument, 0, 4 },
		{ "threads", required_argument, 0, 5 }, { "progress", no_argument, 0, 'p' },
		{ "latency", required_argument, 0, 'L' }, { "timeout", required_argument, 0, 6 },
		{ "allow-failures", no_argument, 0, 7 }, { "pace", optional_argument, 0, 8 },
		{ "dj-summary", no_argument, 0, 10 },
		{ 0, 0, 0, 0 },
	};
	*o = (struct run_opts){ .ro = { .touch = TOUCH_RESIDENT, .interval_ms = 10, .log_fd = -1,
					 .timeout_s = REPLAY_TIMEOUT_DEFAULT }, .cols = cols,
				.child_label = getenv("MTRACE_RUN_PROGRESS"),
				.child_column = getenv("MTRACE_RUN_COLUMN") };
	int ch;
	uint64_t v;
	char named[600];   /* "--malloc NAME", for its message */
	while ((ch = getopt_long(argc, argv, "m:C:r:i:l:L:M:T:phV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'm':
			if (!*optarg)
				tool_die(EXIT_USAGE,
					 "--malloc wants an allocator (glibc, jemalloc, tcmalloc, "
					 "mimalloc) or the path of a .so");
			if (strchr(optarg, '('))
				tool_die(EXIT_USAGE,
					 "--malloc %s: settings in parentheses are for --compare's "
					 "columns (--compare '%s' is one); for --malloc, give them "
					 "with --tunables, --mallopt or in the environment",
					 optarg, optarg);
			o->malloc_name = optarg;
			snprintf(named, sizeof named, "--malloc %s", optarg);
			allocator_check_name(optarg, named);
			break;
		case 'C': o->compare = optarg; break;
		case 'r':
			if (parse_u64(optarg, &v) < 0 || v == 0 || v > 1000)
				tool_die(EXIT_USAGE,
					 "--repeat wants a number from 1 to 1000, not '%s'",
					 optarg);
			o->repeat = (unsigned)v;
			break;
		case 9:
			if (!strcmp(optarg, "resident") || !strcmp(optarg, "default"))
				o->ro.touch = TOUCH_RESIDENT;
			else if (!strcmp(optarg, "pages"))
				o->ro.touch = TOUCH_PAGES;
			else if (!strcmp(optarg, "full"))
				o->ro.touch = TOUCH_FULL;
			else if (!strcmp(optarg, "none"))
				o->ro.touch = TOUCH_NONE;
			else
				tool_die(EXIT_USAGE,
					 "--touch wants resident, pages, full or none, not '%s'",
					 optarg);
			break;
		case 'i':
			if (parse_u64(optarg, &v) < 0 || v == 0 || v > 3600000)
				tool_die(EXIT_USAGE,
					 "--interval wants milliseconds (1 or more), not '%s'",
					 optarg);
			o->ro.interval_ms = (unsigned)v;
			break;
		case 'l': o->log = optarg; break;
		case 'L': o->latency = optarg; break;
		case 'M':
			check_mallopt(optarg, 0, "--mallopt");
			if (o->nmallopt < 32)
				o->mallopts[o->nmallopt++] = optarg;
			break;
		case 'T':
			/* checked once, in the command the user ran: not again after the
			   re-execution or in each run of --compare (a loader spawned each time) */
			if (!getenv("MTRACE_RUN_ENV") && !o->child_label)
				check_tunables(optarg, "--tunables");
			o->tunables = optarg;
			break;
		case 1:
			if (parse_u64(optarg, &o->ro.trim_every) < 0 || o->ro.trim_every == 0)
				tool_die(EXIT_USAGE,
					 "--trim-every wants a number of calls, not '%s'", optarg);
			break;
		case 4: o->ro.no_timing = 1; break;
		case 10: o->dj_summary = 1; break;
		case 7: o->allow_failures = 1; break;
		case 6:
			if (parse_u64(optarg, &v) < 0 || v > 86400 * 7)
				tool_die(EXIT_USAGE, "--timeout wants seconds (0: never), not '%s'",
					 optarg);
			o->ro.timeout_s = (unsigned)v;
			break;
		case 8: {
			char *end;
			o->ro.pace = optarg ? strtod(optarg, &end) : 1;
			if (optarg && (!*optarg || *end || !(o->ro.pace > 0 && o->ro.pace <= 1e6)))
				tool_die(EXIT_USAGE,
					 "--pace wants a speed factor above 0 (1: the program's "
					 "speed, 10: ten times faster), not '%s'",
					 optarg);
			break;
		}
		case 'p': o->ro.progress = 2; break;
		case 5:
			if (parse_u64(optarg, &v) < 0 || v == 0 || v > 1000000)
				tool_die(EXIT_USAGE,
					 "--threads wants a number from 1 to 1000000, not '%s'",
					 optarg);
			o->ro.max_threads = (unsigned)v;
			break;
		case 2: case 3:
			if (o->format && strcmp(o->format, ch == 2 ? "csv" : "json"))
				tool_die(EXIT_USAGE, "--csv and --json: choose one");
			o->format = ch == 2 ? "csv" : "json";
			break;
		case 'h': tool_help(usage_text);
		case 'V': tool_version();
		default: fputs("Try 'trace_run --help'.\n", stderr); return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		/* --compare glibc jemalloc x.wl: the list's other names came as operands */
		int names = o->compare && optind < argc - 1;
		for (int i = optind; names && i < argc - 1; i++)
			names = allocator_known_name(argv[i]);
		if (names) {
			char list[1024];
			int at = snprintf(list, sizeof list, "%s", o->compare);
			for (int i = optind; i < argc - 1 && at < (int)sizeof list; i++)
				at += snprintf(list + at, sizeof list - (size_t)at, ",%s", argv[i]);
			tool_die(EXIT_USAGE, "--compare's list is one argument, its names separated "
				 "by commas: --compare %s", list);
		}
		fprintf(stderr, "trace_run: %s\nTry 'trace_run --help'.\n",
			optind == argc ? "no workload given" : "one workload at a time");
		return EXIT_USAGE;
	}
	if (o->compare)
		o->ncompare = run_variants_parse(o->compare, cols, RUN_COLUMNS);
	if (o->dj_summary && (o->compare || o->format))
		tool_die(EXIT_USAGE, "--dj-summary is a replay's text summary: not with %s",
			 o->compare ? "--compare (a table)" : "--csv or --json");
	if (o->latency && o->ro.no_timing)
		tool_die(EXIT_USAGE,
			 "--latency and --no-timing: without the timer there are no call times");
	if (o->log)
		o->log = check_output("--log", o->log, o, argv + optind);
	if (o->latency)
		o->latency = check_output("--latency", o->latency, o, argv + optind);
	*workload = optind;
	return -1;
}
