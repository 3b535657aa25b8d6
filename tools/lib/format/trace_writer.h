/* trace_writer.h - writing trace files from tools (trace_import; the preload has its own,
 * lock-free writer).  Records of one thread, chunked as the format requires, into a temporary
 * file renamed into place when complete (or, for standard output, a device or a pipe, in
 * place: written in one sequential pass).  Format: include/mtrace-trace.h. */
#ifndef TRACE_WRITER_H
#define TRACE_WRITER_H
#include <stdio.h>
#include "mtrace-trace.h"
#include "output.h"

struct trace_writer {
	char *path;
	struct output out;
	unsigned char *page;          /* the header, written before the first record */
	uint32_t strings;             /* where its next string goes */
	FILE *f;
	uint64_t in_chunk, chunk_off, prev_chunk, written;
	uint64_t pos;                 /* bytes written: chunk offsets without seeking (pipes) */
	uint32_t tid;
	uint64_t hdr_copy[sizeof(struct mtrace_file_header) / 8];   /* the header, once written */
	struct tool_err err;          /* what failed, and the exit status it calls for */
};

/* Start a trace of process pid (exe may be NULL) whose ticks are nanoseconds. */
int trace_writer_open(struct trace_writer *w, const char *path, int32_t pid, const char *exe);
/* The header, until the first record is put: a writer of version-2 records sets its flags and
   fields here (start_ticks, memory_interval_ms, resident_min, ...). */
struct mtrace_file_header *trace_writer_header(struct trace_writer *w);
/* Put the allocator's path in the header (before the first record).  0, or -1 if it does not
   fit. */
int trace_writer_allocator(struct trace_writer *w, const char *path);
/* The same for the allocators' settings: NAME=VALUE strings, each followed by a NUL in the
   header (mtrace_is_setting says which environment entries are), n of them. */
int trace_writer_settings(struct trace_writer *w, char *const *settings, int n);
/* Append a record (its tid is used for the chunks; one thread per file). */
int trace_writer_put(struct trace_writer *w, const struct mtrace_record *rec);
int trace_writer_finish(struct trace_writer *w);
void trace_writer_abort(struct trace_writer *w);
#endif
