/* dump.h - trace_dump: what it was asked to print (its options), shared by the printing of
 * traces (trace_dump.c) and of workloads (workload.c).
 */
#ifndef DUMP_H
#define DUMP_H
#include <stdint.h>

struct dump_opts {
	int header_only, check, all, ticks, sorted;
	uint64_t limit;
	int64_t stream;     /* -1: every stream */
	uint64_t from;      /* the first call printed (1 is a stream's first) */
};
extern struct dump_opts opt;

/* Print or check a workload (the user's FILE, plain at path; shown: its name in messages).
   0 if it is valid. */
int dump_workload(const char *path, const char *shown);
#endif
