/* dj_wl_scan - test helper: validate a dj/malloc workload and print its counts by opcode;
   with --to-ours OUT, write it translated into our encoding instead (as trace_run does). */
#include <stdio.h>
#include <string.h>
#include "dj_wl.h"

int main(int argc, char **argv)
{
	static const char *names[15] = { "nop", "done", "malloc", "calloc", "realloc", "free",
		"sync_w", "sync_r", "alloc_ptrs", "alloc_syncs", "nthreads", "start_thread",
		"memalign", "valloc", "pvalloc" };
	struct dj_wl_info in;
	struct tool_err err;
	if (argc == 4 && !strcmp(argv[1], "--to-ours")) {
		if (dj_wl_to_ours(argv[2], argv[3], &err, NULL, NULL) < 0) {
			printf("error: %s\n", err.msg);
			return 1;
		}
		return 0;
	}
	if (argc != 2 || dj_wl_scan(argv[1], &in, &err) < 0) {
		printf("error: %s\n", argc == 2 ? err.msg : "usage: dj_wl_scan FILE");
		return 1;
	}
	printf("ptrs %llu\nsyncs %llu\nthreads %llu\n", in.ptrs, in.syncs, in.nthreads);
	for (int i = 0; i < 15; i++)
		if (i != 0 && (i < 8 || i > 11))
			printf("%s %llu\n", names[i], in.ops[i]);
	return 0;
}
