/* trace_import - convert glibc mtrace() logs into mtrace traces. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "callers.h"
#include "mtrace_log.h"
#include "tool.h"
#include "trace_writer.h"

static const char usage_text[] =
	"Usage: trace_import [OPTION]... LOG OUTFILE\n"
	"  or:  trace_import [OPTION]... -o OUTFILE LOG\n"
	"Convert a glibc mtrace() log (the MALLOC_TRACE text format: \"@ caller + ptr\n"
	"size\", \"- ptr\", \"< old\" / \"> new size\" pairs, \"! ptr size\", \"= Start\" / \"=\n"
	"End\") into an mtrace trace, so existing logs can be looked at, converted and\n"
	"replayed.  The log has no threads or times: the trace is one thread, in the\n"
	"log's order.  The \"@ caller\" of each line (\"[0xADDR]\", \"OBJECT:[0xADDR]\",\n"
	"\"OBJECT:(FUNC+0xOFF)[0xADDR]\") is kept as a one-frame call stack, named by\n"
	"the function and object the log gives: trace_stats --sites reports by them.\n"
	"LOG - reads standard input.\n"
	"\n"
	"  -o, --output=FILE  write the trace to FILE (else the second operand is\n"
	"                     OUTFILE)\n"
	"      --pid=N      the process id to record (default 0)\n"
	"      --exe=PATH   the program to record\n"
	"  -p, --progress   show progress even when standard error is not a terminal (on\n"
	"                   a terminal it shows after a second)\n"
	"  -h, --help       show this help and exit\n"
	"  -V, --version    show the version and exit\n"
	"\n"
	"OUTFILE is written under a temporary name and renamed when complete; - is\n"
	"standard output. Exit status: 0 done; 1 the log is missing or malformed (the\n"
	"error names the line); 2 bad command line; 3 the output could not be written.\n";

struct import { struct mtrace_log log; struct callers callers; };

static int put(void *ctx, const struct mtrace_record *r)
{
	struct import *im = ctx;
	return callers_put(&im->callers, &im->log, r);
}

/* A log line's longest: glibc writes "@ CALLER" (a path and a symbol, a long C++ one at most a
   few KiB) and two numbers.  A longer line is not a log's, and reading it whole (getline
   would, /dev/zero never ends one) would take memory without bound. */
#define LINE_MAX_BYTES (64u << 10)

/* The next line of f, without its newline, into buf (LINE_MAX_BYTES): its length; -1 at the
   end; -2 if it is longer. */
static ssize_t next_line(FILE *f, char *buf)
{
	size_t n = 0;
	int c;
	while ((c = getc_unlocked(f)) != EOF && c != '\n') {
		if (n == LINE_MAX_BYTES)
			return -2;
		buf[n++] = (char)c;
	}
	return c == EOF && n == 0 ? -1 : (ssize_t)n;
}

int main(int argc, char **argv)
{
	tool_set_name("trace_import", argv);
	static const struct option longopts[] = {
		{ "pid", required_argument, 0, 1 }, { "exe", required_argument, 0, 2 },
		{ "output", required_argument, 0, 'o' },
		{ "progress", no_argument, 0, 'p' },
		{ "help", no_argument, 0, 'h' }, { "version", no_argument, 0, 'V' }, { 0, 0, 0, 0 },
	};
	int c;
	uint64_t pid = 0;
	const char *exe = NULL, *out = NULL;
	int progress = isatty(2);   /* tool_progress's on: 2 with -p */
	while ((c = getopt_long(argc, argv, "o:phV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 1:
			if (parse_u64(optarg, &pid) < 0 || pid > 0x7fffffff)
				tool_die(EXIT_USAGE, "--pid wants a process id, not '%s'", optarg);
			break;
		case 2: exe = optarg; break;
		case 'p': progress = 2; break;
		case 'h': tool_help(usage_text);
		case 'V': tool_version();
		default: fputs("Try 'trace_import --help'.\n", stderr); return EXIT_USAGE;
		}
	}
	if (argc - optind != (out ? 1 : 2)) {
		fprintf(stderr, "trace_import: wants a LOG and an OUTFILE%s\nTry 'trace_import "
			"--help'.\n", out ? " (-o names the OUTFILE: one LOG after it)" : "");
		return EXIT_USAGE;
	}
	const char *in = argv[optind];
	if (!out)
		out = argv[optind + 1];
	out = tool_check_output(out, argv + optind, 1, OUTPUT_TRACE_OK);   /* an older import may be replaced */
	FILE *f = strcmp(in, "-") ? fopen(in, "r") : stdin;
	if (!f)
		tool_die(EXIT_BADFILE, "%s: %s", in, strerror(errno));
	struct trace_writer w;
	if (trace_writer_open(&w, out, (int32_t)pid, exe) < 0)
		tool_die_err(&w.err);
	static struct import im;
	im.callers.w = &w;
	struct mtrace_log *log = &im.log;
	static char line[LINE_MAX_BYTES];
	ssize_t n;
	struct tool_progress pr;
	tool_progress_start(&pr, progress, fileno(f), tool_display_name(in));
	uint64_t bytes = 0, lines = 0;
	while ((n = next_line(f, line)) != -1) {
		if (n == -2) {
			tool_progress_end(&pr);
			trace_writer_abort(&w);
			tool_die(EXIT_BADFILE,
				 "%s: line %llu (from byte %llu on): longer than %u bytes, "
				 "which a glibc mtrace() log's lines never are: not such a log",
				 tool_display_name(in), (unsigned long long)lines + 1,
				 (unsigned long long)bytes, LINE_MAX_BYTES);
		}
		bytes += (uint64_t)n + 1;
		if ((++lines & 0xffff) == 0)
			tool_progress(bytes, &pr);
		if (mtrace_log_line(log, line, (size_t)n, put, &im) < 0) {
			tool_progress_end(&pr);
			trace_writer_abort(&w);
			const char *wrote = w.err.msg;   /* the writer's failure, if it was */
			tool_die(*wrote ? EXIT_SYSTEM : EXIT_BADFILE, "%s: %s%s%s", in, log->err.msg,
				 *wrote ? ": " : "", wrote);
		}
	}
	tool_progress_end(&pr);
	if (ferror(f)) {
		trace_writer_abort(&w);
		tool_die(EXIT_BADFILE, "%s: %s", in, strerror(errno));
	}
	if (mtrace_log_end(log) < 0) {
		trace_writer_abort(&w);
		tool_die(EXIT_BADFILE, "%s: %s", in, log->err.msg);
	}
	callers_free(&im.callers);
	if (w.written == 0)
		fprintf(stderr, "trace_import: %s: no allocator calls in the log\n", in);
	if (trace_writer_finish(&w) < 0)
		tool_die(EXIT_SYSTEM, "%s", w.err.msg);
	return EXIT_OK;
}
