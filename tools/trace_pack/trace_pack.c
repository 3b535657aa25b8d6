/* trace_pack - prepare a trace for sending to a maintainer: validate, summarise, compress,
 * and on request anonymize. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "anonymize.h"
#include "names.h"
#include "textout.h"
#include "tool.h"
#include "trace_reader.h"
#include "u64map.h"

static const char usage_text[] =
	"Usage: trace_pack [OPTION]... TRACE\n"
	"Prepare a trace to send to a maintainer: validate it, show what it holds\n"
	"(program, records, threads, time span, size), and compress it to\n"
	"HOST-PROGRAM-PID.mtrace.gz (or .xz, .zst).  Every tool reads packed traces as\n"
	"they are.\n"
	"\n"
	"  -o, --output=FILE  the packed file (default: HOST-PROGRAM-PID.mtrace.EXT\n"
	"                     here; - for standard output)\n"
	"      --gzip         gzip (the default)\n"
	"      --xz           xz (package xz-utils)\n"
	"      --zstd         zstd (package zstd)\n"
	"      --level=N      the compressor's level (default: its own, 6 for gzip and\n"
	"                     xz, 3 for zstd; the highest take far longer for a little\n"
	"                     less: gzip -9 4x and zstd -19 270x the time of their\n"
	"                     defaults on a 256 MB trace)\n"
	"  -A, --anonymize    replace every address, thread id and time with a\n"
	"                     consistent stand-in (conversion and replay give the same\n"
	"                     result); leave out the program, its command line, pids,\n"
	"                     start date, the allocator's directory and every setting\n"
	"                     but the allocators' numbers and keywords; name it\n"
	"                     anon-N.mtrace.EXT\n"
	"  -p, --progress     show progress even when standard error is not a terminal\n"
	"                     (on a terminal it shows after a second)\n"
	"  -q, --quiet        print nothing on standard error but errors (the packed\n"
	"                     file's name still goes to standard output)\n"
	"  -h, --help         show this help and exit\n"
	"  -V, --version      show the version and exit\n"
	"\n"
	"The packed file appears only when complete.  Exit status: 0 done; 1 the trace\n"
	"is missing, corrupt or truncated; 2 bad command line; 3 the compressor is\n"
	"missing or failed.\n";

/* The reader's bytes into the file arg (trace_tee_fn) */
static int tee_file(void *arg, const unsigned char *b, size_t n)
{
	return fwrite(b, 1, n, arg) == n ? 0 : -1;
}

/* ---------------------------------------------------------------------------------------------
   main
   ------------------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
	tool_set_name("trace_pack", argv);
	static const struct option longopts[] = {
		{ "output", required_argument, 0, 'o' }, { "gzip", no_argument, 0, 1 },
		{ "xz", no_argument, 0, 2 }, { "zstd", no_argument, 0, 3 },
		{ "anonymize", no_argument, 0, 'A' }, { "level", required_argument, 0, 4 },
		{ "progress", no_argument, 0, 'p' }, { "quiet", no_argument, 0, 'q' },
		{ "help", no_argument, 0, 'h' },
		{ "version", no_argument, 0, 'V' }, { 0, 0, 0, 0 },
	};
	const char *out = NULL, *prog = "gzip", *ext = "gz", *pkg = "gzip";
	int anon = 0, c, chosen = 0, quiet = 0, progress = isatty(2);   /* 2 with -p */
	long level = 0;   /* 0: the compressor's own default */
	while ((c = getopt_long(argc, argv, "o:ApqhV", longopts, NULL)) != -1) {
		if (c >= 1 && c <= 3) {
			if (chosen && chosen != c)
				tool_die(EXIT_USAGE, "--gzip, --xz, --zstd: choose one");
			chosen = c;
		}
		switch (c) {
		case 'o': out = optarg; break;
		case 1: prog = "gzip", ext = "gz", pkg = "gzip"; break;
		case 2: prog = "xz", ext = "xz", pkg = "xz-utils"; break;
		case 3: prog = "zstd", ext = "zst", pkg = "zstd"; break;
		case 4: {
			char *end;
			level = strtol(optarg, &end, 10);
			if (!*optarg || *end || level < 1 || level > 19)
				tool_die(EXIT_USAGE,
					 "--level wants a number from 1 to 19, not '%s'", optarg);
			break;
		}
		case 'A': anon = 1; break;
		case 'p': progress = 2; break;
		case 'q': quiet = 1; break;
		case 'h': tool_help(usage_text);
		case 'V': tool_version();
		default: fputs("Try 'trace_pack --help'.\n", stderr); return EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		fputs("trace_pack: wants one trace\nTry 'trace_pack --help'.\n", stderr);
		return EXIT_USAGE;
	}
	if (level > (strcmp(prog, "zstd") ? 9 : 19))
		tool_die(EXIT_USAGE, "--level %ld: %s's levels go from 1 to %d", level, prog,
			 strcmp(prog, "zstd") ? 9 : 19);
	/* an output named: checked before any work */
	if (out)
		out = tool_check_output(out, argv + optind, 1, 0);
	/* read twice (validate, then compress): standard input or a pipe is copied first, once
	   its first bytes say it is a trace */
	const char *in = input_reopenable(argv[optind], trace_head_check, trace_copy, 0,
					  progress);

	/* 1. validate, and learn what to show */
	struct trace_reader r;
	if (trace_open(&r, in) < 0)
		tool_die(EXIT_BADFILE, "%s", r.err.msg);
	struct mtrace_record rec;
	struct u64map tids = { 0 };
	uint64_t calls = 0, api_calls = 0, tmin = UINT64_MAX, tmax = 0, first_ts = UINT64_MAX;
	int k;
	struct tool_progress pr;
	trace_progress_start(&pr, progress, &r);
	r.progress = tool_progress;
	r.progress_arg = &pr;
	/* version 5: the stacks, whose frames get names (not under --anonymize: see names.h) */
	struct trace_stacks *stk = trace_stacks_new();
	if (!stk)
		tool_die(EXIT_SYSTEM, "out of memory");
	trace_stacks_set_name(stk, r.name);
	r.ext_return = !anon;
	uint64_t off, last_chunk = 0, ts_max = 0;
	uint32_t last_tid = 0;
	while ((k = trace_next(&r, &rec, &off)) > 0) {
		if (rec.call >= MTRACE_CALL_CALLER && rec.call <= MTRACE_CALL_SYMBOL) {
			if (trace_stacks_add(stk, &rec, trace_ext_slots(&r, &rec), off) < 0)
				tool_die(EXIT_BADFILE, "%s", trace_stacks_error(stk));
			continue;
		}
		if (rec.ts > ts_max)
			ts_max = rec.ts;
		if (rec.ts < first_ts)
			first_ts = rec.ts;
		if (rec.call == MTRACE_CALL_CHUNK) {
			last_chunk = off;
			last_tid = rec.tid;
			continue;
		}
		calls++;
		api_calls += mtrace_call_is_api(rec.call);
		u64map_add(&tids, rec.tid);
		if (rec.ts < tmin)
			tmin = rec.ts;
		if (rec.ts > tmax)
			tmax = rec.ts;
	}
	tool_progress_end(&pr);
	if (k < 0)
		tool_die(EXIT_BADFILE, "%s", r.err.msg);
	struct stat st;
	char c1[32], c2[32], line[4400];
	stat(in, &st);
	/* a trace its writer closed holds every call it counted: one with fewer was cut short
	   (a copy that stopped), and a maintainer would get part of it */
	if (trace_cut_short(&r, api_calls) < 0)
		tool_die(EXIT_BADFILE, "%s", r.err.msg);
	const char *exe = strrchr(r.exe, '/') ? strrchr(r.exe, '/') + 1 :
			  r.exe[0] ? r.exe : "unknown";
	if (!quiet) {   /* (on a terminal, broken at spaces to fit it) */
		snprintf(line, sizeof line, "trace_pack: %s: %s (pid %d), %s records from %zu "
			 "thread%s over %.6f s, %s bytes%s\n",
			 tool_display_name(in), anon ? "(program left out)" : exe, (int)r.hdr.pid,
			 fmt_commas(c1, calls), tids.n, tids.n == 1 ? "" : "s",
			 calls ? (double)(tmax - tmin) / (double)r.hdr.ticks_per_sec : 0.0,
			 fmt_commas(c2, (unsigned long long)st.st_size),
			 r.compression ? " (compressed already)" : "");
		print_wrapped(stderr, line, tool_term_width(), 2);
	}
	int32_t pid = r.hdr.pid;
	int is_compressed = r.compression != NULL;
	/* (the reader's header is in our byte order; the copy in the writer's) */
	struct mtrace_file_header hdr = r.hdr;
	int names = !anon && trace_stacks_count(stk) && last_tid, swap = r.swap;
	trace_close(&r);
	u64map_free(&tids);

	/* 2. the packed file's name: an anonymized one's says nothing of where it was made */
	char name[4200], host[256] = "host";
	for (int i = 1; !out && anon; i++) {
		snprintf(name, sizeof name, "anon-%d.mtrace.%s", i, ext);
		if (access(name, F_OK) != 0)
			out = name;
	}
	if (!out) {
		gethostname(host, sizeof host - 1);
		for (char *p = host; *p; p++)
			if (*p == '/' || *p == ' ')
				*p = '_';
		snprintf(name, sizeof name, "%s-%s-%d.mtrace.%s", host, anon ? "anon" : exe,
			 (int)pid, ext);
		out = tool_check_output(name, (char *const *)&in, 1, 0);
	}
	if (!tool_on_path(prog))
		tool_die(EXIT_SYSTEM, "'%s' is not installed (apt-get install %s)", prog, pkg);

	/* 3. the bytes to compress: the trace itself (decompressed if it was), or its anonymized
	   rewrite, into a temporary file */
	struct output o;   /* -o - (standard output) and a pipe are written in place */
	int fi;
	if (output_open(&o, out, OUTPUT_BINARY | OUTPUT_PRIVATE | OUTPUT_SYNC) < 0 ||
	    (fi = output_scratch(&o, ".in")) < 0)
		tool_die_err(&o.err);
	int fo = o.fd, in_place = !o.tmp[0];
	FILE *fin = fdopen(fi, "w+");
	if (anon)
		anonymize(in, fin, first_ts);
	else if (is_compressed) {
		/* the plain bytes from the reader's decompressor, checked again as they come */
		struct trace_reader rr;
		int fd = open(in, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			tool_die(EXIT_BADFILE, "%s: %s", in, strerror(errno));
		if (trace_open_stream(&rr, fd, tool_display_name(in), NULL, 0, tee_file, fin) < 0 ||
		    trace_read_all(&rr) < 0) {
			output_abort(&o);
			tool_die(ferror(fin) ? EXIT_SYSTEM : EXIT_BADFILE, "%s", ferror(fin) ?
				 "cannot write the temporary copy" : rr.err.msg);
		}
		trace_close(&rr);
		close(fd);
	} else {
		int src = open(in, O_RDONLY | O_CLOEXEC);
		char io[65536];
		ssize_t n;
		while (src >= 0 && (n = read(src, io, sizeof io)) > 0)
			fwrite(io, 1, (size_t)n, fin);
		if (src >= 0)
			close(src);
	}
	uint64_t named = 0;
	struct tool_err err;
	off_t pos = fseeko(fin, 0, SEEK_END) == 0 ? ftello(fin) : -1;
	if (names && pos >= (off_t)hdr.header_size &&
	    ((uint64_t)pos - hdr.header_size) % MTRACE_SLOT_SIZE == 0 &&
	    pack_names(stk, fin, &hdr, (uint64_t)pos, last_tid, last_chunk, ts_max, swap,
		       &named, &err) < 0) {
		output_abort(&o);
		tool_die_err(&err);
	}
	trace_stacks_free(stk);
	if (fflush(fin) != 0 || ferror(fin)) {
		output_abort(&o);
		tool_die(EXIT_SYSTEM, "cannot write the temporary copy: %s", strerror(errno));
	}
	if (named && !quiet)
		fprintf(stderr, "trace_pack: %s: the names of %s code addresses added\n",
			tool_display_name(in), fmt_commas(c1, named));
	rewind(fin);

	/* 4. compress */
	char lv[8];
	snprintf(lv, sizeof lv, "-%ld", level);
	char *args[] = { (char *)prog, level ? lv : "-c", level ? "-c" : NULL, NULL };
	/* (xz at its default level takes minutes for a trace of a GB: its progress is the
	   position of its standard input, our temporary file) */
	char what[4300];
	snprintf(what, sizeof what, "compressing %s with %s", tool_display_name(in), prog);
	tool_progress_start(&pr, progress, fileno(fin), what);
	int ok = tool_wait_ok_progress(tool_spawn(args, fileno(fin), fo, 0), &pr, 0, -1);
	fclose(fin);
	if (!ok || output_close(&o, 0) < 0) {
		output_abort(&o);
		tool_die(EXIT_SYSTEM, "%s failed", prog);
	}
	if (in_place) {
		if (!quiet)
			fprintf(stderr, "trace_pack: wrote %s%s\n",
				strcmp(out, "-") ? out : "standard output",
				anon ? ", anonymized (trace_pack(1) lists what remains)"
				     : "");
		return EXIT_OK;
	}
	if (output_commit(&o) < 0)
		tool_die_err(&o.err);
	stat(out, &st);
	if (!quiet)
		fprintf(stderr, "trace_pack: wrote %s (%s bytes)%s\n", out,
			fmt_commas(c1, (unsigned long long)st.st_size),
			anon ? ", anonymized (trace_pack(1) lists what remains)" : "");
	printf("%s\n", out);
	return EXIT_OK;
}
