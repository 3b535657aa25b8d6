/* trace_dump - print and validate mtrace trace files. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tool.h"
#include "trace_reader.h"
#include "u64map.h"
#include "u64set.h"

static const char usage_text[] =
	"Usage: trace_dump [OPTION]... TRACE...\n"
	"Print the header and every record of mtrace trace files, one line a record, and\n"
	"validate them.  TRACE - reads standard input.\n"
	"\n"
	"  -H, --header     print the header only\n"
	"  -c, --check      validate only; print one summary line per file\n"
	"  -a, --all        also print the chunk bookkeeping records\n"
	"  -n, --limit=N    stop after N records of each file\n"
	"  -t, --ticks      print raw clock ticks instead of seconds since the start\n"
	"  -h, --help       show this help and exit\n"
	"  -V, --version    show the version and exit\n"
	"\n"
	"Exit status: 0 every file is a valid trace; 1 a file is missing, corrupt or truncated\n"
	"(the error names the byte offset); 2 bad command line.\n";

static struct {
	int header_only, check, all, ticks;
	uint64_t limit;
} opt = { .limit = UINT64_MAX };

static const char *errno_name(unsigned e)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 32)
	const char *s = strerrorname_np((int)e);
	if (s)
		return s;
#endif
	static char buf[16];
	snprintf(buf, sizeof buf, "errno %u", e);
	return buf;
}

static void print_header(const struct trace_reader *r)
{
	const struct mtrace_file_header *h = &r->hdr;
	char n1[32];
	unsigned one = 1;
	int little = *(unsigned char *)&one;
	printf("# file      %s\n", r->name);
	printf("# format    mtrace v%u, %s-endian, %u-byte pointers, %u-byte records, %u-byte header\n",
	       (unsigned)h->version, (little ^ r->swap) ? "little" : "big",
	       (unsigned)h->pointer_size, (unsigned)h->record_size, (unsigned)h->header_size);
	printf("# process   pid %d, parent %d\n", (int)h->pid, (int)h->ppid);
	if (h->flags & MTRACE_HF_PRIVATE)
		printf("# exe       (left out on request)\n");
	else {
		printf("# exe       %s\n", r->exe[0] ? r->exe : "(unknown)");
		printf("# cmdline   %s\n", r->cmdline);
	}
	time_t secs = (time_t)(h->start_time_ns / 1000000000);
	struct tm tm;
	char when[64] = "?";
	if (gmtime_r(&secs, &tm))
		strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
	printf("# started   %s.%09lld UTC\n", when, (long long)(h->start_time_ns % 1000000000));
	printf("# clock     %s, %s ticks/s; durations: %s\n", trace_clock_name(h->clock),
	       fmt_commas(n1, h->ticks_per_sec),
	       (h->flags & MTRACE_HF_DURATIONS) ? "every call" : "realloc only");
	printf("# allocator %s\n", (h->flags & MTRACE_HF_GLIBC) ? "glibc (chunk flags recorded)" : "not glibc");
	if (h->flags & MTRACE_HF_BYPASSED)
		printf("# bypassed  some allocator functions were defined ahead of the tracer: their calls are not here\n");
	printf("# order     %s\n", (h->flags & MTRACE_HF_CHUNK_BOUND) ? "no record precedes its chunk"
	       : "a chunk's first record may precede it (older writer)");
	if (h->flags & MTRACE_HF_FINISHED)
		printf("# status    finished, ran %.6f s\n", trace_seconds(r, h->stop_ticks));
	else
		printf("# status    not finished (the process was killed, crashed, exec'd or is running)\n");
}

static void print_flags(unsigned f)
{
	static const char *const names[] = { "failed", "mmap", "arena", "brk", "ptr-mmap" };
	int first = 1;
	for (unsigned i = 0; i < 5; i++)
		if (f & (1u << i)) {
			printf("%s%s", first ? " [" : ",", names[i]);
			first = 0;
		}
	if (!first)
		printf("]");
}

static void print_record(const struct trace_reader *r, const struct mtrace_record *x, uint64_t off)
{
	if (opt.ticks)
		printf("%10" PRIu64 " %20" PRIu64 " %7u  ", off, x->ts, x->tid);
	else
		printf("%10" PRIu64 " %14.9f %7u  ", off, trace_seconds(r, x->ts), x->tid);
	const char *name = mtrace_call_name(x->call);
	switch (x->call) {
	case MTRACE_CALL_CHUNK:
		printf("chunk of %" PRIu64 " bytes, previous at %" PRIu64 "\n", x->size, x->ptr);
		return;
	case MTRACE_CALL_FREE:
		printf("free(%#" PRIx64 ")", x->ptr);
		break;
	case MTRACE_CALL_MALLOC: case MTRACE_CALL_VALLOC: case MTRACE_CALL_PVALLOC:
		printf("%s(%" PRIu64 ")", name, x->size);
		break;
	case MTRACE_CALL_CALLOC:
		printf("calloc(%" PRIu64 ", %" PRIu64 ")", x->size, x->arg2);
		break;
	case MTRACE_CALL_REALLOC:
		printf("realloc(%#" PRIx64 ", %" PRIu64 ")", x->ptr, x->size);
		break;
	case MTRACE_CALL_REALLOCARRAY:
		printf("reallocarray(%#" PRIx64 ", %" PRIu64 ", %" PRIu64 ")", x->ptr, x->size, x->arg2);
		break;
	default:   /* the memalign family */
		printf("%s(%" PRIu64 ", %" PRIu64 ")", name, x->arg2, x->size);
		break;
	}
	if (x->call != MTRACE_CALL_FREE) {
		if (x->flags & MTRACE_RF_FAILED)
			printf(" = %s", x->call == MTRACE_CALL_POSIX_MEMALIGN ? "" : "NULL");
		else
			printf(" = %#" PRIx64 " usable %" PRIu64, x->result, x->usable);
	}
	if (x->flags & MTRACE_RF_FAILED)
		printf(" %s", errno_name(x->err));
	if (x->duration) {
		double ns = (double)x->duration * 1e9 / (double)r->hdr.ticks_per_sec;
		printf(" took %.0f ns", ns);
	}
	print_flags(x->flags);
	putchar('\n');
}

/* Dump or check one file.  Returns 0 if it is valid. */
static int dump(const char *path)
{
	struct trace_reader r;
	if (trace_open(&r, path) < 0) {
		tool_warn("%s", r.err);
		trace_close(&r);
		return -1;
	}
	if (!opt.check)
		print_header(&r);
	if (opt.header_only && !opt.check) {
		trace_close(&r);
		return 0;
	}
	if (!opt.check)
		printf("#   offset %s     tid  call\n", opt.ticks ? "               ticks" : "      seconds");
	struct mtrace_record x;
	uint64_t off, calls = 0, shown = 0;
	/* threads that made calls: a thread id the kernel reused for a later thread (one whose
	   first chunk in the file follows none of its own, ptr 0) counts as another thread */
	struct u64set tids = { 0 };
	struct u64map chains = { 0 };   /* tid -> first chunks met */
	int rc;
	while (shown < opt.limit && (rc = trace_next(&r, &x, &off)) > 0) {
		uint64_t *nc = u64map_get(&chains, x.tid);
		if (x.call == MTRACE_CALL_CHUNK && x.ptr == 0 && u64map_put(&chains, x.tid, nc ? *nc + 1 : 1) < 0)
			tool_die(EXIT_SYSTEM, "out of memory");
		if (x.call != MTRACE_CALL_CHUNK) {
			calls++;
			u64set_add(&tids, (nc ? *nc : 0) << 32 | x.tid);
		}
		if (opt.check || (x.call == MTRACE_CALL_CHUNK && !opt.all))
			continue;
		print_record(&r, &x, off);
		shown++;
	}
	if (shown >= opt.limit)
		rc = 0;
	char n1[32], n2[32];
	if (rc < 0)
		tool_warn("%s", r.err);
	else if (opt.check)
		printf("%s: valid trace: %s call%s from %zu thread%s, %s unwritten records skipped%s\n",
		       r.name, fmt_commas(n1, calls), calls == 1 ? "" : "s", tids.n, tids.n == 1 ? "" : "s", fmt_commas(n2, r.n_unwritten),
		       r.n_torn ? " (some partly written: the process was killed mid-record)" : "");
	else
		printf("# %s call%s from %zu thread%s, %s unwritten records skipped\n", fmt_commas(n1, calls),
		       calls == 1 ? "" : "s", tids.n, tids.n == 1 ? "" : "s", fmt_commas(n2, r.n_unwritten));
	u64set_free(&tids);
	u64map_free(&chains);
	trace_close(&r);
	return rc < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	tool_name = "trace_dump";
	static const struct option longopts[] = {
		{ "header", no_argument, 0, 'H' }, { "check", no_argument, 0, 'c' },
		{ "all", no_argument, 0, 'a' }, { "limit", required_argument, 0, 'n' },
		{ "ticks", no_argument, 0, 't' }, { "help", no_argument, 0, 'h' },
		{ "version", no_argument, 0, 'V' }, { 0, 0, 0, 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "Hcan:thV", longopts, NULL)) != -1) {
		switch (c) {
		case 'H': opt.header_only = 1; break;
		case 'c': opt.check = 1; break;   /* (with -H: -c wins, it reads everything anyway) */
		case 'a': opt.all = 1; break;
		case 't': opt.ticks = 1; break;
		case 'n':
			if (parse_u64(optarg, &opt.limit) < 0)
				tool_die(EXIT_USAGE, "--limit wants a number, not '%s'", optarg);
			break;
		case 'h': fputs(usage_text, stdout); return EXIT_OK;
		case 'V': tool_version();
		default: fputs("Try 'trace_dump --help'.\n", stderr); return EXIT_USAGE;
		}
	}
	if (optind == argc) {
		fputs("trace_dump: no trace given\nTry 'trace_dump --help'.\n", stderr);
		return EXIT_USAGE;
	}
	int bad = 0;
	for (int i = optind; i < argc; i++)
		bad |= dump(argv[i]) < 0;
	if (fflush(stdout) != 0 || ferror(stdout))
		tool_die(EXIT_SYSTEM, "cannot write output: %s", strerror(errno));
	return bad ? EXIT_BADFILE : EXIT_OK;
}
