/* trace_input.c - the trace reader's input: buffered reads, and a compressed file's
 * decompressor process feeding it through a pipe. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "input.h"
#include "msg.h"
#include "progress.h"
#include "trace_follow.h"
#include "trace_reader_int.h"

/* ---------------------------------------------------------------------------------------------
   Buffered input
   ------------------------------------------------------------------------------------------- */

/* A followed trace (trace_open_follow): *room cut to what is final, waiting until some is or
   the writer is done (then the header's fields that change at its end are taken).  0, or -1
   with r->err set. */
static int follow_room(struct trace_reader *r, size_t *room)
{
	for (;;) {
		const char *why;
		uint64_t at;
		int done = trace_follow_poll(r->follow, NULL, NULL, &why, &at);
		if (done < 0) {
			r->failed = 1;
			return trace_fail(r, at, "%s", why ? why : "stopped");
		}
		const struct mtrace_file_header *h = trace_follow_header(r->follow);
		r->hdr.flags = h->flags;
		r->hdr.ticks_per_sec = h->ticks_per_sec;
		r->hdr.stop_ticks = h->stop_ticks;
		r->hdr.calls_recorded = h->calls_recorded;
		r->hdr.stop_reason = h->stop_reason;
		r->hdr.stop_errno = h->stop_errno;
		r->hdr.live_untracked = h->live_untracked;
		r->hdr.stacks_dropped = h->stacks_dropped;
		uint64_t stable = trace_follow_stable(r->follow);
		if (stable > r->bytes_read || done) {
			if (stable - r->bytes_read < *room && stable > r->bytes_read)
				*room = (size_t)(stable - r->bytes_read);
			return 0;
		}
		struct timespec t = { r->follow_ms / 1000, (long)(r->follow_ms % 1000) * 1000000 };
		nanosleep(&t, NULL);
	}
}

/* trace_fill's slow half (trace_reader_int.h): a mapped window, or a read into the buffer */
ssize_t trace_refill(struct trace_reader *r, size_t want)
{
	if (r->map_mode) {
		ssize_t k = trace_map_fill(r, want);
		if (k != -2)
			return k;
	}
	if (r->failed)
		return -1;
	memmove(r->buf, r->buf + r->buf_pos, r->buf_len - r->buf_pos);
	r->buf_len -= r->buf_pos;
	r->buf_pos = 0;
	while (r->buf_len < want && !r->eof) {
		size_t room = READ_BUF - r->buf_len;
		if (r->follow && follow_room(r, &room) < 0)
			return -1;
		ssize_t n = read(r->fd, r->buf + r->buf_len, room);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			r->eof = 1;
		if (r->tee && n > 0 && r->tee(r->tee_arg, r->buf + r->buf_len, (size_t)n) < 0) {
			r->failed = 1;
			return trace_fail(r, r->bytes_read, "its copy failed");
		}
		r->buf_len += (size_t)n;
		r->bytes_read += (uint64_t)n;
		/* (a decompressor's output: its written records against its input) */
		struct tool_err over;
		if (r->decomp.child &&
		    input_overgrown(&r->decomp, r->bytes_read - r->unwritten_bytes, &over)) {
			r->failed = 1;
			return trace_fail(r, r->bytes_read, "%s", over.msg);
		}
		if (r->progress)
			r->progress(r->bytes_read, r->progress_arg);
	}
	return (ssize_t)r->buf_len;
}

int trace_read_failed(struct trace_reader *r)
{
	if (!r->failed)
		tool_fail(&r->err, EXIT_BADFILE, "%s: offset %llu: %s", r->name,
			  (unsigned long long)r->offset, strerror(errno));
	return -1;
}

/* trace_fill for the record at r->offset: what is available, or -1 with r->err set (the file
   shrank under its mapping, or a read failed) */
ssize_t trace_fill_record(struct trace_reader *r, size_t want)
{
	if (r->shrunk)
		return trace_fail(r, r->offset, "the file shrank while it was read (another "
				  "process truncated it)");
	ssize_t have = trace_fill(r, want);
	return have < 0 ? trace_read_failed(r) : have;
}

/* ---------------------------------------------------------------------------------------------
   Compressed input: the external program decompresses into a pipe
   ------------------------------------------------------------------------------------------- */

/* (input_decompress: input.h) */
int trace_decompress(struct trace_reader *r, const char *prog, size_t have)
{
	struct tool_err err;
	int fd = input_decompress(prog, r->fd, r->buf, have, &r->decomp, &err);
	if (fd < 0) {
		input_reap(&r->decomp, 1);
		return trace_fail(r, 0, "%s", err.msg);
	}
	if (r->own_fd)
		close(r->fd);
	r->fd = fd;
	r->compression = prog;
	r->buf_len = r->buf_pos = 0;
	r->bytes_read = 0;
	r->eof = 0;
	return 0;
}

void trace_progress_start(struct tool_progress *p, int on, const struct trace_reader *r)
{
	tool_progress_start(p, on, r->decomp.child ? -1 : r->fd, r->name);
	if (r->decomp.child && !r->decomp.feeder)   /* (it reads the file itself) */
		tool_progress_child(p, r->decomp.child, 0, r->decomp.size);
}

int trace_child_failed(struct trace_reader *r)
{
	return input_reap(&r->decomp, 0);
}

int trace_input_failed(struct trace_reader *r)
{
	if (!trace_child_failed(r))
		return 0;
	return trace_fail(r, r->offset, "%s -dc failed: the compressed data is corrupt or "
			  "truncated", r->compression);
}

int trace_read_all(struct trace_reader *r)
{
	const struct mtrace_record *recs;
	size_t n;
	int k;
	while ((k = trace_next_run(r, &recs, &n)) > 0)
		;
	return k;
}

/* ---------------------------------------------------------------------------------------------
   A stream copied as far as it is a trace
   ------------------------------------------------------------------------------------------- */

struct copy_tee { struct input_copy *c; struct tool_err *e; int failed; };

static int copy_tee(void *arg, const unsigned char *b, size_t n)
{
	struct copy_tee *t = arg;
	t->failed = input_copy_write(t->c, b, n, t->e) < 0;
	return t->failed ? -1 : 0;
}

int trace_copy(struct input_copy *c, const unsigned char *head, size_t n, int src,
	       struct tool_err *e)
{
	struct copy_tee t = { c, e, 0 };
	struct trace_reader r;
	int k = trace_open_stream(&r, src, c->shown, head, n, copy_tee, &t);
	if (k == 0)
		k = trace_read_all(&r);
	if (k < 0 && !t.failed)
		tool_fail(e, EXIT_BADFILE, "%s", r.err.msg);
	trace_close(&r);
	return k;
}
