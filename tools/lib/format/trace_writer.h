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
	uint32_t tid;                 /* of the last record put */
	uint64_t last_ts;             /* its clock value: a new chunk's for a record of ts 0 */
	int swap;                     /* slots go out in the other byte order (an appended copy) */
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
/* Version 5 (the header's flags with MTRACE_HF_STACKS, and its stack_depth, set before the first
   record).  trace_writer_put_caller: rec preceded by its CALLER record (stack id, 0 none; the
   allocating call's return address, 0 unknown) in one reservation, when rec is an allocating
   call and the trace has stacks (else rec alone, as trace_writer_put).  The extended records go
   in the chunk of the last record put (its thread; the pid's before any): trace_writer_put_ext
   writes a head (call, flags, x, ts, a, b; aux is set here) with nwords payload words (at most
   MTRACE_EXT_WORDS_MAX); the three below lay out each kind's payload. */
int trace_writer_put_caller(struct trace_writer *w, const struct mtrace_record *rec,
			    uint32_t stack, uint64_t ret);
int trace_writer_put_ext(struct trace_writer *w, const struct mtrace_slot *head,
			 const uint64_t *words, unsigned nwords);
/* A STACK: frames innermost first (at most MTRACE_STACK_DEPTH_MAX kept), none of them 0 */
int trace_writer_stack(struct trace_writer *w, uint32_t id, uint64_t ts, const uint64_t *frames,
		       unsigned n);
struct trace_writer_object {
	uint32_t id;                  /* 1.. ; an unload gives its load's */
	int unloaded;
	uint64_t ts, bias, lo, hi;    /* when; load bias; the mapped range [lo, hi) */
	const void *build_id;         /* build_id_len bytes (<= MTRACE_BUILD_ID_MAX) */
	unsigned build_id_len;
	const char *path;             /* NULL: none */
};
int trace_writer_object(struct trace_writer *w, const struct trace_writer_object *o);
struct trace_writer_symbol {
	uint64_t addr;                /* as a frame holds it */
	uint32_t object, line;        /* object id (0 none), line (0 unknown) */
	uint32_t fn_off;              /* addr's offset in its function; UINT32_MAX unknown */
	const char *name, *file;      /* NULL: unknown; cut to fit one record */
};
int trace_writer_symbol(struct trace_writer *w, const struct trace_writer_symbol *y);
/* The pid the header names (1 if none): the thread of extended records put before any other */
int32_t trace_writer_pid(struct trace_writer *w);
/* Append records to the copy of a version-3 or later trace being written to f (its header h,
   in host order as the copy is; pos bytes in f so far, a whole number of slots past the
   header), in chunks of thread tid following its chunk at file offset prev_chunk, from clock
   value ts (trace_pack's names); swap: the copy is in the other byte order.  trace_writer_append_end writes the rest of the last chunk as unwritten slots; f
   stays the caller's (w->err says what failed). */
void trace_writer_append(struct trace_writer *w, FILE *f, const struct mtrace_file_header *h,
			 uint64_t pos, uint32_t tid, uint64_t prev_chunk, uint64_t ts, int swap);
int trace_writer_append_end(struct trace_writer *w);
int trace_writer_finish(struct trace_writer *w);
void trace_writer_abort(struct trace_writer *w);
#endif
