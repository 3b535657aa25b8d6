/* wl_writer.h - writing workload files (format: include/mtrace-workload.h).
 *
 * Operations are appended to per-thread streams in any interleaving; each thread's stream is
 * buffered in memory and moved out in blocks, so memory does not grow with the workload.  The
 * first stream to outgrow its buffer goes straight into the output (a temporary file) at its
 * final place; the others into a scratch file beside it, copied after it by finish().  A
 * one-thread workload is thus written once, and a many-thread one needs less scratch space.
 * finish() completes the temporary file and renames it over the output: a failed run never
 * leaves a file that looks valid. */
#ifndef WL_WRITER_H
#define WL_WRITER_H
#include <stddef.h>
#include <stdint.h>
#include "mtrace-workload.h"
#include "output.h"
#include "varint.h"

struct wl_block { uint64_t off, len, at; };   /* at: its position in the stream */
struct wl_tstream {
	uint32_t tid;
	uint64_t ncalls;              /* calls (not WAIT or END) appended */
	uint64_t spilled;             /* bytes of the stream already in the scratch file */
	uint8_t *buf;
	size_t len;
	size_t room;                  /* the buffer's size less the longest op: len above it, and
	                                 room is made (the buffer grows from WL_TBUF_FIRST to
	                                 WL_TBUF, then spills) */
	struct wl_block *blocks;
	size_t nblocks, cap_blocks;
};

struct wl_writer {
	char *out_path;
	struct output out;
	int tmp_fd;                   /* out's temporary file, or -1 */
	int direct_fd;                /* out written in place (tool_output_in_place), or -1 */
	int spill_fd;
	uint64_t spill_end;
	int64_t direct;               /* the stream written into tmp_fd in place, or -1 */
	uint64_t direct_base;         /* its offset: after the header and room for the thread
	                                 table */
	struct wl_tstream *t;
	uint32_t nthreads, cap_threads;
	struct wl_tstream samples;    /* the sample table, spilled as a stream is */
	uint64_t nsamples;
	struct tool_err err;          /* what failed, and the exit status it calls for */
};

int wl_writer_open(struct wl_writer *w, const char *out_path);
/* Index of a new thread stream. */
int64_t wl_writer_thread(struct wl_writer *w, uint32_t tid);
#define WL_TBUF (32u * 1024)     /* per-thread buffer before it spills */
#define WL_TBUF_FIRST 256u       /* its first size: a program whose threads come and go has
                                    many streams of a few calls (30,000 threads took 135 MB
                                    at 32 KiB each, a page of it touched) */
#define WL_TABLE_ROOM 256u       /* thread table entries kept free before the direct stream
                                    (at least twice the threads it has then); a workload with
                                    more threads has its table at the end instead */

/* Room for the next op in stream s: its buffer grown, or moved to the scratch file once it
   is WL_TBUF long; 0 or -1 with w->err set. */
int wl_writer_make_room(struct wl_writer *w, struct wl_tstream *s);
#define WL_OP_MAX (1 + 4 * VARINT_MAX)   /* the longest op: an opcode and four operands */

/* Append opcode op with n operands to stream i (a call unless op is WAIT or END). */
static inline int wl_writer_op(struct wl_writer *w, uint32_t i, unsigned op, int n,
			       const uint64_t *operands)
{
	struct wl_tstream *s = &w->t[i];
	if (__builtin_expect(s->len > s->room, 0) && wl_writer_make_room(w, s) < 0)
		return -1;
	uint8_t *p = s->buf + s->len;
	*p++ = (uint8_t)op;
	for (int k = 0; k < n; k++)
		p += varint_put(p, operands[k]);
	s->len = (size_t)(p - s->buf);
	s->ncalls += mtrace_wl_is_call(op);
	return 0;
}

/* An operation whose one operand is written WL_FIXED bytes long, whatever its value (LEB128
   with continuation bits to spare), so that wl_writer_patch can put another value there once
   it is known: its operand's position in the stream, or -1 with w->err set. */
#define WL_FIXED 6                /* up to 2^42 - 1 */
static inline int64_t wl_writer_op_fixed(struct wl_writer *w, uint32_t i, unsigned op, uint64_t v)
{
	struct wl_tstream *s = &w->t[i];
	if (__builtin_expect(s->len > s->room, 0) && wl_writer_make_room(w, s) < 0)
		return -1;
	s->buf[s->len++] = (uint8_t)op;
	int64_t at = (int64_t)(s->spilled + s->len);
	varint_put_fixed(s->buf + s->len, v, WL_FIXED);
	s->len += WL_FIXED;
	return at;
}

/* Where the next op of stream i will be: its position in the stream (for wl_writer_patch) */
static inline uint64_t wl_writer_mark(const struct wl_writer *w, uint32_t i)
{
	return w->t[i].spilled + w->t[i].len;
}
/* Overwrite n bytes at position pos of stream i, written already (wherever they are now: in
   its buffer, the output or the scratch file).  0, or -1 with w->err set. */
int wl_writer_patch(struct wl_writer *w, uint32_t i, uint64_t pos, const uint8_t *bytes, size_t n);
/* Append a memory sample to the sample table (written after the streams; finish() fills the
   header's samples, nsamples and the flag).  0, or -1 with w->err set. */
int wl_writer_sample(struct wl_writer *w, const struct mtrace_wl_sample *s);
/* The size the file will have once finished (with each stream's END). */
uint64_t wl_writer_size(const struct wl_writer *w);
/* Complete the header (nthreads, thread_table, file_size are filled in), write, rename. */
int wl_writer_finish(struct wl_writer *w, struct mtrace_wl_header *h);
/* Remove the temporary files (after an error). */
void wl_writer_abort(struct wl_writer *w);
#endif
