/* trace_writer.c - see trace_writer.h */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "msg.h"
#include "output.h"
#include "trace_writer.h"

#define PER_CHUNK 2047   /* slots after each chunk record, as the preload writes them */

static int fail(struct trace_writer *w, const char *what)
{
	return tool_fail(&w->err, EXIT_SYSTEM, "%s: %s: %s", w->path, what,
			 strerror(errno ? errno : EIO));
}

int trace_writer_open(struct trace_writer *w, const char *path, int32_t pid, const char *exe)
{
	memset(w, 0, sizeof *w);
	w->out.fd = -1;
	w->path = strdup(path);
	if (!w->path)
		return fail(w, "out of memory");
	if (output_open(&w->out, path, OUTPUT_BINARY | OUTPUT_PRIVATE | OUTPUT_SYNC) < 0) {
		w->err = w->out.err;
		return -1;
	}
	if (!(w->f = output_stdio(&w->out)))
		return fail(w, "cannot write");
	unsigned char *page = w->page = calloc(1, MTRACE_HEADER_SIZE);
	if (!page)
		return fail(w, "out of memory");
	struct mtrace_file_header h;
	mtrace_header_init(&h);
	h.clock = MTRACE_CLOCK_MONOTONIC;
	h.ticks_per_sec = 1000000000;
	h.flags = MTRACE_HF_FINISHED;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	h.start_time_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	h.pid = pid;
	if (exe && *exe) {
		size_t n = strlen(exe);
		if (n > MTRACE_HEADER_SIZE - MTRACE_HEADER_STRINGS - 1)
			n = MTRACE_HEADER_SIZE - MTRACE_HEADER_STRINGS - 1;
		memcpy(page + MTRACE_HEADER_STRINGS, exe, n);
		h.exe_offset = MTRACE_HEADER_STRINGS;
		h.exe_len = (uint32_t)n;
	}
	w->strings = MTRACE_HEADER_STRINGS + h.exe_len;
	memcpy(page, &h, sizeof h);
	return 0;
}

struct mtrace_file_header *trace_writer_header(struct trace_writer *w)
{
	return (struct mtrace_file_header *)w->page;   /* (calloc'd: aligned for it) */
}

/* Append n bytes to the header's strings: their offset, or 0 if they do not fit */
static uint32_t add_string(struct trace_writer *w, const char *s, size_t n)
{
	if (!w->page || n > MTRACE_HEADER_SIZE - w->strings)
		return 0;
	uint32_t at = w->strings;
	memcpy(w->page + at, s, n);
	w->strings += (uint32_t)n;
	return at;
}

int trace_writer_allocator(struct trace_writer *w, const char *path)
{
	size_t n = strlen(path);
	uint32_t at = add_string(w, path, n);
	if (!at)
		return -1;
	struct mtrace_file_header *h = trace_writer_header(w);
	h->allocator_offset = at;
	h->allocator_len = (uint32_t)n;
	return 0;
}

int trace_writer_settings(struct trace_writer *w, char *const *settings, int n)
{
	uint32_t first = 0, len = 0;
	for (int i = 0; i < n; i++) {
		/* (its NUL too) */
		uint32_t at = add_string(w, settings[i], strlen(settings[i]) + 1);
		if (!at)
			return -1;
		if (!first)
			first = at;
		len += (uint32_t)strlen(settings[i]) + 1;
	}
	struct mtrace_file_header *h = trace_writer_header(w);
	h->settings_offset = first;
	h->settings_len = len;
	return 0;
}

/* The header goes out before the first record (or at the end, if there is none). */
static int put_header(struct trace_writer *w)
{
	if (!w->page)
		return 0;
	struct mtrace_file_header *h = trace_writer_header(w);
	h->record_size = h->version < 3 ? MTRACE_RECORD_SIZE : MTRACE_SLOT_SIZE;   /* (as set) */
	if (fwrite(w->page, 1, MTRACE_HEADER_SIZE, w->f) != MTRACE_HEADER_SIZE)
		return fail(w, "cannot write");
	memcpy(w->hdr_copy, w->page, sizeof w->hdr_copy);   /* (what the records are written by) */
	free(w->page);
	w->page = NULL;
	w->pos = MTRACE_HEADER_SIZE;
	return 0;
}

/* n unwritten slots (records in versions 1 and 2): the rest of a chunk, as a stopped thread
   leaves it */
static int put_unwritten(struct trace_writer *w, uint64_t n)
{
	static const struct mtrace_record zero;
	const struct mtrace_file_header *h = (const struct mtrace_file_header *)w->hdr_copy;
	size_t unit = h->version < 3 ? MTRACE_RECORD_SIZE : MTRACE_SLOT_SIZE;
	for (; n; n--, w->in_chunk--) {
		if (fwrite(&zero, 1, unit, w->f) != unit)
			return fail(w, "cannot write");
		w->pos += unit;
	}
	return 0;
}

/* A record in the 64-byte layout of versions 1 and 2 (a header set to one of them: tests). */
static int put_wide64(struct trace_writer *w, const struct mtrace_record *rec)
{
	if (w->in_chunk == 0) {
		uint64_t off = w->pos;
		struct mtrace_record c = { .tid = rec->tid, .call = MTRACE_CALL_CHUNK,
					   .ts = rec->ts, .ptr = w->prev_chunk,
					   .size = 1024 * MTRACE_RECORD_SIZE };
		if (fwrite(&c, sizeof c, 1, w->f) != 1)
			return fail(w, "cannot write");
		w->pos += sizeof c;
		w->prev_chunk = off;
		w->in_chunk = 1023;
	}
	if (fwrite(rec, sizeof *rec, 1, w->f) != 1)
		return fail(w, "cannot write");
	w->pos += sizeof *rec;
	w->in_chunk--;
	w->written++;
	return 0;
}

int trace_writer_put(struct trace_writer *w, const struct mtrace_record *rec)
{
	if (put_header(w) < 0)
		return -1;
	const struct mtrace_file_header *h = (const struct mtrace_file_header *)w->hdr_copy;
	if (h->version < 3)
		return put_wide64(w, rec);
	struct mtrace_slot s[2];
	unsigned n = mtrace_encode(rec, (h->flags & MTRACE_HF_DURATIONS) != 0, s);
	if (w->in_chunk < n && put_unwritten(w, w->in_chunk) < 0)   /* (a wide record: two slots) */
		return -1;
	if (w->in_chunk == 0) {
		uint64_t off = w->pos;
		struct mtrace_record c = { .tid = rec->tid, .call = MTRACE_CALL_CHUNK,
					   .ts = rec->ts, .ptr = w->prev_chunk,
					   .size = (PER_CHUNK + 1) * MTRACE_SLOT_SIZE,
					   .arg2 = (uint32_t)h->pid };
		struct mtrace_slot cs[2];
		mtrace_encode(&c, 0, cs);
		if (fwrite(cs, sizeof cs[0], 1, w->f) != 1)
			return fail(w, "cannot write");
		w->pos += sizeof cs[0];
		w->prev_chunk = off;
		w->in_chunk = PER_CHUNK;
	}
	if (fwrite(s, sizeof s[0], n, w->f) != n)
		return fail(w, "cannot write");
	w->pos += n * sizeof s[0];
	w->in_chunk -= n;
	w->written++;
	return 0;
}

int trace_writer_finish(struct trace_writer *w)
{
	if (put_header(w) < 0)
		return -1;
	/* the rest of the last chunk reads as unwritten records, as a stopped thread's would */
	if (put_unwritten(w, w->in_chunk) < 0)
		return -1;
	w->f = NULL;
	if (output_commit(&w->out) < 0) {
		w->err = w->out.err;
		trace_writer_abort(w);
		return -1;
	}
	trace_writer_abort(w);
	return 0;
}

void trace_writer_abort(struct trace_writer *w)
{
	free(w->page);
	w->page = NULL;
	w->f = NULL;
	output_abort(&w->out);
	free(w->path);
	w->path = NULL;
}
