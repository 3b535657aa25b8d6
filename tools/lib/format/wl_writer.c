/* wl_writer.c - see wl_writer.h */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "msg.h"
#include "output.h"
#include "wl_writer.h"

#define IOBUF (1u << 20)

static int fail(struct wl_writer *w, const char *what, const char *path)
{
	return tool_fail(&w->err, EXIT_SYSTEM, "%s: %s: %s", path, what, strerror(errno));
}

int wl_writer_open(struct wl_writer *w, const char *out_path)
{
	memset(w, 0, sizeof *w);
	w->spill_fd = w->direct_fd = w->tmp_fd = w->out.fd = -1;
	w->direct = -1;
	if (!(w->out_path = strdup(out_path)))
		return tool_fail(&w->err, EXIT_SYSTEM, "out of memory");
	/* stdout, a device, a pipe: written in one pass at the end */
	if (output_open(&w->out, w->out_path, OUTPUT_BINARY) < 0 ||
	    /* the scratch file for spilled blocks */
	    (w->spill_fd = output_scratch(&w->out, ".spill")) < 0) {
		w->err = w->out.err;
		return -1;
	}
	if (w->out.tmp[0])
		w->tmp_fd = w->out.fd;
	else
		w->direct_fd = w->out.fd;
	return 0;
}

int64_t wl_writer_thread(struct wl_writer *w, uint32_t tid)
{
	if (w->nthreads == w->cap_threads) {
		uint32_t cap = w->cap_threads ? w->cap_threads * 2 : 16;
		struct wl_tstream *t = realloc(w->t, cap * sizeof *t);
		if (!t)
			return -1;
		w->t = t;
		w->cap_threads = cap;
	}
	struct wl_tstream *s = &w->t[w->nthreads];
	memset(s, 0, sizeof *s);
	s->tid = tid;
	s->buf = malloc(WL_TBUF_FIRST);
	if (!s->buf)
		return -1;
	s->room = WL_TBUF_FIRST - WL_OP_MAX;
	return w->nthreads++;
}

static int spill(struct wl_writer *w, struct wl_tstream *s);

int wl_writer_make_room(struct wl_writer *w, struct wl_tstream *s)
{
	size_t size = s->room + WL_OP_MAX;
	if (size >= WL_TBUF)
		return spill(w, s);
	uint8_t *b = realloc(s->buf, size * 2);   /* (WL_TBUF_FIRST holds the longest op) */
	if (!b)
		return tool_fail(&w->err, EXIT_SYSTEM, "out of memory");
	s->buf = b;
	s->room = size * 2 - WL_OP_MAX;
	return 0;
}

/* Move stream s's buffer out: into the output if s is (or now becomes) the direct stream,
   else to the scratch file.  0 or -1 with w->err set. */
static int spill(struct wl_writer *w, struct wl_tstream *s)
{
	int64_t i = s == &w->samples ? -2 : s - w->t;   /* (the sample table is never direct) */
	if (w->direct < 0 && i >= 0) {
		uint64_t room = w->nthreads * 2u > WL_TABLE_ROOM ? w->nthreads * 2u : WL_TABLE_ROOM;
		w->direct = i;
		w->direct_base = MTRACE_WL_HEADER_SIZE + room * sizeof(struct mtrace_wl_thread);
	}
	if (i == w->direct && w->tmp_fd >= 0) {
		if (tool_pwrite_all(w->tmp_fd, s->buf, s->len, w->direct_base + s->spilled) < 0)
			return fail(w, "cannot write", w->out_path);
		s->spilled += s->len;
		s->len = 0;
		return 0;
	}
	/* a stream that spilled last too extends its block: one copy at the end */
	struct wl_block *lastb = s->nblocks ? &s->blocks[s->nblocks - 1] : NULL;
	int extend = lastb && lastb->off + lastb->len == w->spill_end;
	if (!extend && s->nblocks == s->cap_blocks) {
		size_t cap = s->cap_blocks ? s->cap_blocks * 2 : 8;
		struct wl_block *b = realloc(s->blocks, cap * sizeof *b);
		if (!b)
			return tool_fail(&w->err, EXIT_SYSTEM, "out of memory");
		s->blocks = b;
		s->cap_blocks = cap;
	}
	if (tool_pwrite_all(w->spill_fd, s->buf, s->len, w->spill_end) < 0)
		return fail(w, "cannot write the scratch file", w->out_path);
	if (extend)
		lastb->len += s->len;
	else
		s->blocks[s->nblocks++] = (struct wl_block){ w->spill_end, s->len, s->spilled };
	w->spill_end += s->len;
	s->spilled += s->len;
	s->len = 0;
	return 0;
}

/* Copy *left bytes from offset *from of fd_in to *to of fd_out without bringing them to user
   space (copy_file_range, one copy in the kernel instead of two); the offsets and *left move
   on by what was copied.  Where the kernel cannot (another file system, an old kernel), it
   leaves the rest to the caller.  -1 on a write error. */
static int copy_in_kernel(int fd_in, uint64_t *from, int fd_out, uint64_t *to, uint64_t *left)
{
	while (*left) {
		off_t in = (off_t)*from, out = (off_t)*to;
		ssize_t n = copy_file_range(fd_in, &in, fd_out, &out,
					    *left < (1u << 30) ? (size_t)*left : 1u << 30, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == ENOSPC || errno == EIO || errno == EDQUOT || errno == EFBIG))
			return -1;
		if (n <= 0)
			return 0;   /* (EXDEV, ENOSYS, EINVAL...: the caller copies) */
		*from += (uint64_t)n;
		*to += (uint64_t)n;
		*left -= (uint64_t)n;
	}
	return 0;
}

/* Where everything goes: each stream's offset in tt (host order), the thread table's offset;
   returns the file's size.  The direct stream first, at direct_base, with the table before it
   when it fits the room left there, else after the last stream; without one, the table after
   the header and the streams in order. */
static uint64_t layout(const struct wl_writer *w, struct mtrace_wl_thread *tt, uint64_t *table_at,
		       uint64_t *samples_at)
{
	uint64_t table = (uint64_t)w->nthreads * sizeof(struct mtrace_wl_thread);
	uint64_t off = MTRACE_WL_HEADER_SIZE + table;
	int table_last = 0;
	if (w->direct >= 0) {
		const struct wl_tstream *d = &w->t[w->direct];
		off = w->direct_base + d->spilled + d->len;
		table_last = table > w->direct_base - MTRACE_WL_HEADER_SIZE;
	}
	for (uint32_t i = 0; i < w->nthreads; i++) {
		const struct wl_tstream *s = &w->t[i];
		if (tt) {
			tt[i].length = s->spilled + s->len;
			tt[i].ncalls = s->ncalls;
			tt[i].tid = s->tid;
			tt[i].offset = (int64_t)i == w->direct ? w->direct_base : off;
		}
		if ((int64_t)i != w->direct)
			off += s->spilled + s->len;
	}
	*samples_at = off;   /* the sample table after the streams */
	off += w->samples.spilled + w->samples.len;
	*table_at = table_last ? off : MTRACE_WL_HEADER_SIZE;
	return table_last ? off + table : off;
}

/* The thread table tt (host order) in the file's byte order, at table_at. */
static int put_table(int fd, int seq, const struct mtrace_wl_thread *tt, uint32_t n,
		     uint64_t table_at)
{
	struct mtrace_wl_thread le[128];
	for (uint32_t i = 0; i < n;) {
		uint32_t k = n - i < 128 ? n - i : 128;
		for (uint32_t j = 0; j < k; j++) {
			le[j] = tt[i + j];
			mtrace_wl_thread_le(&le[j]);
		}
		if (seq ? tool_write_all(fd, le, k * sizeof *le) < 0
			: tool_pwrite_all(fd, le, k * sizeof *le,
					  table_at + (uint64_t)i * sizeof *le) < 0)
			return -1;
		i += k;
	}
	return 0;
}

uint64_t wl_writer_size(const struct wl_writer *w)
{
	uint64_t table_at, samples_at, n = layout(w, NULL, &table_at, &samples_at);
	return n + w->nthreads;   /* + each stream's END */
}

int wl_writer_finish(struct wl_writer *w, struct mtrace_wl_header *h)
{
	int seq = w->direct_fd >= 0;   /* written in order from the start, not at offsets */
	int fd = seq ? w->direct_fd : w->tmp_fd;
	for (uint32_t i = 0; i < w->nthreads; i++)
		if (wl_writer_op(w, i, MTRACE_WL_END, 0, NULL) < 0)
			goto bad;
	struct mtrace_wl_thread *tt = calloc(w->nthreads ? w->nthreads : 1, sizeof *tt);
	char *io = malloc(IOBUF);
	if (!tt || !io) {
		free(tt);
		free(io);
		errno = ENOMEM;
		goto bad;
	}
	uint64_t table_at, samples_at;
	h->nthreads = w->nthreads;
	h->file_size = layout(w, tt, &table_at, &samples_at);
	h->thread_table = table_at;
	if (w->nsamples) {
		h->flags |= MTRACE_WL_HF_SAMPLES;
		h->samples = samples_at;
		h->nsamples = w->nsamples;
	}
#define PUT(p, n, at) (seq ? tool_write_all(fd, p, n) : tool_pwrite_all(fd, p, n, at))
	struct mtrace_wl_header hle = *h;   /* the caller's stays in host order */
	mtrace_wl_header_le(&hle);
	if (PUT(&hle, sizeof hle, 0) < 0)
		goto bad_io;
	if (table_at == MTRACE_WL_HEADER_SIZE && put_table(fd, seq, tt, w->nthreads, table_at) < 0)
		goto bad_io;
	if (seq && w->direct >= 0) {   /* the room left before the direct stream */
		memset(io, 0, IOBUF);
		uint64_t at = MTRACE_WL_HEADER_SIZE;
		if (table_at == MTRACE_WL_HEADER_SIZE)
			at += (uint64_t)w->nthreads * sizeof *tt;
		while (at < w->direct_base) {
			size_t n =
				w->direct_base - at < IOBUF ? (size_t)(w->direct_base - at) : IOBUF;
			if (tool_write_all(fd, io, n) < 0)
				goto bad_io;
			at += n;
		}
	}
	/* in file order: the direct stream, the others, the sample table */
	for (int64_t k = w->direct >= 0 ? -1 : 0; k <= (int64_t)w->nthreads; k++) {
		if (k == w->direct)
			continue;
		uint32_t i = k < 0 ? (uint32_t)w->direct : (uint32_t)k;
		const struct wl_tstream *s = k == (int64_t)w->nthreads ? &w->samples : &w->t[i];
		uint64_t to = s == &w->samples ? samples_at : tt[i].offset;
		if ((int64_t)i == w->direct && !seq)
			to += s->spilled;   /* which is in place already */
		for (size_t b = 0; b < s->nblocks; b++) {
			uint64_t at = s->blocks[b].off, left = s->blocks[b].len;
			if (!seq && copy_in_kernel(w->spill_fd, &at, fd, &to, &left) < 0)
				goto bad_io;
			while (left) {
				size_t n = left < IOBUF ? (size_t)left : IOBUF;
				if (pread(w->spill_fd, io, n, (off_t)at) != (ssize_t)n ||
				    PUT(io, n, to) < 0)
					goto bad_io;
				at += n;
				to += n;
				left -= n;
			}
		}
		if (PUT(s->buf, s->len, to) < 0)
			goto bad_io;
	}
	if (table_at != MTRACE_WL_HEADER_SIZE && put_table(fd, seq, tt, w->nthreads, table_at) < 0)
		goto bad_io;
	if (!seq && ftruncate(fd, (off_t)h->file_size) < 0)
		goto bad_io;
#undef PUT
	free(tt);
	free(io);
	w->direct_fd = w->tmp_fd = -1;
	if (output_commit(&w->out) < 0) {
		w->err = w->out.err;
		return -1;
	}
	wl_writer_abort(w);
	return 0;
bad_io:
	free(tt);
	free(io);
bad:
	return fail(w, "cannot write", strcmp(w->out_path, "-") ? w->out_path : "<stdout>");
}

int wl_writer_sample(struct wl_writer *w, const struct mtrace_wl_sample *smp)
{
	struct wl_tstream *s = &w->samples;
	if (!s->buf) {
		if (!(s->buf = malloc(WL_TBUF_FIRST)))
			return tool_fail(&w->err, EXIT_SYSTEM, "out of memory");
		s->room = WL_TBUF_FIRST - WL_OP_MAX;
	}
	if (s->len > s->room && wl_writer_make_room(w, s) < 0)
		return -1;
	struct mtrace_wl_sample le = *smp;   /* (WL_OP_MAX of room: a sample is 40 bytes) */
	mtrace_wl_sample_le(&le);
	memcpy(s->buf + s->len, &le, sizeof le);
	s->len += sizeof le;
	w->nsamples++;
	return 0;
}

/* n bytes at position pos of stream s that moved out (pos + n <= s->spilled), written where they
   are now: the direct stream's place in the output, or the scratch file's blocks */
static int patch_out(struct wl_writer *w, struct wl_tstream *s, uint64_t pos, const uint8_t *b,
		     size_t n)
{
	if (s - w->t == w->direct && w->tmp_fd >= 0)
		return tool_pwrite_all(w->tmp_fd, b, n, w->direct_base + pos) < 0
			       ? fail(w, "cannot write", w->out_path)
			       : 0;
	while (n) {
		size_t lo = 0, hi = s->nblocks;   /* the last block that starts at or before pos */
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;
			if (s->blocks[mid].at <= pos)
				lo = mid;
			else
				hi = mid;
		}
		const struct wl_block *k = &s->blocks[lo];
		if (!s->nblocks || pos < k->at || pos >= k->at + k->len)
			return tool_fail(&w->err, EXIT_SYSTEM,
					 "%s: a patch outside what the stream wrote", w->out_path);
		size_t here = k->at + k->len - pos < n ? (size_t)(k->at + k->len - pos) : n;
		if (tool_pwrite_all(w->spill_fd, b, here, k->off + (pos - k->at)) < 0)
			return fail(w, "cannot write the scratch file", w->out_path);
		pos += here, b += here, n -= here;
	}
	return 0;
}

int wl_writer_patch(struct wl_writer *w, uint32_t i, uint64_t pos, const uint8_t *bytes, size_t n)
{
	struct wl_tstream *s = &w->t[i];
	if (pos + n > s->spilled + s->len)
		return tool_fail(&w->err, EXIT_SYSTEM, "%s: a patch past what the stream wrote",
				 w->out_path);
	if (pos < s->spilled) {   /* (some of it may be in the buffer still) */
		size_t out = pos + n <= s->spilled ? n : (size_t)(s->spilled - pos);
		if (patch_out(w, s, pos, bytes, out) < 0)
			return -1;
		pos += out, bytes += out, n -= out;
	}
	memcpy(s->buf + (pos - s->spilled), bytes, n);
	return 0;
}

void wl_writer_abort(struct wl_writer *w)
{
	output_abort(&w->out);
	w->tmp_fd = w->direct_fd = -1;
	if (w->spill_fd >= 0)
		close(w->spill_fd);
	w->spill_fd = -1;
	for (uint32_t i = 0; i < w->nthreads; i++) {
		free(w->t[i].buf);
		free(w->t[i].blocks);
	}
	free(w->samples.buf);
	free(w->samples.blocks);
	memset(&w->samples, 0, sizeof w->samples);
	free(w->t);
	w->t = NULL;
	w->nthreads = 0;
	free(w->out_path);
	w->out_path = NULL;
}
