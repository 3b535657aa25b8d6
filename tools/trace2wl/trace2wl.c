/* trace2wl - convert traces into a compact per-thread workload for trace_run. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "convert.h"
#include "dj_wl.h"
#include "progmem.h"
#include "tool.h"
#include "units.h"
#include "wl_reader.h"

/* --follow: how often a growing trace is looked at, and how long a received one (its writer
   elsewhere) may stay still before it is taken as complete */
#define FOLLOW_POLL_MS 100
#define FOLLOW_IDLE_MS 10000

static const char usage_text[] =
	"Usage: trace2wl [OPTION]... OUTFILE [TRACE]...\n"
	"  or:  trace2wl [OPTION]... -o OUTFILE [TRACE]...\n"
	"Convert the traces of one process into a workload: per-thread streams of\n"
	"allocator calls with slots instead of addresses, in an order that can really\n"
	"happen, with the cross-thread waits that order needs.  Reads standard input\n"
	"when no TRACE is given. TRACE may be an mtrace trace (any byte order or pointer\n"
	"size), an original dj/malloc trace, or either compressed with gzip, xz or zstd.\n"
	"Several traces of one process (a split trace) are read in the order given;\n"
	"traces of other processes, the same file twice, split files out of the order\n"
	"written, or the images before and after an exec are refused.\n"
	"\n"
	"  -o, --output=FILE  write the workload to FILE (else the first operand is\n"
	"                     OUTFILE)\n"
	"      --dj-format=FILE  also write FILE in the original dj/malloc workload\n"
	"                   encoding (for harnesses built on the old trace_run)\n"
	"      --pace-threshold=US  mark where a thread was idle US microseconds or more\n"
	"                   before its next call (default 1000; 0: nowhere), for\n"
	"                   trace_run --pace\n"
	"      --follow     TRACE is still being written: convert what is final as it\n"
	"                   comes, and finish when its writer is done\n"
	"  -p, --progress   show progress on stderr (default: when stderr is a terminal)\n"
	"  -q, --quiet      no summary\n"
	"  -h, --help       show this help and exit\n"
	"  -V, --version    show the version and exit\n"
	"\n"
	"OUTFILE is written under a temporary name and renamed when complete; it may not\n"
	"be one of the inputs, nor an existing trace (it would be replaced).  OUTFILE -\n"
	"is standard output, written when the conversion is complete (trace2wl - TRACE |\n"
	"trace_run -). Exit status: 0 done; 1 a trace is missing, corrupt or truncated,\n"
	"or not valid for ordering (its clock stood still); 2 bad command line; 3 the\n"
	"output could not be written.\n";


/* What a version-2 trace added: the program's own mappings (and whether most of its memory
   bypassed malloc), its samples, its pace, what large blocks had resident */
static void program_memory(FILE *o, const struct convert_stats *s,
			   const struct mtrace_wl_header *h)
{
	char a[40], b[40], c[40], d[40];
	if (h->flags & MTRACE_WL_HF_MAPPINGS) {
		char e[40], f[40], g[40];
		fprintf(o,
			"  own mappings     the program's: mmap %s, munmap %s, mremap %s, brk %s;\n"
			"                   %s at the most (replayed)\n",
			fmt_commas(a, s->prog_maps), fmt_commas(b, s->prog_unmaps),
			fmt_commas(c, s->prog_remaps), fmt_commas(d, s->prog_brks),
			units_bytes(e, sizeof e, s->mapped_peak));
		if (s->own_maps)
			fprintf(o,
				"                   the allocator's: mmap %s, %s at the most "
				"(not replayed)\n",
				fmt_commas(f, s->own_maps), units_bytes(g, sizeof g, s->own_peak));
		/* most of its memory bypassed malloc: a replay of its allocator calls alone would
		   say little of the program */
		if (s->mapped_peak > h->ideal_rss)
			fprintf(o,
				"  note: most of this program's memory bypassed malloc: "
				"it mapped %s itself\n"
				"        at the most, against %s of live blocks at the most\n",
				units_bytes(a, sizeof a, s->mapped_peak),
				units_bytes(b, sizeof b, h->ideal_rss));
	}
	if (h->flags & MTRACE_WL_HF_SAMPLES) {
		uint64_t growth = s->anon_peak > s->anon_first ? s->anon_peak - s->anon_first : 0;
		fprintf(o,
			"  memory samples   %s: anonymous RSS %s at the most, %s above the first\n",
			fmt_commas(a, s->samples), units_bytes(b, sizeof b, s->anon_peak),
			units_bytes(c, sizeof c, growth));
		/* what its calls and mappings show against what it held: an allocator of its own,
		   or calls the tracer did not see, leave the rest unexplained */
		if (growth > 2 * (h->ideal_rss + s->mapped_peak))
			fprintf(o,
				"  note: the program's anonymous RSS grew by %s, "
				"more than twice its live\n"
				"        blocks and own mappings at the most (%s): "
				"memory the trace does not see\n",
				units_bytes(a, sizeof a, growth),
				units_bytes(b, sizeof b, h->ideal_rss + s->mapped_peak));
	}
	if (h->flags & MTRACE_WL_HF_PACE)
		fprintf(o,
			"  pace             %s idle times of %s us or more marked, over %.3f s\n",
			fmt_commas(a, s->pace_marks), fmt_commas(b, h->pace_us),
			(double)h->duration_us / 1e6);
	if (h->flags & MTRACE_WL_HF_RESIDENT) {
		fprintf(o,
			"  resident         %s of %s blocks of %s bytes or more "
			"say what was resident",
			fmt_commas(a, s->resident_known),
			fmt_commas(b, s->resident_marks - h->counts[MTRACE_WL_MAP] -
					      h->counts[MTRACE_WL_REMAP]),
			fmt_commas(c, h->resident_min));
		if (s->resident_live)
			fprintf(o, " (%s of them at the end, still live)",
				fmt_commas(a, s->resident_live));
		fputc('\n', o);
	}
}

static void summary(const char *out, const struct convert_stats *s,
		    const struct mtrace_wl_header *h)
{
	/* made whole, then broken at spaces to fit a terminal (never inside a number) */
	char *text = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&text, &len);
	if (!o)
		return;
	char a[32], b[32], c[32], d[32], e[80] = "";
	uint64_t size = h->file_size, maps = MTRACE_WL_MAP_OPS(h->counts), calls = s->ops - maps;
	if (!strcmp(out, "-"))
		out = "<stdout>";
	if (maps)   /* (the calls counted are the allocator's, in every tool) */
		snprintf(e, sizeof e, " and %s mapping call%s", fmt_commas(a, maps),
			 maps == 1 ? "" : "s");
	fprintf(o,
		"trace2wl: wrote %s: %s call%s%s in %llu thread%s, %s waits, %s slots, %s bytes", out,
		fmt_commas(a, calls), calls == 1 ? "" : "s", e, (unsigned long long)s->threads,
		s->threads == 1 ? "" : "s", fmt_commas(b, s->waits), fmt_commas(c, s->slots),
		fmt_commas(d, size));
	if (s->ops)
		fprintf(o, " (%.2f per call)", (double)size / (double)s->ops);
	fprintf(o, "\n  records read     %s\n  calls by type   ", fmt_commas(a, s->records));
	for (unsigned t = 1; t <= MTRACE_CALL_LAST_API; t++)
		if (s->calls[t])
			fprintf(o, " %s %s", mtrace_call_name(t), fmt_commas(a, s->calls[t]));
	if (!s->records)
		fputs(" none (the program made no allocator call while traced)", o);
	fprintf(o, "\n  ideal RSS peak   %s bytes, after %s calls\n",
		fmt_commas(a, h->ideal_rss), fmt_commas(b, h->ideal_rss_call));
	fprintf(o, "  threads at once  %s (alive from their first call to their last)\n",
		fmt_commas(a, h->max_live_threads));
	fprintf(o, "  free(NULL) %s, realloc(NULL, n) %s, realloc(p, 0) %s, failed calls %s\n",
		fmt_commas(a, s->free_null), fmt_commas(b, s->realloc_null),
		fmt_commas(c, s->realloc_zero), fmt_commas(d, s->failed));
	fprintf(o,
		"  skipped: %s frees of blocks not live "
		"(allocated before tracing, or freed twice)\n",
		fmt_commas(a, s->skipped_free));
	fprintf(o, "  replayed from NULL: %s reallocs of blocks not live\n",
		fmt_commas(a, s->realloc_unknown));
	fprintf(o,
		"  repaired: %s allocations of a still-live address, %s records out of order\n",
		fmt_commas(a, s->repaired_live), fmt_commas(b, s->late));
	if (s->torn)
		fprintf(o,
			"  %s partly written records skipped (the traced process was killed)\n",
			fmt_commas(a, s->torn));
	if (s->stalls)
		fprintf(o,
			"  %s chunks taken at the clock value of the chunk before (their calls' "
			"order may be wrong)\n", fmt_commas(a, s->stalls));
	program_memory(o, s, h);
	if (h->allocator[0])
		fprintf(o, "  allocator        %s (the one the program ran on)\n",
			h->allocator);
	if (h->settings[0])
		fprintf(o,
			"  settings         %s (the allocators' settings the program ran with)\n",
			h->settings);
	if (wl_settings_set(h)[0])
		fprintf(o, "  set as it ran    %s (by the program: mallopt, its allocator's own "
			"interface)\n", wl_settings_set(h));
	fclose(o);
	print_wrapped(stderr, text, tool_term_width(), 19);
	free(text);
}

/* Several TRACEs are the split files of one process, in the order written: another process's
   trace, the same file twice, or files out of order would make a workload of calls that never
   ran together (and "repair" the inversions).  0, or -1 with the reason in why. */
/* The previous input, for what the next one must share with it */
struct first_input {
	int set, format;
	int32_t pid;
	uint64_t start_ticks;
	const char *name;
	int finished;    /* its writer stopped cleanly (mtrace_stop, exit): a split can follow */
	char exe[4096];
};

static void remember(struct first_input *f, const struct trace_reader *r)
{
	f->set = 1;
	f->format = r->format;
	f->pid = r->hdr.pid;
	f->start_ticks = r->hdr.start_ticks;
	f->name = r->name;
	f->finished = r->format != TRACE_FMT_MTRACE || (r->hdr.flags & MTRACE_HF_FINISHED);
	snprintf(f->exe, sizeof f->exe, "%s", r->exe);
}

static int same_process(struct first_input *f, const struct trace_reader *r, char *why, size_t cap)
{
	if (!f->set) {
		remember(f, r);
		return 0;
	}
	if (r->format != f->format)
		snprintf(why, cap, "%s and %s: one is an mtrace trace, the other a dj/malloc trace",
			 f->name, r->name);
	else if (r->format == TRACE_FMT_MTRACE && r->hdr.pid != f->pid)
		snprintf(why, cap,
			 "%s is of pid %d, %s of pid %d: several traces must be the split "
			 "files of one process",
			 r->name, (int)r->hdr.pid, f->name, (int)f->pid);
	else if (r->format == TRACE_FMT_MTRACE && r->hdr.start_ticks < f->start_ticks)
		snprintf(why, cap, "%s began before %s: give split traces in the order written",
			 r->name, f->name);
	/* a trace left unfinished ended by exec (or death): what follows with its pid is another
	   program image, whose addresses have nothing to do with it */
	else if (r->format == TRACE_FMT_MTRACE && !f->finished)
		snprintf(why, cap,
			 "%s did not end cleanly (its process exec'd another program, or died): "
			 "%s is a new program image of pid %d; convert each on its own",
			 f->name, r->name, (int)r->hdr.pid);
	else if (r->format == TRACE_FMT_MTRACE && f->exe[0] && r->exe[0] && strcmp(f->exe, r->exe))
		snprintf(why, cap,
			 "%s is of %.300s, %s of %.300s: several traces must be the split files "
			 "of one program",
			 r->name, r->exe, f->name, f->exe);
	else {
		remember(f, r);
		return 0;
	}
	return -1;
}

/* Does path begin with a trace's magic? */
static int is_trace(const char *path)
{
	char head[MTRACE_MAGIC_LEN];
	FILE *f = fopen(path, "rb");
	int yes = f && fread(head, 1, sizeof head, f) == sizeof head &&
		  !memcmp(head, MTRACE_MAGIC, MTRACE_MAGIC_LEN);
	if (f)
		fclose(f);
	return yes;
}

/* The same file given twice (by any name). */
static void no_duplicates(char **inputs, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (tool_same_file(inputs[i], inputs[j]))
				tool_die(EXIT_USAGE,
					 "%s and %s are the same file: each split trace once",
					 inputs[i], inputs[j]);
}

int main(int argc, char **argv)
{
	tool_set_name("trace2wl", argv);
	static const struct option longopts[] = {
		{ "progress", no_argument, 0, 'p' },
		{ "quiet", no_argument, 0, 'q' },
		{ "dj-format", required_argument, 0, 2 },
		{ "output", required_argument, 0, 'o' },
		{ "pace-threshold", required_argument, 0, 1 },
		{ "follow", no_argument, 0, 3 },
		{ "help", no_argument, 0, 'h' },
		{ "version", no_argument, 0, 'V' },
		{ 0, 0, 0, 0 },
	};
	int c, quiet = 0, follow = 0;
	const char *dj = NULL, *out = NULL;
	uint64_t pace_us = 1000;
	int progress = isatty(2);
	while ((c = getopt_long(argc, argv, "o:pqhV", longopts, NULL)) != -1) {
		switch (c) {
		case 2: dj = optarg; break;
		case 3: follow = 1; break;
		case 'o': out = optarg; break;
		case 1:
			if (parse_u64(optarg, &pace_us) < 0 || pace_us > 3600u * 1000000)
				tool_die(EXIT_USAGE,
					 "--pace-threshold wants microseconds (0 to 3600000000), "
					 "not '%s'",
					 optarg);
			break;
		case 'p': progress = 2; break;
		case 'q': quiet = 1; break;
		case 'h': tool_help(usage_text);
		case 'V': tool_version();
		default: fputs("Try 'trace2wl --help'.\n", stderr); return EXIT_USAGE;
		}
	}
	int positional = !out;   /* OUTFILE TRACE..., dj/malloc's order */
	if (positional && optind == argc) {
		fputs("trace2wl: no output file given\nTry 'trace2wl --help'.\n", stderr);
		return EXIT_USAGE;
	}
	if (positional)
		out = argv[optind++];
	static char *stdin_only[] = { "-", NULL };
	char **inputs = optind < argc ? argv + optind : stdin_only;
	int ninputs = optind < argc ? argc - optind : 1;
	if (optind == argc && isatty(0))
		tool_die(EXIT_USAGE,
			 "no TRACE given, and standard input is a terminal (the output comes "
			 "first: trace2wl OUTFILE TRACE...)");
	if (dj && (tool_output_in_place(out) || tool_output_in_place(dj)))
		tool_die(EXIT_USAGE,
			 "--dj-format is made from the workload written to a file: name files "
			 "for both");
	if (dj && (!strcmp(dj, out) || tool_same_file(dj, out)))
		tool_die(EXIT_USAGE,
			 "%s: the workload and its --dj-format copy would be the same file", dj);
	struct tool_err e;
	const char *checked = output_check(out, inputs, ninputs, 0, &e);
	int is_input = 0;
	for (int i = 0; i < ninputs; i++)
		is_input |= tool_same_file(out, inputs[i]);
	if (!checked && positional && !is_input && is_trace(out))
		tool_die(EXIT_USAGE, "%s is a trace: the output comes first (trace2wl OUTFILE "
			 "TRACE..., or trace2wl -o OUTFILE TRACE...)", out);
	if (!checked)
		tool_die_err(&e);
	out = checked;
	no_duplicates(inputs, ninputs);
	for (int i = 0; follow && i < ninputs; i++)
		if (!strcmp(inputs[i], "-"))
			tool_die(EXIT_USAGE, "--follow reads a file being written: name it");
	if (dj)
		dj = tool_check_output(dj, inputs, ninputs, 0);

	struct wl_writer w;
	if (wl_writer_open(&w, out) < 0)
		tool_die_err(&w.err);
	struct convert cv;
	if (convert_begin(&cv, &w) < 0) {
		wl_writer_abort(&w);
		tool_die(EXIT_SYSTEM, "%s", cv.err.msg);
	}
	cv.pace_us = (uint32_t)pace_us;
	struct first_input first = { 0 };
	for (int i = 0; i < ninputs; i++) {
		struct trace_reader r;
		if ((follow ? trace_open_follow(&r, inputs[i], FOLLOW_POLL_MS, FOLLOW_IDLE_MS)
			    : trace_open(&r, inputs[i])) < 0) {
			tool_warn("%s", r.err.msg);
			trace_close(&r);
			wl_writer_abort(&w);
			return EXIT_BADFILE;
		}
		char why[1200];
		if (same_process(&first, &r, why, sizeof why) < 0) {
			tool_warn("%s", why);
			trace_close(&r);
			wl_writer_abort(&w);
			convert_free(&cv);
			return EXIT_USAGE;
		}
		if (r.format == TRACE_FMT_MTRACE && (r.hdr.flags & MTRACE_HF_BYPASSED) && !quiet)
			tool_warn("warning: %s: " TRACE_BYPASSED_NOTE, r.name);
		if (r.format == TRACE_FMT_MTRACE && (r.hdr.flags & MTRACE_HF_STOPPED_EARLY) &&
		    !quiet)
			tool_warn("warning: %s: " TRACE_STOPPED_NOTE " %s", r.name,
				  trace_stop_text(&r.hdr, why, sizeof why));
		struct tool_progress pr;
		trace_progress_start(&pr, progress, &r);
		r.progress = tool_progress;
		r.progress_arg = &pr;
		int rc = convert_feed(&cv, &r);
		tool_progress_end(&pr);
		trace_close(&r);
		if (rc < 0) {
			tool_warn("%s", cv.err.msg);
			wl_writer_abort(&w);
			convert_free(&cv);
			return cv.err.status == EXIT_SYSTEM ? EXIT_SYSTEM : EXIT_BADFILE;
		}
	}
	struct mtrace_wl_header h;
	if (convert_end(&cv, &h) < 0) {
		tool_warn("%s", cv.err.msg);
		wl_writer_abort(&w);
		convert_free(&cv);
		return EXIT_SYSTEM;
	}
	if (!quiet)
		summary(out, &cv.st, &h);
	convert_free(&cv);
	if (dj) {
		struct tool_err err;
		if (dj_wl_write(out, dj, &err) < 0)
			tool_die(EXIT_SYSTEM, "%s", err.msg);
		if (!quiet)
			fprintf(stderr, "trace2wl: wrote %s in the dj/malloc workload encoding\n",
				dj);
	}
	return EXIT_OK;
}
