/* trace_input.c - the trace reader's input: buffered reads, and a compressed file's
 * decompressor process feeding it through a pipe. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "input.h"
#include "tool.h"
#include "trace_read.h"

/* ---------------------------------------------------------------------------------------------
   Buffered input
   ------------------------------------------------------------------------------------------- */

/* trace_fill's slow half (trace_read.h): a mapped window, or a read into the buffer */
ssize_t trace_refill(struct trace_reader *r, size_t want)
{
	if (r->map_mode) {
		ssize_t k = trace_map_fill(r, want);
		if (k != -2)
			return k;
	}
	memmove(r->buf, r->buf + r->buf_pos, r->buf_len - r->buf_pos);
	r->buf_len -= r->buf_pos;
	r->buf_pos = 0;
	while (r->buf_len < want && !r->eof) {
		ssize_t n = read(r->fd, r->buf + r->buf_len, READ_BUF - r->buf_len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			r->eof = 1;
		r->buf_len += (size_t)n;
		r->bytes_read += (uint64_t)n;
		if (r->progress)
			r->progress(r->bytes_read, r->progress_arg);
	}
	return (ssize_t)r->buf_len;
}

/* trace_fill for the record at r->offset: what is available, or -1 with r->err set (the file
   shrank under its mapping, or a read failed) */
ssize_t trace_fill_record(struct trace_reader *r, size_t want)
{
	if (r->shrunk)
		return trace_fail(r, r->offset, "the file shrank while it was read (another "
				  "process truncated it)");
	ssize_t have = trace_fill(r, want);
	if (have < 0) {
		snprintf(r->err, sizeof r->err, "%s: offset %llu: %s", r->name,
			 (unsigned long long)r->offset, strerror(errno));
		return -1;
	}
	return have;
}

/* ---------------------------------------------------------------------------------------------
   Compressed input: the external program decompresses into a pipe
   ------------------------------------------------------------------------------------------- */

/* (input_decompress: input.h) */
int trace_decompress(struct trace_reader *r, const char *prog, size_t have)
{
	char err[300];
	pid_t child, feeder;
	struct stat st;
	if (fstat(r->fd, &st) == 0 && S_ISREG(st.st_mode))
		r->compressed_size = (uint64_t)st.st_size;
	int fd = input_decompress(prog, r->fd, r->buf, have, &child, &feeder, err, sizeof err);
	if (fd < 0)
		return trace_fail(r, 0, "%s", err);
	if (r->own_fd)
		close(r->fd);
	r->fd = fd;
	r->child = child;
	r->feeder = feeder;
	r->compression = prog;
	r->buf_len = r->buf_pos = 0;
	r->eof = 0;
	return 0;
}

void trace_progress_start(struct tool_progress *p, int on, const struct trace_reader *r)
{
	tool_progress_start(p, on, r->child ? -1 : r->fd, r->name);
	if (r->child && !r->feeder)   /* (it reads the file itself: its standard input) */
		tool_progress_child(p, r->child, 0, r->compressed_size);
}

int trace_child_failed(struct trace_reader *r)
{
	pid_t child = r->child, feeder = r->feeder;
	int failed = input_reap(&child, &feeder, 0);
	r->child = r->feeder = 0;
	return failed;
}

int trace_input_failed(struct trace_reader *r)
{
	if (!trace_child_failed(r))
		return 0;
	return trace_fail(r, r->offset, "%s -dc failed: the compressed data is corrupt or "
			  "truncated", r->compression);
}
