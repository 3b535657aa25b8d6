/* trace_count - test helper: count a trace's calls by type, as "name count" lines.
 *   trace_count [--size N] TRACE   count only calls whose requested size (count for calloc) is N
 *   trace_count --runs TRACE       the same counts, read a run at a time (trace_next_run), with
 *                                  its promises checked: one thread a run, chunk records alone
 *   trace_count --truncate-at N TRACE   after N records, cut the file a page past the record
 *                                  read last (as another process could): a reader that maps the
 *                                  file must report it, not die of SIGBUS
 * Also prints samples and live (the tracer's bookkeeping, not counted as calls), pid, ppid,
 * threads, failed, unwritten, torn, flags_* and exe.  Exit 1 on a bad trace. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tool.h"
#include "trace_reader.h"
#include "u64map.h"

int main(int argc, char **argv)
{
	tool_name = "trace_count";
	uint64_t only_size = 0, cut_at = 0;
	int have_size = 0, runs = 0, i = 1;
	if (argc > 1 && strcmp(argv[1], "--runs") == 0) {
		runs = 1;
		i = 2;
	} else if (argc > 2 && strcmp(argv[1], "--truncate-at") == 0) {
		if (parse_u64(argv[2], &cut_at) < 0 || cut_at == 0)
			tool_die(2, "bad record count");
		i = 3;
	} else if (argc > 2 && strcmp(argv[1], "--size") == 0) {
		if (parse_u64(argv[2], &only_size) < 0)
			tool_die(2, "bad size");
		have_size = 1;
		i = 3;
	}
	if (i != argc - 1)
		tool_die(2, "usage: trace_count [--size N | --runs | --truncate-at N] TRACE");
	struct trace_reader r;
	if (trace_open(&r, argv[i]) < 0)
		tool_die(1, "%s", r.err.msg);
	unsigned long long count[MTRACE_CALL_LAST_MAP + 1] = { 0 }, calls = 0, maps = 0, failed = 0,
			   chunks = 0, samples = 0, lives = 0;
	unsigned long long fl_mmap = 0, fl_arena = 0, fl_brk = 0;
	struct u64map tids = { 0 };
	struct mtrace_record x;
	const struct mtrace_record *run = NULL;
	size_t nrun = 0, at = 0;
	uint64_t seen = 0;   /* records handed out (the reader may have read ahead) */
	int rc;
	for (;;) {
		if (runs) {
			if (at == nrun) {
				if ((rc = trace_next_run(&r, &run, &nrun)) <= 0)
					break;
				at = 0;
				if (nrun == 0)
					tool_die(1, "trace_next_run: an empty run");
				for (size_t k = 1; k < nrun; k++)
					if (run[k].tid != run[0].tid ||
					    run[k].call == MTRACE_CALL_CHUNK ||
					    run[0].call == MTRACE_CALL_CHUNK)
						tool_die(1, "trace_next_run: record %zu of a run "
							 "of %zu breaks it", k, nrun);
			}
			x = run[at++];
		} else if ((rc = trace_next(&r, &x, NULL)) <= 0)
			break;
		if (cut_at && ++seen == cut_at &&
		    truncate(argv[i], (off_t)((r.offset + 8191) & ~(uint64_t)4095)) < 0)
			tool_die(2, "truncate: %s", strerror(errno));
		if (x.call == MTRACE_CALL_CHUNK) {
			chunks++;
			continue;
		}
		if (x.call == MTRACE_CALL_MEMORY || x.call == MTRACE_CALL_LIVE) {
			*(x.call == MTRACE_CALL_LIVE ? &lives : &samples) += 1;   /* (bookkeeping) */
			continue;
		}
		if (have_size && x.size != only_size)
			continue;
		count[x.call]++;
		calls += x.call <= MTRACE_CALL_LAST_API;   /* (the allocator's, as every tool counts) */
		maps += x.call > MTRACE_CALL_LAST_API;
		failed += !!(x.flags & MTRACE_RF_FAILED);
		fl_mmap += !!(x.flags & MTRACE_RF_MMAP);
		fl_arena += !!(x.flags & MTRACE_RF_ARENA);
		fl_brk += !!(x.flags & MTRACE_RF_BRK);
		u64map_add(&tids, x.tid);
	}
	if (rc < 0)
		tool_die(1, "%s", r.err.msg);
	for (unsigned c = 1; c <= MTRACE_CALL_LAST_MAP; c++)
		printf("%s %llu\n", mtrace_call_name(c), count[c]);
	printf("samples %llu\nlive %llu\n", samples, lives);
	printf("mapping_calls %llu\n", maps);
	printf("calls %llu\nthreads %zu\nfailed %llu\nchunks %llu\nunwritten %llu\ntorn %llu\n",
	       calls, tids.n, failed, chunks, (unsigned long long)r.n_unwritten,
	       (unsigned long long)r.n_torn);
	printf("flags_mmap %llu\nflags_arena %llu\nflags_brk %llu\n", fl_mmap, fl_arena, fl_brk);
	printf("pid %d\nppid %d\nfinished %d\nglibc %d\nexe %s\n", (int)r.hdr.pid, (int)r.hdr.ppid,
	       !!(r.hdr.flags & MTRACE_HF_FINISHED), !!(r.hdr.flags & MTRACE_HF_GLIBC), r.exe);
	trace_close(&r);
	return 0;
}
