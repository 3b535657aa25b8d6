/* names.h - trace_pack's SYMBOL records: the name of every address the trace's stacks hold,
 * resolved here (where the binaries are) and appended to the packed trace, so that it reads the
 * same on a machine without them. */
#ifndef PACK_NAMES_H
#define PACK_NAMES_H
#include <stdint.h>
#include <stdio.h>
#include "msg.h"
#include "stacks.h"

/* After the trace's last chunk (of thread tid, at file offset last_chunk), its copy's pos
   bytes in f: a chunk of SYMBOL records, one for each frame of st that has a name and no
   SYMBOL record yet, in the copy's byte order (swap: the other one; h in ours).  The names
   appended (*n), 0; or -1 with err set. */
int pack_names(struct trace_stacks *st, FILE *f, const struct mtrace_file_header *h,
	       uint64_t pos, uint32_t tid, uint64_t last_chunk, uint64_t ts, int swap,
	       uint64_t *n, struct tool_err *err);
#endif
