/* dump.h - trace_dump: what it was asked to print (its options), shared by the printing of
 * traces (trace_dump.c), of their stacks' records (stacks.c) and of workloads (workload.c).
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

/* a record met in global order: its place in the file is not known */
#define NO_OFFSET UINT64_MAX
struct trace_reader;
struct mtrace_record;
/* A CALLER, STACK or OBJECT record's line (stacks.c), x at file offset off: 1 if x is one */
int print_stack_record(const struct trace_reader *r, const struct mtrace_record *x, uint64_t off);
#endif
