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
#include "input.h"
#include "tool.h"
#include "trace_reader.h"
#include "u64map.h"

static const char usage_text[] =
	"Usage: trace_pack [OPTION]... TRACE\n"
	"Prepare a trace to send to a maintainer: validate it, show what it holds (program,\n"
	"records, threads, time span, size), and compress it to HOST-PROGRAM-PID.mtrace.gz (or\n"
	".xz, .zst).  Every tool reads packed traces as they are.\n"
	"\n"
	"  -o, --output=FILE  the packed file (default: HOST-PROGRAM-PID.mtrace.EXT here;\n"
	"                     - for standard output)\n"
	"      --gzip         gzip (the default)\n"
	"      --xz           xz (package xz-utils)\n"
	"      --zstd         zstd (package zstd)\n"
	"      --level=N      the compressor's level (default: its own, 6 for gzip and xz, 3 for\n"
	"                     zstd; the highest take far longer for a little less: gzip -9 4x\n"
	"                     and zstd -19 270x the time of their defaults on a 256 MB trace)\n"
	"  -A, --anonymize    replace every address with a consistent stand-in (identity and\n"
	"                     alignment up to 64 KiB kept, so conversion and replay give the same\n"
	"                     result), and leave out the executable path and command line\n"
	"  -p, --progress     show progress even when standard error is not a terminal (on a\n"
	"                     terminal it shows after a second)\n"
	"  -q, --quiet        print nothing on standard error but errors (the packed file's\n"
	"                     name still goes to standard output)\n"
	"  -h, --help         show this help and exit\n"
	"  -V, --version      show the version and exit\n"
	"\n"
	"The packed file appears only when complete.  "
	"Exit status: 0 done; 1 the trace is missing,\n"
	"corrupt or truncated; 2 bad command line; 3 the compressor is missing or failed.\n";

/* ---------------------------------------------------------------------------------------------
   Anonymizing: the high bits of an address are replaced by a counter, the low 16 kept
   ------------------------------------------------------------------------------------------- */

#define KEEP_BITS 16

struct anon { struct u64map hi; uint64_t next; int ptr32; };

static uint64_t anon_addr(struct anon *a, uint64_t p)
{
	if (p == 0)
		return 0;
	uint64_t hi = p >> KEEP_BITS, *v = u64map_get(&a->hi, hi + 1);
	if (!v) {
		if (u64map_put(&a->hi, hi + 1, ++a->next) < 0)
			tool_die(EXIT_SYSTEM, "out of memory");
		v = u64map_get(&a->hi, hi + 1);
	}
	uint64_t low = p & ((1u << KEEP_BITS) - 1);
	/* a trace of 4-byte pointers keeps them within 32 bits: stand-ins from 0x10000, room for
	   the 0xffff high parts a program can have (nothing is mapped below 64 KiB) */
	if (a->ptr32) {
		if (*v > 0xffff)
			tool_die(EXIT_BADFILE,
				 "--anonymize: addresses in all 65,536 ranges of 64 KiB, "
				 "more than stand-ins of 4 bytes can tell apart");
		return (*v << KEEP_BITS) | low;
	}
	/* stand-ins start at 0x100000000: never NULL, never mistaken for a small number */
	return ((*v + 0xffff) << KEEP_BITS) | low;
}

/* A mapping's range [p, p + len): its 64 KiB parts not met yet get consecutive stand-ins, so
   that a munmap of part of it still falls inside it (up to 4 GiB of it: a larger reservation
   would cost a map entry per 64 KiB) */
static void anon_range(struct anon *a, uint64_t p, uint64_t len)
{
	if (len == 0 || p + len < p)
		return;
	uint64_t first = p >> KEEP_BITS, last = (p + len - 1) >> KEEP_BITS;
	for (uint64_t hi = first; hi <= last && hi - first < (1u << 16); hi++)
		anon_addr(a, hi << KEEP_BITS);
}

/* Rewrite an mtrace trace with stand-in addresses and no exe/cmdline, into out (host order,
   the same records, chunks and unwritten space in the same places). */
static void anonymize(const char *in, FILE *out)
{
	struct trace_reader r;
	trace_reader_decompress = 1;
	if (trace_open(&r, in) < 0)
		tool_die(EXIT_BADFILE, "%s", r.err);
	if (r.format != TRACE_FMT_MTRACE)
		tool_die(EXIT_BADFILE,
			 "%s: --anonymize rewrites mtrace traces; an original dj/malloc trace has "
			 "no header to clean (compress it without --anonymize)",
			 tool_display_name(in));
	static unsigned char page[MTRACE_HEADER_MAX + 1];
	struct mtrace_file_header h = r.hdr;
	h.exe_offset = h.exe_len = h.cmdline_offset = h.cmdline_len = 0;
	h.flags |= MTRACE_HF_PRIVATE;
	memset(page, 0, h.header_size);
	/* the allocators' settings and the allocator's path stay (what a replay needs), from the
	   header bytes still in the reader's buffer */
	uint32_t at = MTRACE_HEADER_STRINGS;
	if (h.settings_len) {
		memmove(page + at, r.buf + h.settings_offset, h.settings_len);
		h.settings_offset = at;
		at += h.settings_len;
	}
	if (h.allocator_len) {
		memmove(page + at, r.buf + h.allocator_offset, h.allocator_len);
		h.allocator_offset = at;
	}
	memcpy(page, &h, sizeof h);
	fwrite(page, 1, h.header_size, out);
	struct anon a = { .ptr32 = h.pointer_size == 4 };
	struct mtrace_record rec;
	uint64_t off, next = h.header_size;
	static const unsigned char zero[256];
	int k;
	/* a version-3 trace's records are encoded again, in as many slots as they took: the
	   encoding depends on nothing anonymizing changes */
	unsigned unit = r.slots ? MTRACE_SLOT_SIZE : h.record_size;
	int durations = (h.flags & MTRACE_HF_DURATIONS) != 0;
	while ((k = trace_next(&r, &rec, &off)) > 0) {
		for (; next < off; next += unit)   /* unwritten records stay unwritten */
			fwrite(zero, 1, unit, out);
		if (rec.call >= MTRACE_CALL_MMAP && rec.call <= MTRACE_CALL_LAST_MAP &&
		    !(rec.flags & MTRACE_RF_FAILED))
			anon_range(&a,
				   rec.call == MTRACE_CALL_BRK
					   ? (rec.ptr < rec.result ? rec.ptr : rec.result)
					   : rec.result,
				   rec.call == MTRACE_CALL_BRK
					   ? (rec.ptr < rec.result ? rec.result - rec.ptr
								   : rec.ptr - rec.result)
					   : rec.size);
		/* a chunk's ptr is a file offset, not an address */
		if (rec.call != MTRACE_CALL_CHUNK) {
			rec.ptr = anon_addr(&a, rec.ptr);
			rec.result = anon_addr(&a, rec.result);
		}
		if (r.slots) {
			struct mtrace_slot sl[2];
			unsigned n = mtrace_encode(&rec, durations, sl);
			fwrite(sl, sizeof sl[0], n, out);
			next = off + n * MTRACE_SLOT_SIZE;
			continue;
		}
		fwrite(&rec, sizeof rec, 1, out);
		if (h.record_size > sizeof rec)
			fwrite(zero, 1, h.record_size - sizeof rec, out);
		next = off + h.record_size;
	}
	if (k < 0)
		tool_die(EXIT_BADFILE, "%s", r.err);
	trace_close(&r);
	u64map_free(&a.hi);
}

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
		case 'h': fputs(usage_text, stdout); return EXIT_OK;
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
	/* read twice (validate, then compress): standard input or a pipe is copied first, once
	   its first bytes say it is a trace */
	const char *in = input_reopenable(argv[optind], trace_head_check, trace_copy, 0,
					  progress);

	/* 1. validate, and learn what to show */
	struct trace_reader r;
	if (trace_open(&r, in) < 0)
		tool_die(EXIT_BADFILE, "%s", r.err);
	struct mtrace_record rec;
	struct u64map tids = { 0 };
	uint64_t calls = 0, tmin = UINT64_MAX, tmax = 0;
	int k;
	struct tool_progress pr;
	trace_progress_start(&pr, progress, &r);
	r.progress = tool_progress;
	r.progress_arg = &pr;
	while ((k = trace_next(&r, &rec, NULL)) > 0) {
		if (rec.call == MTRACE_CALL_CHUNK)
			continue;
		calls++;
		u64map_add(&tids, rec.tid);
		if (rec.ts < tmin)
			tmin = rec.ts;
		if (rec.ts > tmax)
			tmax = rec.ts;
	}
	tool_progress_end(&pr);
	if (k < 0)
		tool_die(EXIT_BADFILE, "%s", r.err);
	struct stat st;
	stat(in, &st);
	const char *exe = strrchr(r.exe, '/') ? strrchr(r.exe, '/') + 1 :
			  r.exe[0] ? r.exe : "unknown";
	char c1[32], c2[32];
	if (!quiet)
		fprintf(stderr,
			"trace_pack: %s: %s (pid %d), %s records from %zu thread%s "
			"over %.6f s, %s bytes%s\n",
			tool_display_name(in), anon ? "(program left out)" : exe, (int)r.hdr.pid,
			fmt_commas(c1, calls), tids.n, tids.n == 1 ? "" : "s",
			calls ? (double)(tmax - tmin) / (double)r.hdr.ticks_per_sec : 0.0,
			fmt_commas(c2, (unsigned long long)st.st_size),
			r.compression ? " (compressed already)" : "");
	int32_t pid = r.hdr.pid;
	int is_compressed = r.compression != NULL;
	trace_close(&r);
	u64map_free(&tids);

	/* 2. the packed file's name */
	char name[4200], host[256] = "host";
	if (!out) {
		gethostname(host, sizeof host - 1);
		for (char *p = host; *p; p++)
			if (*p == '/' || *p == ' ')
				*p = '_';
		snprintf(name, sizeof name, "%s-%s-%d.mtrace.%s", host, anon ? "anon" : exe,
			 (int)pid, ext);
		out = name;
	}
	out = tool_check_output(out, (char *const *)&in, 1, 0);
	if (!tool_on_path(prog))
		tool_die(EXIT_SYSTEM, "'%s' is not installed (apt-get install %s)", prog, pkg);

	/* 3. the bytes to compress: the trace itself (decompressed if it was), or its anonymized
	   rewrite, into a temporary file */
	struct output o;   /* -o - (standard output) and a pipe are written in place */
	int fi;
	if (output_open(&o, out, OUTPUT_BINARY | OUTPUT_PRIVATE | OUTPUT_SYNC) < 0 ||
	    (fi = output_scratch(&o, ".in")) < 0)
		tool_die(o.status, "%s", o.err);
	int fo = o.fd, in_place = !o.tmp[0];
	FILE *fin = fdopen(fi, "w+");
	if (anon)
		anonymize(in, fin);
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
				 "cannot write the temporary copy" : rr.err);
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
	if (fflush(fin) != 0 || ferror(fin)) {
		output_abort(&o);
		tool_die(EXIT_SYSTEM, "cannot write the temporary copy: %s", strerror(errno));
	}
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
				anon ? ", addresses replaced, program and command line left out"
				     : "");
		return EXIT_OK;
	}
	if (output_commit(&o) < 0)
		tool_die(EXIT_SYSTEM, "%s", o.err);
	stat(out, &st);
	if (!quiet)
		fprintf(stderr, "trace_pack: wrote %s (%s bytes)%s\n", out,
			fmt_commas(c1, (unsigned long long)st.st_size),
			anon ? ", addresses replaced, program and command line left out" : "");
	printf("%s\n", out);
	return EXIT_OK;
}
