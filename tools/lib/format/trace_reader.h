/* trace_reader.h - the one reader of trace files, shared by every tool.
 *
 * Streams a trace from a file or stdin in fixed buffers (memory does not grow with the trace;
 * a plain file of some size is mapped a window at a time and its records read in place),
 * converts every header field and record to host byte order, validates each record and names
 * the byte offset of anything wrong.  Unwritten records (reserved, never committed) are skipped
 * and counted; records are returned in file order, chunk records included.
 *
 * Also reads original dj/malloc traces (headless 64-byte records in native order, recognised by
 * their magic first record; returned as mtrace records with ts = record index, already in
 * global order), and gzip, xz or zstd compressed files of either kind, through the external
 * decompressor when it is installed.
 */
#ifndef TRACE_READER_H
#define TRACE_READER_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "input.h"
#include "mtrace-trace.h"

/* TRACE_FMT_WORKLOAD: trace_open failed because the file is a workload (ours or dj/malloc's),
   not a trace; the message says so, and trace_dump prints it as one instead. */
enum trace_format { TRACE_FMT_MTRACE = 0, TRACE_FMT_DJ = 1, TRACE_FMT_WORKLOAD = 2 };

/* Where trace_open_stream's reader sends every byte it reads: 0, or -1 to stop reading (the
   reader then fails, and the tee's own error is the news) */
typedef int trace_tee_fn(void *arg, const unsigned char *b, size_t n);

struct trace_reader {
	const char *name;               /* for messages */
	int fd;
	int own_fd;
	int swap;                       /* the writer's byte order differs from ours */
	int format;                     /* enum trace_format */
	const char *compression;        /* "gzip", "xz", "zstd" or NULL */
	struct input_dec decomp;        /* its decompressor (decomp.child 0: none) */
	uint64_t seq;                   /* dj: index of the next record */
	struct mtrace_file_header hdr;  /* host order */
	char exe[4096];                 /* NUL-terminated; empty if absent */
	char cmdline[4096];             /* arguments separated by spaces, each quoted for a shell
	                                   where it needs it (an empty one as ''); empty if absent */
	char argv0[256];                /* the program's name as it was run: the file name of its
	                                   first argument (a link's, where exe names its target;
	                                   a title's first word); empty if absent */
	char settings[1400];            /* the allocators' settings (NAME=VALUE) and the program's
	                                   mallopt calls (M_NAME=VALUE), separated by spaces; empty
	                                   if none: the environment's, with those the program set
	                                   through its allocator as it ran merged in */
	char settings_set[640];         /* those the program set as it ran alone: through its
	                                   allocator's control interface, and its mallopt calls */
	char allocator[512];            /* the path of the allocator traced; empty if unknown */
	uint64_t offset;                /* file offset of the next record */
	uint64_t n_written;             /* committed records returned so far (chunks included) */
	uint64_t n_unwritten;           /* never-committed records skipped */
	uint64_t n_torn;                /* of those, ones with some bytes written (process
	                                   killed) */
	uint64_t n_chunks;              /* chunk records read so far */
	uint64_t n_stalls;              /* of those, ones taken at the clock value of the chunk
	                                   before (trace_clock_stalled) */
	uint64_t stall_off;             /* the first of them's file offset */
	uint64_t chunk_ts;              /* the last chunk's clock value */
	uint64_t unwritten_bytes;       /* the bytes they took */
	uint64_t run_start, run_end;    /* the last run of them: file offsets [start, end) */
	unsigned char *buf;             /* the bytes at hand: the read buffer, or in a mapped
	                                   file the window (the records are read in place) */
	size_t buf_len, buf_pos;
	unsigned char *rbuf;            /* the read buffer */
	int map_mode;                   /* a plain file, read in mapped windows */
	unsigned char *map;             /* the window, or NULL */
	size_t map_len;
	volatile int shrunk;            /* the file shrank under the window (trace_map.c) */
	int fast;                       /* native-order mtrace trace with 64-bit pointers: records
	                                   are checked and returned in place (trace_next_ref) */
	int slots;                      /* version 3: 32-byte slots, decoded a run at a time into
	                                   dec (trace_next_ref, trace_next_run) */
	uint32_t chunk_tid;             /* version 3: the thread of the chunk being read, and the */
	uint64_t chunk_end;             /* file offset of its end (0: outside any chunk) */
	struct mtrace_record *dec;      /* version 3: decoded records, dec_n of them, dec_i the */
	uint64_t *dec_offs;             /* next to hand out, and their file offsets */
	size_t dec_n, dec_i;
	struct mtrace_record scratch;   /* trace_next_ref's record when it is not in place */
	/* Version 5's CALLER and extended records (STACK, OBJECT, SYMBOL), always checked: with
	   ext_return set (after trace_open) they are returned in file order, an extended record
	   in a run of its own (trace_ext_slots); with ext_fn set they go to it as they are read
	   (before the records read with them are handed out: for tools that read through
	   order.c), and are not returned; with neither they are skipped (tools that do not care
	   never see them).  ext_fn returns 0, or -1 to stop reading (with ext_err set). */
	int ext_return;
	int (*ext_fn)(void *arg, const struct mtrace_record *rec,
		      const struct mtrace_slot *slots, uint64_t off);
	void *ext_arg;
	const char *ext_err;            /* ext_fn's message when it failed ("FILE: offset N: ..") */
	struct mtrace_slot *ext;        /* the last extended record's slots (room for 257) */
	uint64_t n_ext;                 /* CALLER and extended records read */
	int eof;
	/* called after each read from the input with the bytes read so far (set after
	   trace_open; tool_progress fits) - every consumer of the reader gets progress alike */
	void (*progress)(uint64_t bytes, void *arg);
	void *progress_arg;
	uint64_t bytes_read;
	struct trace_follow *follow;    /* trace_open_follow's: the file is still being written */
	unsigned follow_ms;             /* how often to look at it again */
	trace_tee_fn *tee;              /* trace_open_stream's */
	void *tee_arg;
	int failed;                     /* the input was refused (r->err says why): not a read
	                                   error */
	struct tool_err err;            /* the error, "NAME: offset N: what"; last, as it is
	                                   large and read only at the end */
};

/* 0: compressed input is an error instead of starting a decompressor (fuzzing). */
extern int trace_reader_decompress;
/* What a tool reads, for the message about a text file that is not it ("a trace": "text, not
   a trace"); trace_dump, which also prints workloads, says "a trace or a workload". */
extern const char *trace_reader_wants;
/* Plain files of at least map_min bytes are mapped map_window bytes at a time (4 MiB and 1 MiB;
   the fuzzer maps every file, a page at a time, and compares with reading it). */
extern uint64_t trace_reader_map_min, trace_reader_map_window;

/* Do the n bytes at b begin a trace (ours, or dj/malloc's)?  NULL if so, else what the file is
   instead: an input_check_fn (input.h) for tools that copy a stream before reading it. */
const char *trace_head_check(const unsigned char *b, size_t n);

/* A stream copied as far as it is a trace, every record checked (input_copy_fn, input.h): the
   copy stops at the first bytes that cannot be a trace's */
input_copy_fn trace_copy;

/* Open PATH ("-" for stdin) and read its header.  0, or -1 with r->err set. */
int trace_open(struct trace_reader *r, const char *path);
/* trace_open for a trace still being written (a plain file, version 3 or later): the reader
   waits at the end of what is final (trace_follow.h), looking again every poll_ms, and ends
   when the writer is done, having read what a reader of the finished file reads.  Remote
   writers (a received file) are done after idle_ms without growth. */
int trace_open_follow(struct trace_reader *r, const char *path, unsigned poll_ms,
		      unsigned idle_ms);
/* The same for fd, a stream of which the first n bytes (at head) are read already; messages
   call it name.  Every byte of the trace (decompressed, if it is compressed), from its first,
   goes to tee as it is read, when tee is not NULL.  fd stays open after trace_close. */
int trace_open_stream(struct trace_reader *r, int fd, const char *name, const unsigned char *head,
		      size_t n, trace_tee_fn *tee, void *tee_arg);

/* Progress p (tool.h) of reading r, opened: of its file's size, or, for a compressed file, how
   far the decompressor has read it (tool_progress_start's on) */
struct tool_progress;
void trace_progress_start(struct tool_progress *p, int on, const struct trace_reader *r);

/* Next committed record, in host order: 1; end of file: 0; error: -1 with r->err set.
   *off receives the record's file offset. */
int trace_next(struct trace_reader *r, struct mtrace_record *rec, uint64_t *off);

/* The same, without a copy: *rec points at the record (in host order, checked) until the next
   call.  The common case (a native-order trace with 64-bit pointers, record in the buffer) is
   inline; everything else goes through trace_next_slow. */
int trace_next_slow(struct trace_reader *r, const struct mtrace_record **rec, uint64_t *off);

/* Records of a native-order trace taken on the fast path, thread id aside: an allocator call
   (not a chunk record) with known flags other than the version-2 ones, and no result where none
   can be - a subset of what trace_record_check accepts.  The rest (mapping calls, memory samples,
   resident bytes: a few in thousands) take the slow path, which checks them against the header. */
#define TRACE_FAST_FLAGS (MTRACE_RF_KNOWN & ~(MTRACE_RF_RESIDENT | MTRACE_RF_OWN))
static inline int trace_call_ok(const struct mtrace_record *p)
{
	/* & and |, not && and ||: the parts that depend on the call would be branches, which a
	   trace of mallocs and frees in random order mispredicts half the time */
	unsigned call = p->call, flags = p->flags;
	return (call - 1u <= MTRACE_CALL_LAST_API - 1u) & ((flags & ~TRACE_FAST_FLAGS) == 0) &
	       ((p->result == 0) | ((call != MTRACE_CALL_FREE) & !(flags & MTRACE_RF_FAILED)));
}

/* The fast path's records, with a thread.  Chunk records (one in up to 1,023) take the slow
   path, which checks the process that wrote them. */
static inline int trace_fast_ok(const struct mtrace_record *p)
{
	return p->tid != 0 && trace_call_ok(p);
}

/* Version 3: decode the next run of records into r->dec: its length, 0 at the end, -1 on error. */
int trace_decode_run(struct trace_reader *r);

static inline int trace_next_ref(struct trace_reader *r, const struct mtrace_record **rec,
				 uint64_t *off)
{
	if (r->slots) {
		if (r->dec_i == r->dec_n) {
			int k = trace_decode_run(r);
			if (k <= 0)
				return k;
		}
		if (off)
			*off = r->dec_offs[r->dec_i];
		*rec = &r->dec[r->dec_i++];
		return 1;
	}
	if (__builtin_expect(r->fast && r->buf_len - r->buf_pos >= MTRACE_RECORD_SIZE, 1)) {
		const struct mtrace_record *p = (const struct mtrace_record *)(r->buf + r->buf_pos);
		if (__builtin_expect(trace_fast_ok(p), 1)) {
			if (off)
				*off = r->offset;
			r->buf_pos += MTRACE_RECORD_SIZE;
			r->offset += MTRACE_RECORD_SIZE;
			r->n_written++;
			*rec = p;
			return 1;
		}
	}
	return trace_next_slow(r, rec, off);
}

/* Bytes mapped past a window's end (the next window maps them again) */
#define TRACE_MAP_AHEAD (64u * 1024)

/* The input at hand that is not handed out yet: [*p, *end), to be loaded into the caches ahead
   of the reader (prefetches only: in a mapped file it runs on into the next window). */
static inline void trace_ahead(const struct trace_reader *r, const unsigned char **p,
			       const unsigned char **end)
{
	*p = r->buf + r->buf_pos;
	*end = r->map ? r->map + r->map_len : r->buf + r->buf_len;
}

/* Records a run's scan asks for ahead: the next page, which the hardware does not fetch ahead
   of its own (in a mapped file they come from memory, not from a copy just made) */
#define TRACE_PREFETCH_AHEAD 64

/* A run of records at once: *n >= 1 consecutive committed records of one thread, none of them
   a chunk record (a chunk record comes alone, as a run of 1), in host order and checked, valid
   until the next call.  1, 0 at the end, -1 on error, as trace_next_ref. */
static inline int trace_next_run(struct trace_reader *r, const struct mtrace_record **recs,
				 size_t *n)
{
	if (r->slots) {
		if (r->dec_i == r->dec_n) {
			int k = trace_decode_run(r);
			if (k <= 0)
				return k;
		}
		*recs = &r->dec[r->dec_i];
		*n = r->dec_n - r->dec_i;
		r->dec_i = r->dec_n;
		return 1;
	}
	int k = trace_next_ref(r, recs, NULL);
	*n = 1;
	if (k <= 0 || !r->fast || (*recs)->call == MTRACE_CALL_CHUNK ||
	    (const unsigned char *)*recs != r->buf + r->buf_pos - MTRACE_RECORD_SIZE)
		return k;
	/* the first record is in place: take the valid ones of its thread after it */
	const struct mtrace_record *p = *recs + 1;
	const struct mtrace_record *end = (const struct mtrace_record *)
		(r->buf + r->buf_pos +
		 (r->buf_len - r->buf_pos) / MTRACE_RECORD_SIZE * MTRACE_RECORD_SIZE);
	uint32_t tid = (*recs)->tid;
	while (p < end && p->tid == tid && trace_call_ok(p)) {   /* tid is not 0 */
		__builtin_prefetch(p + TRACE_PREFETCH_AHEAD);
		p++;
	}
	size_t more = (size_t)(p - (*recs + 1));
	*n += more;
	r->buf_pos += more * MTRACE_RECORD_SIZE;
	r->offset += more * MTRACE_RECORD_SIZE;
	r->n_written += more;
	return 1;
}

/* The slots of the extended record trace_next last returned (head, then rec->arg2 continuation
   slots; host order), valid until the next call; NULL if it returned another kind */
static inline const struct mtrace_slot *trace_ext_slots(const struct trace_reader *r,
							const struct mtrace_record *rec)
{
	return mtrace_call_is_ext(rec->call) && r->ext && r->ext->call == rec->call ? r->ext : 0;
}

/* What is wrong with the CALLER or extended record whose head is at s (its continuation slots
   after it, host order) in a trace of header h, or NULL: a constant, or msg (cap bytes) */
const char *trace_ext_problem(const struct mtrace_file_header *h, const struct mtrace_slot *s,
			      char *msg, size_t cap);

/* Every record read (and checked) to the end: 0, or -1 with r->err set */
int trace_read_all(struct trace_reader *r);

void trace_close(struct trace_reader *r);

/* Seconds since the start of the trace for a tick value. */
double trace_seconds(const struct trace_reader *r, uint64_t ticks);

/* What tools warn of a trace flagged MTRACE_HF_BYPASSED (after "FILE: ") */
#define TRACE_BYPASSED_NOTE "the program's own allocator (or one preloaded before the tracer) " \
	"took some of its calls, which the trace does not hold"

/* "x86 TSC", "CLOCK_MONOTONIC", ... */
const char *trace_clock_name(unsigned clock);
/* What the clock counts, as lat_hist.h names units: "cycles", "ns" or "ticks" */
const char *trace_clock_unit(unsigned clock);

/* Chunks are taken one at a time under the writer's lock, their clock read each time: a clock
   that reads the same for two of them cannot tell apart the calls made between, nor put the
   threads' calls in one order (a stopped clock: libfaketime; or one that ticks every few ms).
   The reader counts such chunks (trace_chunk_seen); a trace of several threads with more than
   TRACE_STALLS_MAX of them, an eighth of its chunks or more, is not valid for ordering: 1, and
   the reason after "NAME: offset N: " in buf.  A writer that meets this switches to a count
   (MTRACE_CLOCK_COUNTER) after a few such chunks. */
#define TRACE_STALLS_MAX 4
int trace_clock_stalled(const struct trace_reader *r, uint64_t threads, char *buf, size_t cap);
/* The same count, as a remark for a trace that is still valid ("" if none) */
const char *trace_stall_note(const struct trace_reader *r, char *buf, size_t cap);
void trace_chunk_seen(struct trace_reader *r, const struct mtrace_record *chunk, uint64_t at);

/* Why the writer of a trace flagged MTRACE_HF_STOPPED_EARLY gave up, as a phrase ("the size cap
   (MTRACE_CTL_MAX_SIZE) was reached"), into buf. */
const char *trace_stop_text(const struct mtrace_file_header *h, char *buf, size_t cap);
/* A trace read to its end, api_calls in it (calls 1 to MTRACE_CALL_LAST_API): -1 with r->err
   ("NAME: offset N: truncated: ...") when its writer closed it (or stopped, counting) having
   counted more, a copy cut short at a record's end, which reads as a whole trace but for this;
   else 0 */
int trace_cut_short(struct trace_reader *r, uint64_t api_calls);
/* What tools warn of such a trace (after "FILE: ", before the phrase) */
#define TRACE_STOPPED_NOTE "tracing stopped before the program did, so the calls after its last " \
	"record are missing:"

/* Check a header (already in host order).  0, or -1 with err (EXIT_BADFILE) and
   the file offset of the field at fault in *at. */
int trace_header_check(const struct mtrace_file_header *h, uint64_t *at, struct tool_err *err);

/* Check one record (host order), read at file offset at.  0, or -1 with r->err saying what is
   wrong with it. */
int trace_record_check(struct trace_reader *r, const struct mtrace_record *rec, uint64_t at);

/* Byte-swap a header or record in place (used by the reader, and by tests that make
   foreign-endian traces). */
/* The settings strings of a header (len bytes at src: each NAME=VALUE ended by a NUL, those the
   program set as it ran after an empty one) as space-separated lists: into all, what a replay
   runs with (those set as it ran over the environment's: MALLOC_CONF's keys added to its
   own); into set, those set as it ran alone.  A setting that does not fit whole is left out. */
void trace_settings_read(const unsigned char *src, uint32_t len, char *all, size_t all_cap,
			 char *set, size_t set_cap);
void trace_swap_header(struct mtrace_file_header *h);
void trace_swap_record(struct mtrace_record *rec);

#endif
