/* wl_writer.c - see wl_writer.h */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tool.h"
#include "wl_writer.h"

#define IOBUF (1u << 20)

static int fail(struct wl_writer *w, const char *what, const char *path)
{
	snprintf(w->err, sizeof w->err, "%s: %s: %s", path, what, strerror(errno));
	return -1;
}

/* The scratch file for spilled blocks, beside the output (in $TMPDIR, else /tmp, for standard
   output): unlinked at once, so it never outlives us. */
static int open_spill(struct wl_writer *w, const char *beside)
{
	const char *dir = getenv("TMPDIR");
	char *spill;
	int n = beside ? asprintf(&spill, "%s.spill.XXXXXX", beside)
		       : asprintf(&spill, "%s/trace2wl.spill.XXXXXX", dir && *dir ? dir : "/tmp");
	if (n < 0 || !w->out_path)
		return fail(w, "out of memory", w->out_path ? w->out_path : "-");
	w->spill_fd = mkstemp(spill);
	if (w->spill_fd < 0) {
		int e = errno;
		snprintf(w->err, sizeof w->err, "%s: cannot create a scratch file: %s", spill, strerror(e));
		free(spill);
		return -1;
	}
	unlink(spill);
	free(spill);
	return 0;
}

int wl_writer_open(struct wl_writer *w, const char *out_path)
{
	memset(w, 0, sizeof *w);
	w->spill_fd = w->direct_fd = -1;
	w->out_path = strdup(out_path);
	if (tool_output_in_place(out_path)) {   /* stdout, a device, a pipe: one pass at the end */
		w->direct_fd = tool_open_in_place(out_path, 1);
		return open_spill(w, NULL);
	}
	if (asprintf(&w->tmp_path, "%s.tmp.XXXXXX", out_path) < 0 || !w->out_path) {
		snprintf(w->err, sizeof w->err, "out of memory");
		return -1;
	}
	int fd = mkstemp(w->tmp_path);
	if (fd < 0) {
		int e = errno;
		free(w->tmp_path);
		w->tmp_path = NULL;
		errno = e;
		return fail(w, "cannot create the output", out_path);
	}
	tool_temp_add(w->tmp_path);
	tool_output_mode(fd);
	close(fd);
	return open_spill(w, out_path);
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
	if (!b) {
		snprintf(w->err, sizeof w->err, "out of memory");
		return -1;
	}
	s->buf = b;
	s->room = size * 2 - WL_OP_MAX;
	return 0;
}

/* Move stream s's buffer to the scratch file; 0 or -1 with w->err set. */
static int spill(struct wl_writer *w, struct wl_tstream *s)
{
	if (s->nblocks == s->cap_blocks) {
		size_t cap = s->cap_blocks ? s->cap_blocks * 2 : 8;
		struct wl_block *b = realloc(s->blocks, cap * sizeof *b);
		if (!b) {
			snprintf(w->err, sizeof w->err, "out of memory");
			return -1;
		}
		s->blocks = b;
		s->cap_blocks = cap;
	}
	/* a short write (a file size limit reached) is continued, so that the next one says why */
	for (size_t done = 0; done < s->len;) {
		ssize_t k = pwrite(w->spill_fd, s->buf + done, s->len - done, (off_t)(w->spill_end + done));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k == 0)
				errno = ENOSPC;
			return fail(w, "cannot write the scratch file", w->out_path);
		}
		done += (size_t)k;
	}
	s->blocks[s->nblocks++] = (struct wl_block){ w->spill_end, s->len };
	w->spill_end += s->len;
	s->spilled += s->len;
	s->len = 0;
	return 0;
}

uint64_t wl_writer_size(const struct wl_writer *w)
{
	uint64_t n = MTRACE_WL_HEADER_SIZE + (uint64_t)w->nthreads * sizeof(struct mtrace_wl_thread);
	for (uint32_t i = 0; i < w->nthreads; i++)
		n += w->t[i].spilled + w->t[i].len + 1;   /* + END */
	return n;
}

int wl_writer_finish(struct wl_writer *w, struct mtrace_wl_header *h)
{
	int in_place = w->direct_fd >= 0;
	int fd = in_place ? w->direct_fd : open(w->tmp_path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return fail(w, "cannot open", w->tmp_path);
	for (uint32_t i = 0; i < w->nthreads; i++)
		if (wl_writer_op(w, i, MTRACE_WL_END, 0, NULL) < 0)
			goto bad;
	h->nthreads = w->nthreads;
	h->thread_table = MTRACE_WL_HEADER_SIZE;
	uint64_t off = h->thread_table + (uint64_t)w->nthreads * sizeof(struct mtrace_wl_thread);
	struct mtrace_wl_thread *tt = calloc(w->nthreads ? w->nthreads : 1, sizeof *tt);
	char *io = malloc(IOBUF);
	if (!tt || !io) {
		free(tt);
		free(io);
		errno = ENOMEM;
		goto bad;
	}
	for (uint32_t i = 0; i < w->nthreads; i++) {
		tt[i].offset = off;
		tt[i].length = w->t[i].spilled + w->t[i].len;
		tt[i].ncalls = w->t[i].ncalls;
		tt[i].tid = w->t[i].tid;
		off += tt[i].length;
		mtrace_wl_thread_le(&tt[i]);   /* the file's byte order */
	}
	h->file_size = off;
	struct mtrace_wl_header hle = *h;   /* the caller's stays in host order */
	mtrace_wl_header_le(&hle);
	if (tool_write_all(fd, &hle, sizeof hle) < 0 ||
	    tool_write_all(fd, tt, (size_t)w->nthreads * sizeof *tt) < 0)
		goto bad_io;
	for (uint32_t i = 0; i < w->nthreads; i++) {
		struct wl_tstream *s = &w->t[i];
		for (size_t b = 0; b < s->nblocks; b++) {
			uint64_t at = s->blocks[b].off, left = s->blocks[b].len;
			while (left) {
				size_t n = left < IOBUF ? (size_t)left : IOBUF;
				if (pread(w->spill_fd, io, n, (off_t)at) != (ssize_t)n || tool_write_all(fd, io, n) < 0)
					goto bad_io;
				at += n;
				left -= n;
			}
		}
		if (tool_write_all(fd, s->buf, s->len) < 0)
			goto bad_io;
	}
	free(tt);
	free(io);
	if (in_place) {
		if (fd != 1 && close(fd) < 0)
			return fail(w, "cannot write", w->out_path);
		w->direct_fd = -1;
		wl_writer_abort(w);
		return 0;
	}
	if (close(fd) < 0)
		return fail(w, "cannot write", w->tmp_path);
	if (rename(w->tmp_path, w->out_path) < 0)
		return fail(w, "cannot rename the finished output into place", w->out_path);
	tool_temp_done(w->tmp_path);
	free(w->tmp_path);
	w->tmp_path = NULL;
	wl_writer_abort(w);
	return 0;
bad_io:
	free(tt);
	free(io);
bad:
	if (!in_place)
		close(fd);
	return fail(w, "cannot write", strcmp(w->out_path, "-") ? w->out_path : "<stdout>");
}

void wl_writer_abort(struct wl_writer *w)
{
	if (w->tmp_path) {
		unlink(w->tmp_path);
		tool_temp_done(w->tmp_path);
		free(w->tmp_path);
		w->tmp_path = NULL;
	}
	if (w->direct_fd > 1)
		close(w->direct_fd);
	w->direct_fd = -1;
	if (w->spill_fd >= 0)
		close(w->spill_fd);
	w->spill_fd = -1;
	for (uint32_t i = 0; i < w->nthreads; i++) {
		free(w->t[i].buf);
		free(w->t[i].blocks);
	}
	free(w->t);
	w->t = NULL;
	w->nthreads = 0;
	free(w->out_path);
	w->out_path = NULL;
}
