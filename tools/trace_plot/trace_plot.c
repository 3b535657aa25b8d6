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
	"Write a self-contained SVG chart (no script, no external font; opens in any\n"
	"browser). INPUT is a trace, one or more `trace_run --log` timelines or\n"
	"`--latency` distributions, or `trace_run --compare --csv` output; the kind of\n"
	"chart follows from it unless --kind says otherwise:\n"
	"  live      (a trace) live requested bytes over time, and the allocation rate\n"
	"  sizes     (a trace) request sizes, power-of-two histogram\n"
	"  lifetime  (a trace) block lifetimes, power-of-two histogram\n"
	"  rss       (timelines) VmRSS growth above the replay's start, and ideal RSS,\n"
	"            over time; several runs overlaid (--vmsize adds a panel of VmSize,\n"
	"            the address space); with a workload among them, the program's\n"
	"            anonymous RSS as traced beside the replays', by the program's time\n"
	"            where every timeline says where its replay was in it, else by calls\n"
	"  compare   (compare CSV) wall time, Max RSS and the 99th percentile of malloc\n"
	"            and free per allocator\n"
	"  latency   (`trace_run --latency`, `trace_stats --latency` files) each call\n"
	"            class's time against its percentile (50%, 90%, 99%, 99.9%, ...);\n"
	"            several runs overlaid\n"
	"  flame     (a trace taken with mtracectl --stacks) a flame graph of the bytes\n"
	"            live at the ideal-RSS peak by call stack (--flame)\n"
	"  flame-leaks  the same of the bytes never freed (--flame=leaks)\n"
	"\n"
	"  -k, --kind=KIND      one of the above\n"
	"  -o, --output=FILE    the SVG (default: the first INPUT's name + .KIND.svg; -\n"
	"                       for stdout)\n"
	"  -t, --title=TEXT     the chart's title\n"
	"      --label=NAME     legend name of the next timeline or distribution\n"
	"                       (repeatable; default: file names, the allocator for\n"
	"                       distributions)\n"
	"  -W, --width=N        width in pixels (default 900; 300 at least)\n"
	"      --height=N       height in pixels (default 560; 300 at least)\n"
	"      --vmsize         rss: VmSize too, in a panel of its own\n"
	"      --flame[=WHAT]   --kind=flame (WHAT peak, the default) or flame-leaks\n"
	"                       (WHAT leaks)\n"
	"  -p, --progress       show progress even when standard error is not a terminal\n"
	"                       (on a terminal it shows after a second)\n"
	"  -h, --help           show this help and exit\n"
	"  -V, --version        show the version and exit\n"
	"\n"
	"Exit status: 0 done; 1 an input is missing or malformed (the error names\n"
	"where); 2 bad command line; 3 the output could not be written.\n";

static int progress;   /* tool_progress's on: on a terminal, or 2 with -p */

/* ---------------------------------------------------------------------------------------------
   The charts
   ------------------------------------------------------------------------------------------- */

/* What a chart is drawn from: the inputs and options, and what its reader made of them */
struct job {
	char **paths;                   /* the inputs */
	int n;
	const char **labels;
	int h, vmsize;
	int h_given;                    /* --height: else a flame graph is as high as its stacks */
	struct tracepass *tp;           /* a trace's chart: its pass */
	struct wl_reader program;       /* rss: a workload among the inputs, the program */
	char *timelines[256];           /* rss: the others */
	int ntimelines;
	char exe[256];                  /* the program traced, for the title */
	struct flame *flame;            /* a flame graph's stacks */
};

/* A chart: its --kind name, the text inputs it is guessed from by their first bytes, CHART_*
   flags; its reader (NULL: its drawing reads), run before anything is written, exiting on a
   bad input; its title (what_program: when a workload's program is drawn beside) and its
   drawing */
enum {
	CHART_MANY = 1,      /* overlays several inputs */
	CHART_VMSIZE = 2,    /* draws VmSize with --vmsize */
	CHART_PROGRAM = 4,   /* a workload among its inputs is the program (guessed from one) */
};
struct chart {
	const char *name;
	const char *const *heads;
	unsigned flags;
	void (*read)(struct job *j);
	const char *what, *what_program;
	void (*draw)(struct svg *s, struct job *j);
};

static void read_trace(struct job *j)
{
	j->tp = malloc(sizeof *j->tp);
	if (!j->tp)
		tool_die(EXIT_SYSTEM, "out of memory");
	plot_trace_pass(j->paths[0], j->tp, j->exe, sizeof j->exe, progress);
}

/* rss: a workload among the timelines is the program, whose samples are drawn beside them */
static void read_timelines(struct job *j)
{
	struct wl_reader *program = &j->program;
	for (int i = 0; i < j->n; i++) {
		char head[MTRACE_WL_MAGIC_LEN] = { 0 };
		FILE *in = plot_open_text(j->paths[i]);
		size_t got = fread(head, 1, sizeof head, in);
		fclose(in);
		if (got < sizeof head || memcmp(head, MTRACE_WL_MAGIC, MTRACE_WL_MAGIC_LEN)) {
			if (j->ntimelines < 256)
				j->timelines[j->ntimelines++] = j->paths[i];
			continue;
		}
		if (program->map)
			tool_die(EXIT_USAGE, "%s: one workload (the program) at a time",
				 j->paths[i]);
		if (wl_open(program, j->paths[i]) < 0)
			tool_die(EXIT_BADFILE, "%s", program->err.msg);
		if (!(program->h.flags & MTRACE_WL_HF_SAMPLES) || !program->h.nsamples)
			tool_die(EXIT_BADFILE,
				 "%s: the workload holds no memory samples of the program "
				 "(its trace has none): nothing to draw beside the replays",
				 j->paths[i]);
	}
	if (program->map && !j->ntimelines)
		tool_die(EXIT_USAGE, "the program's curve goes beside replays: "
			 "give their trace_run --log timelines too");
	if (program->map) {   /* the chart's title names it */
		const char *slash = strrchr(program->h.program, '/');
		snprintf(j->exe, sizeof j->exe, "%s", slash ? slash + 1 : program->h.program);
	}
}

/* A flame graph: its stacks, and the height they take if more than asked */
static void read_flame_of(struct job *j, enum sites_what what)
{
	j->flame = plot_flame_read(j->paths[0], what, progress);
	int need = plot_flame_height(j->flame);
	if (need > j->h || !j->h_given)
		j->h = need;
	const char *slash = strrchr(j->paths[0], '/');
	snprintf(j->exe, sizeof j->exe, "%s", tool_display_name(slash ? slash + 1 : j->paths[0]));
}

static void read_flame(struct job *j)
{
	read_flame_of(j, SITES_PEAK);
}

static void read_flame_leaks(struct job *j)
{
	read_flame_of(j, SITES_LEAKS);
}

static void draw_flame(struct svg *s, struct job *j)
{
	plot_flame(s, j->flame, j->h);
}

static void draw_live(struct svg *s, struct job *j)
{
	plot_live(s, j->tp, j->h);
}

static void draw_sizes(struct svg *s, struct job *j)
{
	plot_hist(s, j->tp->size_n, "requested size", SVG_BYTES, "allocations (count)", j->h);
}

static void draw_lifetime(struct svg *s, struct job *j)
{
	plot_hist(s, j->tp->life_n, "lifetime", SVG_SECONDS, "blocks freed (count)", j->h);
}

static void draw_rss(struct svg *s, struct job *j)
{
	if (j->program.map)
		plot_rss_program(s, j->timelines, j->ntimelines, j->labels, &j->program, j->h);
	else
		plot_rss(s, j->paths, j->n, j->labels, j->h, j->vmsize);
}

static void draw_compare(struct svg *s, struct job *j)
{
	plot_compare(s, j->paths[0], j->h);
}

static void draw_latency(struct svg *s, struct job *j)
{
	plot_latency(s, j->paths, j->n, j->labels, j->h);
}

static const char *const timeline_heads[] = { "time_ms\t", "# trace_run timeline: ", NULL };
static const char *const compare_heads[] = { "cycles,wall_usec", NULL };
static const char *const latency_heads[] = { "# trace_run latency", "# trace_stats latency",
					     NULL };

/* The first is a trace's, the chart of an input no other's heads name */
static const struct chart charts[] = {
	{ "live", NULL, 0, read_trace, "live requested bytes and allocation rate", NULL,
	  draw_live },
	{ "sizes", NULL, 0, read_trace, "request sizes", NULL, draw_sizes },
	{ "lifetime", NULL, 0, read_trace, "block lifetimes", NULL, draw_lifetime },
	{ "rss", timeline_heads, CHART_MANY | CHART_VMSIZE | CHART_PROGRAM, read_timelines,
	  "RSS over time", "the program's memory beside its replays'", draw_rss },
	{ "compare", compare_heads, 0, NULL, "allocators compared", NULL, draw_compare },
	{ "latency", latency_heads, CHART_MANY, NULL, "call times, percentiles", NULL,
	  draw_latency },
	{ "flame", NULL, 0, read_flame, "bytes live at the ideal-RSS peak by call stack", NULL,
	  draw_flame },
	{ "flame-leaks", NULL, 0, read_flame_leaks, "bytes never freed by call stack", NULL,
	  draw_flame },
};
#define NCHARTS (sizeof charts / sizeof *charts)

/* The chart of a text input that starts with head's n bytes, or NULL */
static const struct chart *chart_of_head(const char *head, size_t n)
{
	for (size_t c = 0; c < NCHARTS; c++)
		for (const char *const *h = charts[c].heads; h && *h; h++)
			if (n >= strlen(*h) && !memcmp(head, *h, strlen(*h)))
				return &charts[c];
	return NULL;
}

/* The names of the charts with every flag of mask, "a, b and c" (last: what goes before c) */
static const char *chart_names(char *buf, size_t cap, unsigned mask, const char *last)
{
	size_t k = 0, n = 0, total = 0;
	for (size_t c = 0; c < NCHARTS; c++)
		total += (charts[c].flags & mask) == mask;
	buf[0] = 0;
	for (size_t c = 0; c < NCHARTS; c++)
		if ((charts[c].flags & mask) == mask && k < cap) {
			n++;
			k += (size_t)snprintf(buf + k, cap - k, "%s%s",
					      n == 1 ? "" : n == total ? last : ", ",
					      charts[c].name);
		}
	return buf;
}

/* ---------------------------------------------------------------------------------------------
   main
   ------------------------------------------------------------------------------------------- */

/* What trace_plot reads: a trace, or one of the text files a chart is guessed from
   (input_check_fn) */
static const char *plot_head_check(const unsigned char *b, size_t n)
{
	if (chart_of_head((const char *)b, n))
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

static const struct chart *guess_chart(const char *path)
{
	char head[40] = { 0 };
	FILE *f = plot_open_text(path);
	size_t n = fread(head, 1, sizeof head - 1, f);
	fclose(f);
	const struct chart *c = chart_of_head(head, n);
	if (!c && n >= MTRACE_WL_MAGIC_LEN && !memcmp(head, MTRACE_WL_MAGIC, MTRACE_WL_MAGIC_LEN))
		for (c = charts; !(c->flags & CHART_PROGRAM); c++)
			;
	return c ? c : &charts[0];
}

enum { OPT_VMSIZE = 256, OPT_LABEL, OPT_HEIGHT, OPT_FLAME };

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
		{ "flame", optional_argument, 0, OPT_FLAME },
		{ "help", no_argument, 0, 'h' },
		{ "version", no_argument, 0, 'V' },
		{ 0, 0, 0, 0 },
	};
	const char *kind = NULL, *out = NULL, *title = NULL, *labels[64] = { 0 };
	int nlabels = 0, c, vmsize = 0, h_given = 0;
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
			h_given = 1;
			break;
		case 'p': progress = 2; break;
		case OPT_VMSIZE: vmsize = 1; break;
		case OPT_FLAME:
			if (optarg && strcmp(optarg, "peak") && strcmp(optarg, "leaks"))
				tool_die(EXIT_USAGE, "--flame wants peak or leaks, not '%s'", optarg);
			if (kind && strncmp(kind, "flame", 5))
				tool_die(EXIT_USAGE, "--flame and --kind=%s: choose one", kind);
			kind = optarg && !strcmp(optarg, "leaks") ? "flame-leaks" : "flame";
			break;
		case 'h': tool_help(usage_text);
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
	const struct chart *ch = NULL;
	char names[200];
	for (size_t i = 0; kind && i < NCHARTS; i++)
		if (!strcmp(kind, charts[i].name))
			ch = &charts[i];
	if (!kind)
		ch = guess_chart(argv[optind]);
	else if (!ch)
		tool_die(EXIT_USAGE, "unknown --kind '%s' (%s)", kind,
			 chart_names(names, sizeof names, 0, ", "));
	kind = ch->name;
	int ninputs = argc - optind;
	if (vmsize && !(ch->flags & CHART_VMSIZE))
		tool_die(EXIT_USAGE, "--vmsize: only %s charts draw VmSize",
			 chart_names(names, sizeof names, CHART_VMSIZE, " and "));
	if (!(ch->flags & CHART_MANY) && ninputs != 1)
		tool_die(EXIT_USAGE, "--kind=%s takes one input (only %s overlay several)", kind,
			 chart_names(names, sizeof names, CHART_MANY, " and "));
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
	static struct job j;   /* (zeroed: a reader fills what its chart needs) */
	j.paths = argv + optind;
	j.n = ninputs;
	j.labels = labels;
	j.h = (int)h;
	j.vmsize = vmsize;
	j.h_given = h_given;
	if (ch->read)   /* read (and fail) before writing anything */
		ch->read(&j);
	char t[600];
	if (!title) {
		const char *what = j.program.map && ch->what_program ? ch->what_program : ch->what;
		snprintf(t, sizeof t, "%s%s%s", j.exe[0] ? j.exe : "", j.exe[0] ? ": " : "", what);
		title = t;
	}
	struct svg s;
	svg_begin(&s, f, (int)w, j.h, title);
	ch->draw(&s, &j);
	svg_end(&s);
	if (output_commit(&o) < 0)
		tool_die_err(&o.err);
	if (!in_place)
		fprintf(stderr, "trace_plot: wrote %s\n", out);
	free(j.tp);
	return EXIT_OK;
}
