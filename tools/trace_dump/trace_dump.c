/* trace_dump - print and validate mtrace traces, and workloads. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "dump.h"
#include "order.h"
#include "tool.h"
#include "trace_reader.h"
#include "u64map.h"
#include "wl_input.h"

static const char usage_text[] =
	"Usage: trace_dump [OPTION]... FILE...\n"
	"Print the header and every record of mtrace traces, one line a record, and\n"
	"validate them: in file order, which groups each thread's records in chunks\n"
	"(times go back where one thread's chunk follows another's), or with --sorted in\n"
	"the global order, which trace2wl, trace_stats and trace_plot read them in.  A\n"
	"workload (trace2wl's, or an original dj/malloc .wl, also compressed) is printed\n"
	"too: its header, then each stream's operations, numbered as trace_run counts\n"
	"calls. FILE - reads standard input (a trace).\n"
	"\n"
	"  -H, --header     print the header only\n"
	"  -c, --check      validate only; print one summary line per file (a workload:\n"
	"                   every stream decoded, and every wait shown to be\n"
	"                   satisfiable)\n"
	"  -a, --all        also print the chunk bookkeeping records\n"
	"  -n, --limit=N    stop after N records of each file (of a workload: N\n"
	"                   operations a stream)\n"
	"      --sorted     a trace's records in their global order (its order points:\n"
	"                   the file offsets are then left out; a realloc shows at its\n"
	"                   start)\n"
	"      --ticks      print raw clock ticks instead of seconds since the start\n"
	"  -s, --stream=N   of a workload: stream N only\n"
	"      --from=CALL  of a workload: from each stream's call CALL on (its waits\n"
	"                   included)\n"
	"  -h, --help       show this help and exit\n"
	"  -V, --version    show the version and exit\n"
	"\n"
	"Exit status: 0 every file is valid; 1 a file is missing, corrupt or truncated,\n"
	"or a trace is not valid for ordering (the error names the byte offset); 2 bad\n"
	"command line.\n";

struct dump_opts opt = { .limit = UINT64_MAX, .stream = -1, .from = 1 };

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
	printf("# format    mtrace v%u, %s-endian, %u-byte pointers, "
	       "%u-byte records, %u-byte header\n",
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
	if (h->clock == MTRACE_CLOCK_COUNTER)
		printf("# clock     %s (no clock advanced: an order, no time); durations: %s\n",
		       trace_clock_name(h->clock),
		       (h->flags & MTRACE_HF_DURATIONS) ? "every call" : "realloc only");
	else
		printf("# clock     %s, %s ticks/s; durations: %s\n", trace_clock_name(h->clock),
		       fmt_commas(n1, h->ticks_per_sec),
		       (h->flags & MTRACE_HF_DURATIONS) ? "every call" : "realloc only");
	printf("# allocator %s%s%s\n", r->allocator, r->allocator[0] ? ", " : "",
	       (h->flags & MTRACE_HF_GLIBC) ? "glibc (chunk flags recorded)" : "not glibc");
	if (r->settings[0])
		printf("# settings  %s\n", r->settings);
	if (r->settings_set[0])
		printf("# run time  %s (of those, set by the program as it ran: mallopt, its "
		       "allocator's own interface; the rest, its environment's)\n",
		       r->settings_set);
	if (h->flags & MTRACE_HF_BYPASSED)
		printf("# bypassed  some allocator functions were defined ahead of the tracer: "
		       "their calls are not here\n");
	if (h->flags & (MTRACE_HF_MAPPINGS | MTRACE_HF_RESIDENT | MTRACE_HF_MEMORY)) {
		printf("# recorded ");
		if (h->flags & MTRACE_HF_MAPPINGS)
			printf(" the program's own mappings;");
		if (h->flags & MTRACE_HF_RESIDENT)
			printf(" bytes resident at release of blocks of %s bytes or more%s;",
			       fmt_commas(n1, h->resident_min),
			       (h->flags & MTRACE_HF_LIVE) ? ", and at the end of those still live"
							   : "");
		if (h->flags & MTRACE_HF_MEMORY)
			printf(" memory samples, every %u ms at most;",
			       (unsigned)h->memory_interval_ms);
		printf("\n");
	}
	if ((h->flags & MTRACE_HF_LIVE) && h->live_untracked)
		printf("# untracked %s large blocks had no room in the tracer's table: those live "
		       "at the end say nothing of their resident bytes\n",
		       fmt_commas(n1, h->live_untracked));
	if ((h->flags & MTRACE_HF_STACKS) && h->stacks_dropped)
		printf("# stacks    %s allocating calls found the tracer's table of stacks full: "
		       "their stack is not known\n", fmt_commas(n1, h->stacks_dropped));
	if (h->flags & MTRACE_HF_MIDWAY)
		printf("# midway    switched on from outside (window %u), %u threads alive then: "
		       "blocks freed here may come from before it\n",
		       (unsigned)h->window, (unsigned)h->start_threads);
	printf("# order     %s\n",
	       (h->flags & MTRACE_HF_CHUNK_BOUND)
		       ? "no record precedes its chunk"
		       : "a chunk's first record may precede it (older writer)");
	if (h->flags & MTRACE_HF_STOPPED_EARLY) {
		char why[200];
		printf("# status    stopped early, as %s: the records end there, "
		       "the program went on",
		       trace_stop_text(h, why, sizeof why));
		if (h->calls_recorded)
			printf("; %s calls recorded (the writer's count)",
			       fmt_commas(n1, h->calls_recorded));
		printf("\n");
	} else if (!(h->flags & MTRACE_HF_FINISHED))
		printf("# status    not finished "
		       "(the process was killed, crashed, exec'd or is running)\n");
	else {
		printf("# status    finished, ran %.6f s", trace_seconds(r, h->stop_ticks));
		if (h->calls_recorded)
			printf(", %s calls recorded (the writer's count)",
			       fmt_commas(n1, h->calls_recorded));
		printf("\n");
	}
}

static void print_flags(unsigned f)
{
	static const char *const names[] = { "failed", "mmap", "arena", "brk", "ptr-mmap",
					     "resident", "own" };
	int first = 1;
	for (unsigned i = 0; i < 7; i++)
		if (f & (1u << i)) {
			printf("%s%s", first ? " [" : ",", names[i]);
			first = 0;
		}
	if (!first)
		printf("]");
}

/* A record of version 2 or later: a mapping call, a memory sample or a live block.  0 if it is
   none; 2 if its line is complete. */
static int print_memory_record(const struct mtrace_record *x)
{
	char a[32], b[32], c[32];
	switch (x->call) {
	case MTRACE_CALL_MEMORY:
		printf("memory: anonymous %s, resident %s, virtual %s bytes\n",
		       fmt_commas(a, x->size), fmt_commas(b, x->arg2), fmt_commas(c, x->usable));
		return 2;
	case MTRACE_CALL_LIVE:
		printf("live at the end: %#" PRIx64 ", %s bytes, %s of them resident\n", x->ptr,
		       fmt_commas(a, x->size), fmt_commas(b, x->arg2));
		return 2;
	case MTRACE_CALL_MMAP:
		printf("mmap(%#" PRIx64 ", %" PRIu64 ", prot %#" PRIx64 ", flags %#" PRIx64 ")",
		       x->ptr, x->size, x->arg2 & 0xffffffffu, x->arg2 >> 32);
		break;
	case MTRACE_CALL_MUNMAP:
		printf("munmap(%#" PRIx64 ", %" PRIu64 ")", x->ptr, x->size);
		break;
	case MTRACE_CALL_MREMAP:
		printf("mremap(%#" PRIx64 ", %" PRIu64 ", %" PRIu64 ")", x->ptr, x->arg2, x->size);
		break;
	case MTRACE_CALL_BRK:
		printf("brk(%#" PRIx64 ")", x->ptr);
		break;
	default:
		return 0;
	}
	if (x->call != MTRACE_CALL_MUNMAP)
		printf(" = %s", (x->flags & MTRACE_RF_FAILED) ? "failed" :
		       (snprintf(a, sizeof a, "%#" PRIx64, x->result), a));
	return 1;
}

/* An allocator call as the program made it: name(ptr, alignment, size or count, element size),
   from its operands (opd), in one printf whose format is made once a call type */
static void print_call(const struct mtrace_record *x, unsigned opd)
{
	static char fmts[MTRACE_CALL_LAST_API + 1][48];
	uint64_t v[4] = { 0 };
	int n = 0;
	if (opd & MTRACE_OPD_PTR)
		v[n++] = x->ptr;
	if (opd & MTRACE_OPD_ALIGN)
		v[n++] = x->arg2;
	if (opd & MTRACE_OPD_SIZE)
		v[n++] = x->size;
	if (opd & MTRACE_OPD_COUNT)
		v[n++] = x->arg2;
	char *f = fmts[x->call];
	if (!f[0]) {
		size_t k = 0, cap = sizeof fmts[0];
		k += (size_t)snprintf(f, cap, "%s(", mtrace_call_name(x->call));   /* (no %) */
		for (int i = 0; i < n && k < cap; i++)
			k += (size_t)snprintf(f + k, cap - k, "%s%s", i ? ", " : "",
					      !i && (opd & MTRACE_OPD_PTR) ? "%#" PRIx64 :
					      "%" PRIu64);
		if (k < cap)
			snprintf(f + k, cap - k, ")");
	}
	printf(f, v[0], v[1], v[2], v[3]);
}


/* The records' column heads; with the file offset unless --sorted */
static void print_columns(void)
{
	if (!opt.sorted)
		printf("#   offset %s     tid  call\n",
		       opt.ticks ? "               ticks" : "      seconds");
	else
		printf("#%*s %7s  call\n", opt.ticks ? 19 : 13, opt.ticks ? "ticks" : "seconds",
		       "tid");
}

static void print_record(const struct trace_reader *r, const struct mtrace_record *x, uint64_t off)
{
	if (off != NO_OFFSET)
		printf("%10" PRIu64 " ", off);
	/* (no time of its own: a CALLER's is its call's; a SYMBOL's, written after the run, none) */
	if (x->call == MTRACE_CALL_CALLER || x->call == MTRACE_CALL_SYMBOL)
		printf("%*s %7u  ", opt.ticks ? 20 : 14, "-", x->tid);
	else if (opt.ticks)
		printf("%20" PRIu64 " %7u  ", x->ts, x->tid);
	else
		printf("%14.9f %7u  ", trace_seconds(r, x->ts), x->tid);
	unsigned opd = mtrace_call_operands(x->call);
	int api = mtrace_call_is_api(x->call);
	if (x->call == MTRACE_CALL_CHUNK) {
		printf("chunk of %" PRIu64 " bytes, previous at %" PRIu64 "\n", x->size, x->ptr);
		return;
	}
	if (api)
		print_call(x, opd);
	else if (print_stack_record(r, x, off) || print_memory_record(x) == 2)
		return;
	if (api && (opd & MTRACE_OPD_RESULT)) {
		if (x->flags & MTRACE_RF_FAILED)
			printf(" = %s", opd & MTRACE_OPD_RETURNS_ERR ? "" : "NULL");
		else
			printf(" = %#" PRIx64 " usable %" PRIu64, x->result, x->usable);
	}
	if (x->flags & MTRACE_RF_FAILED)
		printf(" %s", errno_name(x->err));
	if (x->flags & MTRACE_RF_RESIDENT)
		printf(" resident %" PRIu64, x->arg2);
	if (x->duration) {
		double ns = (double)x->duration * 1e9 / (double)r->hdr.ticks_per_sec;
		printf(" took %.0f ns", ns);
	}
	print_flags(x->flags);
	putchar('\n');
}

/* "N calls", and " and M mapping calls" of the program's own where there are any: the calls
   counted are the allocator's, in every tool */
static const char *calls_text(char *buf, size_t cap, uint64_t calls, uint64_t maps)
{
	char a[32], b[32];
	int k = snprintf(buf, cap, "%s call%s", fmt_commas(a, calls), calls == 1 ? "" : "s");
	if (maps && k > 0 && (size_t)k < cap)
		snprintf(buf + k, cap - (size_t)k, " and %s mapping call%s", fmt_commas(b, maps),
			 maps == 1 ? "" : "s");
	return buf;
}

/* The tracer's bookkeeping met besides the calls, for the summary line: ", N memory samples,
   M blocks live at the end", or "" */
static const char *kept_text(char *buf, size_t cap, uint64_t samples, uint64_t lives)
{
	char a[32], b[32];
	int k = 0;
	buf[0] = 0;
	if (samples)
		k = snprintf(buf, cap, ", %s memory sample%s", fmt_commas(a, samples),
			     samples == 1 ? "" : "s");
	if (lives && k >= 0 && (size_t)k < cap)
		snprintf(buf + k, cap - (size_t)k, ", %s block%s live at the end",
			 fmt_commas(b, lives), lives == 1 ? "" : "s");
	return buf;
}

/* What the slots no record was committed to are: in a finished trace, space the tracer
   reserved (a thread's chunk, the file's growth) that was never used, and said so only when
   there are any; in one that did not finish, also the records being written when it ended. */
static const char *unwritten_text(char *buf, size_t cap, const struct trace_reader *r)
{
	char n[32];
	int finished = r->format == TRACE_FMT_MTRACE && (r->hdr.flags & MTRACE_HF_FINISHED);
	if (r->n_unwritten == 0)
		buf[0] = 0;
	else if (finished)
		snprintf(buf, cap, ", %s slot%s reserved and not used", fmt_commas(n, r->n_unwritten),
			 r->n_unwritten == 1 ? "" : "s");
	else
		snprintf(buf, cap, ", %s unwritten slot%s skipped (reserved, or being written when "
			 "the trace ended)", fmt_commas(n, r->n_unwritten),
			 r->n_unwritten == 1 ? "" : "s");
	return buf;
}

/* ---------------------------------------------------------------------------------------------
   --sorted: the records in their global order, as order.h hands them to trace2wl and
   trace_stats.  Each record shows once, at its ts: a realloc (and mremap), which has two order
   points, at the first, where the call began and released its block.
   ------------------------------------------------------------------------------------------- */

struct sorted {
	const struct trace_reader *r;
	uint64_t calls, maps, samples, lives, shown;
	struct u64map threads;   /* of the calls shown
	                            (order.h's indexes: a reused tid is another) */
	int at_limit;   /* --limit reached: the order was stopped, not failed */
};

static int on_sorted(void *ctx, const struct order_ev *ev, size_t n)
{
	struct sorted *s = ctx;
	for (size_t i = 0; i < n; i++) {
		const struct mtrace_record *x = ev[i].rec;
		if (ev[i].kind == ORDER_RESULT)
			continue;
		if (s->shown == opt.limit) {
			s->at_limit = 1;
			return -1;
		}
		if (x->call == MTRACE_CALL_MEMORY)
			s->samples++;
		else if (x->call == MTRACE_CALL_LIVE)
			s->lives++;
		else if (x->call >= MTRACE_CALL_CALLER && x->call <= MTRACE_CALL_SYMBOL)
			;   /* (no call) */
		/* (thread + 1: n leaves key 0 out) */
		else if (*(x->call <= MTRACE_CALL_LAST_API ? &s->calls : &s->maps) += 1,
			 u64map_add(&s->threads, (uint64_t)ev[i].thread + 1) < 0)
			tool_die(EXIT_SYSTEM, "out of memory");
		print_record(s->r, x, NO_OFFSET);
		s->shown++;
	}
	return 0;
}

/* A trace read whole whose clock stood still (trace_clock_stalled): said, -1; else 0. */
static int stalled(const struct trace_reader *r, uint64_t threads)
{
	char why[600];
	if (!trace_clock_stalled(r, threads, why, sizeof why))
		return 0;
	tool_warn("%s", why);
	return -1;
}

/* The records of the trace r (its header printed) in global order; what they held on the
   summary line.  0, or -1 (said) if the trace is invalid. */
static int dump_sorted(struct trace_reader *r)
{
	struct sorted s = { .r = r };
	struct order o;
	int rc = order_begin(&o, on_sorted, NULL, &s);
	if (rc == 0)
		rc = order_feed(&o, r);
	if (rc == 0)
		rc = order_end(&o);
	if (rc < 0 && s.at_limit)
		rc = 0;
	else if (rc < 0 && o.err.status == EXIT_SYSTEM)
		tool_die(EXIT_SYSTEM, "%s", o.err.msg);
	else if (rc < 0)
		tool_warn("%s", o.err.msg);
	if (rc == 0) {
		char n1[80], n2[120], n4[32], kept[120], late[120] = "";
		if (o.late)
			snprintf(late, sizeof late,
				 "; %s record%s came after later ones, and are shown late",
				 fmt_commas(n4, o.late), o.late == 1 ? "" : "s");
		printf("# %s from %zu thread%s%s%s%s\n",
		       calls_text(n1, sizeof n1, s.calls, s.maps), s.threads.n,
		       s.threads.n == 1 ? "" : "s",
		       kept_text(kept, sizeof kept, s.samples, s.lives),
		       unwritten_text(n2, sizeof n2, r), late);
		rc = stalled(r, s.threads.n);
	}
	u64map_free(&s.threads);
	order_free(&o);
	return rc;
}

/* ---------------------------------------------------------------------------------------------
   Traces
   ------------------------------------------------------------------------------------------- */

/* Dump or check one file.  Returns 0 if it is valid. */
static int dump(const char *path)
{
	struct trace_reader r;
	if (trace_open(&r, path) < 0) {
		/* a workload is read again from the start: not from standard input */
		int workload = r.format == TRACE_FMT_WORKLOAD && !tool_input_is_stream(path);
		if (!workload)
			tool_warn("%s%s", r.err.msg, r.format == TRACE_FMT_WORKLOAD ?
				  "; give trace_dump its file name to print it" : "");
		trace_close(&r);
		if (!workload)
			return -1;
		const char *plain = wl_input_plain(path, isatty(2));
		int rc = dump_workload(plain, path);
		input_release(plain);
		return rc;
	}
	if (!opt.check)
		print_header(&r);
	if (opt.header_only && !opt.check) {
		trace_close(&r);
		return 0;
	}
	if (!opt.check)
		print_columns();
	if (opt.sorted && !opt.check) {
		int rc = dump_sorted(&r);
		trace_close(&r);
		return rc;
	}
	struct mtrace_record x;
	uint64_t off, calls = 0, maps = 0, samples = 0, lives = 0, shown = 0;
	/* threads that made calls: a thread id the kernel reused for a later thread (one whose
	   first chunk in the file follows none of its own, ptr 0) counts as another thread */
	struct u64map tids = { 0 };
	struct u64map chains = { 0 };   /* tid -> first chunks met */
	int rc;
	r.ext_return = 1;   /* (the records of call stacks too, in file order) */
	while (shown < opt.limit && (rc = trace_next(&r, &x, &off)) > 0) {
		uint64_t *nc = u64map_get(&chains, x.tid);
		if (x.call == MTRACE_CALL_CHUNK && x.ptr == 0 &&
		    u64map_put(&chains, x.tid, nc ? *nc + 1 : 1) < 0)
			tool_die(EXIT_SYSTEM, "out of memory");
		if (x.call == MTRACE_CALL_MEMORY)
			samples++;
		else if (x.call == MTRACE_CALL_LIVE)
			lives++;
		else if (x.call != MTRACE_CALL_CHUNK &&
			 (x.call < MTRACE_CALL_CALLER || x.call > MTRACE_CALL_SYMBOL)) {
			*(x.call <= MTRACE_CALL_LAST_API ? &calls : &maps) += 1;
			u64map_add(&tids, (nc ? *nc : 0) << 32 | x.tid);
		}
		if (opt.check || (x.call == MTRACE_CALL_CHUNK && !opt.all))
			continue;
		print_record(&r, &x, off);
		shown++;
	}
	if (shown >= opt.limit)
		rc = 0;
	else if (rc == 0)
		rc = trace_cut_short(&r, calls);
	char n1[80], n2[120], sampled[120];
	kept_text(sampled, sizeof sampled, samples, lives);   /* (the tracer's, not calls) */
	if (rc < 0)
		tool_warn("%s", r.err.msg);
	else if (opt.check && (rc = stalled(&r, tids.n)) == 0) {
		char why[200], stopped[240] = "", stalls[120];
		if (r.format == TRACE_FMT_MTRACE && (r.hdr.flags & MTRACE_HF_STOPPED_EARLY))
			snprintf(stopped, sizeof stopped, "; tracing stopped early, as %s",
				 trace_stop_text(&r.hdr, why, sizeof why));
		printf("%s: valid trace: %s from %zu thread%s%s%s%s%s%s\n", r.name,
		       calls_text(n1, sizeof n1, calls, maps), tids.n, tids.n == 1 ? "" : "s",
		       sampled, unwritten_text(n2, sizeof n2, &r),
		       r.n_torn ? " (some partly written: the process was killed mid-record)" : "",
		       stopped, trace_stall_note(&r, stalls, sizeof stalls));
	}
	else if (!opt.check) {
		printf("# %s from %zu thread%s%s%s\n", calls_text(n1, sizeof n1, calls, maps),
		       tids.n, tids.n == 1 ? "" : "s", sampled, unwritten_text(n2, sizeof n2, &r));
		if (shown < opt.limit)   /* (read whole) */
			rc = stalled(&r, tids.n);
	}
	u64map_free(&tids);
	u64map_free(&chains);
	trace_close(&r);
	return rc < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	tool_set_name("trace_dump", argv);
	trace_reader_wants = "a trace or a workload";
	static const struct option longopts[] = {
		{ "header", no_argument, 0, 'H' }, { "check", no_argument, 0, 'c' },
		{ "all", no_argument, 0, 'a' }, { "limit", required_argument, 0, 'n' },
		{ "ticks", no_argument, 0, 2 }, { "help", no_argument, 0, 'h' },
		{ "stream", required_argument, 0, 's' }, { "from", required_argument, 0, 1 },
		{ "version", no_argument, 0, 'V' }, { "sorted", no_argument, 0, 3 }, { 0, 0, 0, 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "Hcan:s:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'H': opt.header_only = 1; break;
		/* (with -H: -c wins, it reads everything anyway) */
		case 'c': opt.check = 1; break;
		case 'a': opt.all = 1; break;
		case 2: opt.ticks = 1; break;
		case 3: opt.sorted = 1; break;
		case 'n':
			if (parse_u64(optarg, &opt.limit) < 0)
				tool_die(EXIT_USAGE, "--limit wants a number, not '%s'", optarg);
			break;
		case 's': {
			uint64_t v;
			if (parse_u64(optarg, &v) < 0 || v > INT32_MAX)
				tool_die(EXIT_USAGE, "--stream wants a stream number, not '%s'",
					 optarg);
			opt.stream = (int64_t)v;
			break;
		}
		case 1:
			if (parse_u64(optarg, &opt.from) < 0 || opt.from == 0)
				tool_die(EXIT_USAGE, "--from wants a call number "
					 "(1 is a stream's first), not '%s'", optarg);
			break;
		case 'h': tool_help(usage_text);
		case 'V': tool_version();
		default: fputs("Try 'trace_dump --help'.\n", stderr); return EXIT_USAGE;
		}
	}
	if (opt.sorted && opt.all)
		tool_die(EXIT_USAGE,
			 "--sorted and --all: the chunk records have a place in the file, not "
			 "in the global order");
	if (optind == argc) {
		fputs("trace_dump: no file given\nTry 'trace_dump --help'.\n", stderr);
		return EXIT_USAGE;
	}
	int bad = 0;
	for (int i = optind; i < argc; i++)
		bad |= dump(argv[i]) < 0;
	if (fflush(stdout) != 0 || ferror(stdout))
		tool_die(EXIT_SYSTEM, "cannot write output: %s", strerror(errno));
	return bad ? EXIT_BADFILE : EXIT_OK;
}

