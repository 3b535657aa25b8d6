/* trace_reader_int.h - what the trace reader's files share (trace_reader.h is the tools' API):
 * the input (buffered, mapped or from a decompressor), dj/malloc records, and error messages.
 * Not for the reader's users. */
#ifndef TRACE_READER_INT_H
#define TRACE_READER_INT_H
#include <sys/types.h>
#include "trace_reader.h"

#define READ_BUF (256u << 10)
#define TRACE_DEC 128   /* version 3: records decoded at a time: 8 KiB, a quarter of a
                           first-level cache (512 fill it, and are evicted before the order
                           copies them: cachegrind counts 45% more misses of it) */

/* r->err = "NAME: offset OFF: message"; -1 */
int trace_fail(struct trace_reader *r, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---------------------------------------------------------------------------------------------
   Input (trace_input.c, trace_map.c)
   ------------------------------------------------------------------------------------------- */

ssize_t trace_refill(struct trace_reader *r, size_t want);

/* Make at least want bytes available (fewer only at end of file).  Returns what is available,
   or -1 on a read error.  (Inline: the bytes are most often at hand already.) */
static inline ssize_t trace_fill(struct trace_reader *r, size_t want)
{
	if (r->buf_len - r->buf_pos >= want || r->eof)
		return (ssize_t)(r->buf_len - r->buf_pos);
	return trace_refill(r, want);
}

/* trace_fill for the record at r->offset: what is available, or -1 with r->err set (the file
   shrank under its mapping, or a read failed) */
ssize_t trace_fill_record(struct trace_reader *r, size_t want);
/* After trace_fill failed: -1 with r->err set (the read's error, unless the input was refused
   and r->err says why) */
int trace_read_failed(struct trace_reader *r);
/* n bytes of unwritten records at file offset at, counted: 0, or -1 with r->err set when they
   make a run longer than a trace has (MTRACE_UNWRITTEN_RUN_MAX) */
int trace_unwritten(struct trace_reader *r, uint64_t at, unsigned n);
/* At the end of the input, or short of a record: -1 with r->err set if the decompressor failed
   (its data corrupt or truncated); else 0 */
int trace_input_failed(struct trace_reader *r);

/* Decompress r's input, whose first have bytes are in r->buf, through prog into a pipe.
   0, or -1 with r->err set. */
int trace_decompress(struct trace_reader *r, const char *prog, size_t have);
/* After end of input: did the decompressor fail?  Reaps it. */
int trace_child_failed(struct trace_reader *r);

/* After the header: read the records in place if the input is a plain file of some size whose
   records need no conversion. */
void trace_map_start(struct trace_reader *r);
/* Back to reading: at the end, or when a window cannot be mapped. */
void trace_map_end(struct trace_reader *r);
/* trace_refill of a mapped file: a window from the page that holds r->offset.  -2: mapping
   failed, read from here on. */
ssize_t trace_map_fill(struct trace_reader *r, size_t want);

/* ---------------------------------------------------------------------------------------------
   Version 3 slots and version 5's extended records (trace_slots.c, trace_ext.c)
   ------------------------------------------------------------------------------------------- */

void trace_swap_slot(struct mtrace_slot *s);
/* Is s[1] a wide record's second slot (its stack id taken out: mtrace_take_stack)?  Its call,
   flags and aux are 0 */
static inline int trace_second_slot_ok(const struct mtrace_slot *s)
{
	return (s[1].call | s[1].flags | s[1].aux) == 0;
}
/* Version 6's stack id of an allocating record of thread tid, as version 5's CALLER slot before
   it reads (its return address unknown: 0): what every reader hands on ahead of the call */
static inline struct mtrace_record trace_caller_record(uint32_t tid, uint32_t stack)
{
	return (struct mtrace_record){ .tid = tid, .call = MTRACE_CALL_CALLER, .size = stack };
}
/* The need slots at p (a CALLER or an extended record's, at file offset at) into r->ext, in
   host order, checked: 0, or -1 with r->err set */
int trace_ext_read(struct trace_reader *r, const unsigned char *p, unsigned need, uint64_t at);

/* ---------------------------------------------------------------------------------------------
   dj/malloc traces (trace_dj.c)
   ------------------------------------------------------------------------------------------- */

/* Do the n bytes at b begin a dj/malloc trace (its magic first record)? */
int trace_dj_is(const unsigned char *b, size_t n);
/* Make r's header that of a dj/malloc trace.  0. */
int trace_dj_open(struct trace_reader *r);
/* One dj record at p as an mtrace record: 1; 0 to skip it; -1 if it is bad (*bad says why). */
int trace_dj_convert(struct trace_reader *r, const unsigned char *p, struct mtrace_record *rec,
		     const char **bad);
#endif
