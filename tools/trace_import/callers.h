/* callers.h - trace_import: the "@ CALLER" of mtrace() log lines kept as one-frame call stacks
 * (CALLER and STACK records), with the objects (OBJECT) and functions (SYMBOL) the log names. */
#ifndef CALLERS_H
#define CALLERS_H
#include "mtrace_log.h"
#include "trace_writer.h"
#include "u64map.h"

struct callers {
	struct trace_writer *w;
	int decided, on;              /* the first record says: a log with callers or without */
	struct u64map stacks;         /* address + 1 -> stack id */
	char **objs;                  /* the objects met: id i + 1 */
	uint32_t nobjs;
	uint32_t next_stack;
};

/* Write record r of the log's current line, after its CALLER (and the STACK, OBJECT and
   SYMBOL records its caller needs first) when the log has callers (trace_writer.h's version-5
   records).  0, or -1 with w->err, or with log->err for a caller not of glibc's shape. */
int callers_put(struct callers *c, struct mtrace_log *log, const struct mtrace_record *r);
void callers_free(struct callers *c);
#endif
