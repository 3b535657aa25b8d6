/* trace_plot - self-contained SVG charts of traces, replay timelines and comparisons. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lat_hist.h"
#include "order.h"
#include "svg.h"
#include "tool.h"
#include "u64map.h"
#include "wl_reader.h"
#include "plot.h"

static const char usage_text[] =
	"Usage: trace_plot [OPTION]... INPUT...\n"
	"Write a self-contained SVG chart (no script, no external font; opens in any browser).\n"
	"INPUT is a trace, one or more `trace_run --log` timelines "
	"or `--latency` distributions, or\n"
	"`trace_run --compare --csv` output; the kind of chart follows from it unless --kind says\n"
	"otherwise:\n"
	"  live      (a trace) live requested bytes over time, and the allocation rate\n"
	"  sizes     (a trace) request sizes, power-of-two histogram\n"
	"  lifetime  (a trace) block lifetimes, power-of-two histogram\n"
	"  rss       (timelines) VmRSS growth above the replay's start, and ideal RSS, over\n"
	"            time; several runs overlaid\n"
	"            (--vmsize adds a panel of VmSize, the address space); with a workload\n"
	"            among them, the program's anonymous RSS as traced beside the replays',\n"
	"            by the program's time where every timeline says where its replay was in\n"
	"            it, else by calls\n"
	"  compare   (compare CSV) wall time, Max RSS and the 99th percentile of malloc and free\n"
	"            per allocator\n"
	"  latency   (`trace_run --latency`, `trace_stats --latency` files) "
	"each call class's time\n"
	"            against its percentile (50%, 90%, 99%, 99.9%, ...); several runs overlaid\n"
	"\n"
	"  -k, --kind=KIND      one of the above\n"
	"  -o, --output=FILE    the SVG "
	"(default: the first INPUT's name + .KIND.svg; - for stdout)\n"
	"  -t, --title=TEXT     the chart's title\n"
	"      --label=NAME     legend name of the next timeline or distribution (repeatable;\n"
	"                       default: file names, the allocator for distributions)\n"
	"  -W, --width=N        width in pixels (default 900; 300 at least)\n"
	"      --height=N       height in pixels (default 560; 300 at least)\n"
	"      --vmsize         rss: VmSize too, in a panel of its own\n"
	"  -p, --progress       show progress even when standard error is not a terminal (on a\n"
	"                       terminal it shows after a second)\n"
	"  -h, --help           show this help and exit\n"
	"  -V, --version        show the version and exit\n"
	"\n"
	"Exit status: 0 done; 1 an input is missing or malformed (the error names where);\n"
	"2 bad command line; 3 the output could not be written.\n";

static int progress;   /* tool_progress's on: on a terminal, or 2 with -p */

/* ---------------------------------------------------------------------------------------------
   main
   ------------------------------------------------------------------------------------------- */

/* What trace_plot reads: a trace, or one of the text files guess_kind knows (input_check_fn) */
static const char *plot_head_check(const unsigned char *b, size_t n)
{
	static const char *const heads[] = { "time_ms\t", "# trace_run timeline: ", "cycles,wall_usec",
					     "# trace_run latency", "# trace_stats latency" };
	for (size_t i = 0; i < sizeof heads / sizeof *heads; i++)
		if (n >= strlen(heads[i]) && !memcmp(b, heads[i], strlen(heads[i])))
			return NULL;
	const char *why = trace_head_check(b, n);
	return !why ? NULL : strncmp(why, "not ", 4) ? why :
	       "neither a trace, a trace_run --log timeline, a --compare --csv table nor a latency "
	       "distribution (bad magic)";
}

/* A stream copied as far as it is what trace_plot reads: a trace record by record, the text
   files as text (input_copy_fn) */
static int plot_copy(struct input_copy *c, const unsigned char *head, size_t n, int src,
		     struct tool_err *e)
{
	return (trace_head_check(head, n) ? input_copy_text : trace_copy)(c, head, n, src, e);
}

static const char *guess_kind(const char *path)
{
	char head[40] = { 0 };
	FILE *f = plot_open_text(path);
	size_t n = fread(head, 1, sizeof head - 1, f);
	fclose(f);
	head[n] = 0;
	if (!strncmp(head, "time_ms\t", 8) || !strncmp(head, "# trace_run timeline: ", 22) ||
	    !strncmp(head, MTRACE_WL_MAGIC, MTRACE_WL_MAGIC_LEN))
		return "rss";
	if (!strncmp(head, "cycles,wall_usec", 16))
		return "compare";
	if (!strncmp(head, "# trace_run latency", 19) ||
	    !strncmp(head, "# trace_stats latency", 21))
		return "latency";
	return "live";
}

enum { OPT_VMSIZE = 256, OPT_LABEL, OPT_HEIGHT };

int main(int argc, char **argv)
{
	tool_set_name("trace_plot", argv);
	static const struct option longopts[] = {
		{ "kind", required_argument, 0, 'k' },
		{ "output", required_argument, 0, 'o' },
		{ "title", required_argument, 0, 't' },
		{ "label", required_argument, 0, OPT_LABEL },
		{ "width", required_argument, 0, 'W' },
		{ "height", required_argument, 0, OPT_HEIGHT },
		{ "progress", no_argument, 0, 'p' },
		{ "vmsize", no_argument, 0, OPT_VMSIZE },
		{ "help", no_argument, 0, 'h' },
		{ "version", no_argument, 0, 'V' },
		{ 0, 0, 0, 0 },
	};
	const char *kind = NULL, *out = NULL, *title = NULL, *labels[64] = { 0 };
	int nlabels = 0, c, vmsize = 0;
	uint64_t w = 900, h = 560;
	progress = isatty(2);
	while ((c = getopt_long(argc, argv, "k:o:t:W:phV", longopts, NULL)) != -1) {
		switch (c) {
		case 'k': kind = optarg; break;
		case 'o': out = optarg; break;
		case 't': title = optarg; break;
		case OPT_LABEL: if (nlabels < 64) labels[nlabels++] = optarg; break;
		case 'W':
			if (parse_u64(optarg, &w) < 0 || w < 300 || w > 10000)
				tool_die(EXIT_USAGE, "--width: 300 to 10000");
			break;
		case OPT_HEIGHT:
			if (parse_u64(optarg, &h) < 0 || h < 300 || h > 10000)
				tool_die(EXIT_USAGE, "--height: 300 to 10000");
			break;
		case 'p': progress = 2; break;
		case OPT_VMSIZE: vmsize = 1; break;
		case 'h': fputs(usage_text, stdout); return EXIT_OK;
		case 'V': tool_version();
		default: fputs("Try 'trace_plot --help'.\n", stderr); return EXIT_USAGE;
		}
	}
	if (optind == argc) {
		fputs("trace_plot: no input given\nTry 'trace_plot --help'.\n", stderr);
		return EXIT_USAGE;
	}
	/* a trace is read twice (its time range first): standard input or a pipe is copied to a
	   file, and the chart then goes to standard output unless -o says otherwise */
	int streams = 0;
	for (int i = optind; i < argc; i++)
		if (tool_input_is_stream(argv[i])) {
			if (streams++)
				tool_die(EXIT_USAGE,
					 "%s: only one input may be standard input or a pipe",
					 tool_display_name(argv[i]));
			argv[i] = (char *)input_reopenable(argv[i], plot_head_check, plot_copy, 0,
						   progress);
			if (!out)
				out = "-";
		}
	if (!kind)
		kind = guess_kind(argv[optind]);
	int ninputs = argc - optind;
	if (strcmp(kind, "live") && strcmp(kind, "sizes") && strcmp(kind, "lifetime") &&
	    strcmp(kind, "rss") && strcmp(kind, "compare") && strcmp(kind, "latency"))
		tool_die(EXIT_USAGE,
			 "unknown --kind '%s' (live, sizes, lifetime, rss, compare, latency)",
			 kind);
	if (vmsize && strcmp(kind, "rss"))
		tool_die(EXIT_USAGE, "--vmsize: only rss charts draw VmSize");
	if (strcmp(kind, "rss") && strcmp(kind, "latency") && ninputs != 1)
		tool_die(EXIT_USAGE,
			 "--kind=%s takes one input (only rss and latency overlay several)", kind);
	char def[4200];
	if (!out) {
		snprintf(def, sizeof def, "%s.%s.svg", argv[optind], kind);
		out = def;
	}
	out = tool_check_output(out, argv + optind, ninputs, 0);
	/* "-", /dev/stdout, a FIFO: in place; a file: renamed into place when complete (a failed
	   run, tool_die exiting, leaves no half-written output) */
	struct output o;
	FILE *f;
	if (output_open(&o, out, 0) < 0 || !(f = output_stdio(&o)))
		tool_die_err(&o.err);
	int in_place = !o.tmp[0];
	char exe[256] = "";
	/* rss: a workload among the timelines is the program,
	   whose samples are drawn beside them */
	struct wl_reader program = { 0 };
	char *timelines[256];
	int ntimelines = 0;
	if (!strcmp(kind, "rss"))
		for (int i = optind; i < argc; i++) {
			char head[MTRACE_WL_MAGIC_LEN] = { 0 };
			FILE *in = plot_open_text(argv[i]);
			size_t got = fread(head, 1, sizeof head, in);
			fclose(in);
			if (got < sizeof head ||
			    memcmp(head, MTRACE_WL_MAGIC, MTRACE_WL_MAGIC_LEN)) {
				if (ntimelines < 256)
					timelines[ntimelines++] = argv[i];
				continue;
			}
			if (program.map)
				tool_die(EXIT_USAGE, "%s: one workload (the program) at a time",
					 argv[i]);
			if (wl_open(&program, argv[i]) < 0)
				tool_die(EXIT_BADFILE, "%s", program.err.msg);
			if (!(program.h.flags & MTRACE_WL_HF_SAMPLES) || !program.h.nsamples)
				tool_die(EXIT_BADFILE,
					 "%s: the workload holds no memory samples of the program "
					 "(its trace has none): nothing to draw beside the replays",
					 argv[i]);
		}
	if (program.map && !ntimelines)
		tool_die(EXIT_USAGE, "the program's curve goes beside replays: "
			 "give their trace_run --log timelines too");
	if (program.map) {   /* the chart's title names it */
		const char *slash = strrchr(program.h.program, '/');
		snprintf(exe, sizeof exe, "%s", slash ? slash + 1 : program.h.program);
	}
	/* read (and fail) before writing anything */
	struct tracepass *tp = NULL;
	char t[600];
	if (!strcmp(kind, "live") || !strcmp(kind, "sizes") || !strcmp(kind, "lifetime")) {
		tp = malloc(sizeof *tp);
		if (!tp)
			tool_die(EXIT_SYSTEM, "out of memory");
		plot_trace_pass(argv[optind], tp, exe, sizeof exe, progress);
	}
	if (!title) {
		const char *what =
			!strcmp(kind, "live") ? "live requested bytes and allocation rate" :
			!strcmp(kind, "sizes") ? "request sizes" :
			!strcmp(kind, "lifetime") ? "block lifetimes" :
			!strcmp(kind, "rss") ?
				(program.map ? "the program's memory beside its replays'" :
					       "RSS over time") :
			!strcmp(kind, "latency") ? "call times, percentiles" :
			"allocators compared";
		snprintf(t, sizeof t, "%s%s%s", exe[0] ? exe : "", exe[0] ? ": " : "", what);
		title = t;
	}
	struct svg s;
	svg_begin(&s, f, (int)w, (int)h, title);
	if (!strcmp(kind, "live"))
		plot_live(&s, tp, (int)h);
	else if (!strcmp(kind, "sizes"))
		plot_hist(&s, tp->size_n, "requested size", SVG_BYTES, "allocations (count)",
			  (int)h);
	else if (!strcmp(kind, "lifetime"))
		plot_hist(&s, tp->life_n, "lifetime", SVG_SECONDS, "blocks freed (count)", (int)h);
	else if (!strcmp(kind, "rss") && program.map)
		plot_rss_program(&s, timelines, ntimelines, labels, &program, (int)h);
	else if (!strcmp(kind, "rss"))
		plot_rss(&s, argv + optind, ninputs, labels, (int)h, vmsize);
	else if (!strcmp(kind, "latency"))
		plot_latency(&s, argv + optind, ninputs, labels, (int)h);
	else
		plot_compare(&s, argv[optind], (int)h);
	svg_end(&s);
	if (output_commit(&o) < 0)
		tool_die_err(&o.err);
	if (!in_place)
		fprintf(stderr, "trace_plot: wrote %s\n", out);
	free(tp);
	return EXIT_OK;
}
