/* wl_reader.c - see wl_reader.h */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "msg.h"
#include "varint.h"
#include "wl_reader.h"

static int fail(struct wl_reader *r, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	offset_error(&r->err, r->name, off, fmt, ap);
	va_end(ap);
	return -1;
}

static int check_samples(struct wl_reader *r);

int wl_open(struct wl_reader *r, const char *path)
{
	memset(r, 0, sizeof *r);
	r->name = path;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tool_fail(&r->err, EXIT_BADFILE, "%s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		tool_fail(&r->err, EXIT_BADFILE, "%s: not a regular file", path);
		close(fd);
		return -1;
	}
	r->size = (size_t)st.st_size;
	if (r->size == 0) {
		close(fd);
		return fail(r, 0, "empty file, not a workload");
	}
	r->map = mmap(NULL, r->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (r->map == MAP_FAILED) {
		r->map = NULL;
		return tool_fail(&r->err, EXIT_SYSTEM, "%s: cannot map: %s", path, strerror(errno));
	}
	if (r->size < sizeof r->h)
		return fail(r, r->size, "truncated header (%zu bytes, a header has %zu)", r->size,
			    sizeof r->h);
	memcpy(&r->h, r->map, sizeof r->h);
	mtrace_wl_header_le(&r->h);   /* to host order */
	/* the strings end in the fields, whatever a hostile file holds */
	r->h.program[sizeof r->h.program - 1] = 0;
	r->h.settings[sizeof r->h.settings - 1] = 0;
	for (size_t i = 0; i < sizeof r->h.settings; i++)   /* (and print as text: both parts) */
		if (r->h.settings[i] && ((unsigned char)r->h.settings[i] < 32 ||
					 r->h.settings[i] == 127))
			r->h.settings[i] = '?';
	r->h.allocator[sizeof r->h.allocator - 1] = 0;
	const struct mtrace_wl_header *h = &r->h;
	if (memcmp(h->magic, MTRACE_WL_MAGIC, MTRACE_WL_MAGIC_LEN) != 0)
		return fail(r, 0, "not an mtrace workload (bad magic)");
	if (h->version < MTRACE_WL_OLDEST || h->version > MTRACE_WL_VERSION)
		return fail(r, 8, "unsupported workload version %u (this reader knows %u to %u)",
			    h->version, MTRACE_WL_OLDEST, MTRACE_WL_VERSION);
	if (h->version < 2 && (h->nmaps || h->nsamples))
		return fail(r, 928, "a version-1 workload with version-2 fields");
	if (h->header_size < sizeof *h || h->header_size > r->size)
		return fail(r, 12, "bad header size %u", h->header_size);
	if (h->file_size != r->size)
		return fail(r, r->size, "file is %zu bytes, its header says %llu "
			    "(truncated or padded)",
			    r->size, (unsigned long long)h->file_size);
	if (h->nslots == 0 || h->nslots > (1ull << 40))
		return fail(r, 24, "bad slot count %llu", (unsigned long long)h->nslots);
	/* compared without adding first: a hostile offset near 2^64 must not wrap past the check */
	uint64_t tt_bytes = (uint64_t)h->nthreads * sizeof(struct mtrace_wl_thread);
	if (h->thread_table < h->header_size || h->thread_table > r->size ||
	    h->nthreads > (1u << 24) || tt_bytes > r->size - h->thread_table)
		return fail(r, 16, "thread table (%u threads at offset %llu) lies outside the file",
			    h->nthreads, (unsigned long long)h->thread_table);
	uint64_t tt_end = h->thread_table + tt_bytes;
	size_t bytes = (h->nthreads ? h->nthreads : 1) * sizeof *r->threads;
	void *tt = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (tt == MAP_FAILED)
		return fail(r, 0, "out of memory");
	r->threads = tt;
	r->threads_bytes = bytes;
	memcpy(r->threads, r->map + h->thread_table, (size_t)h->nthreads * sizeof *r->threads);
	for (uint32_t i = 0; i < h->nthreads; i++) {
		struct mtrace_wl_thread *t = &r->threads[i];
		mtrace_wl_thread_le(t);
		/* streams may lie before the table (trace2wl writes one that way) or after it */
		if (t->offset < h->header_size || t->length == 0 || t->offset > r->size ||
		    t->length > r->size - t->offset)
			return fail(r, h->thread_table + i * sizeof *t,
				    "stream of thread %u lies outside the file", i);
		if (t->offset < tt_end && t->offset + t->length > h->thread_table)
			return fail(r, h->thread_table + i * sizeof *t,
				    "stream of thread %u overlaps the thread table", i);
	}
	if (h->nmaps > (1ull << 40))
		return fail(r, 928, "bad map count %llu", (unsigned long long)h->nmaps);
	return check_samples(r);
}

/* The sample table: inside the file, clear of the thread table, and in order (calls and time
   never go back: what a fidelity figure walks along) */
static int check_samples(struct wl_reader *r)
{
	const struct mtrace_wl_header *h = &r->h;
	if (!(h->flags & MTRACE_WL_HF_SAMPLES)) {
		if (h->nsamples)
			return fail(r, 944, "%llu samples, and no sample flag",
				    (unsigned long long)h->nsamples);
		return 0;
	}
	uint64_t bytes = h->nsamples * sizeof(struct mtrace_wl_sample);
	uint64_t tt_end = h->thread_table + (uint64_t)h->nthreads * sizeof(struct mtrace_wl_thread);
	if (h->nsamples > r->size / sizeof(struct mtrace_wl_sample) ||
	    h->samples < h->header_size || h->samples > r->size || bytes > r->size - h->samples)
		return fail(r, 936, "sample table (%llu samples at offset %llu) "
			    "lies outside the file",
			    (unsigned long long)h->nsamples, (unsigned long long)h->samples);
	if (h->samples < tt_end && h->samples + bytes > h->thread_table)
		return fail(r, 936, "the sample table overlaps the thread table");
	struct mtrace_wl_sample prev = { 0 }, s;
	for (uint64_t i = 0; i < h->nsamples; i++) {
		wl_sample(r, i, &s);
		if (s.calls < prev.calls || s.time_us < prev.time_us || s.calls > h->ncalls)
			return fail(r, h->samples + i * sizeof s, "sample %llu goes back in "
				    "calls or time, or past the last call", (unsigned long long)i);
		prev = s;
	}
	return 0;
}

void wl_sample(const struct wl_reader *r, uint64_t i, struct mtrace_wl_sample *s)
{
	memcpy(s, r->map + r->h.samples + i * sizeof *s, sizeof *s);
	mtrace_wl_sample_le(s);
}

void wl_close(struct wl_reader *r)
{
	if (r->map)
		munmap((void *)r->map, r->size);
	if (r->threads)
		munmap(r->threads, r->threads_bytes);
	r->map = NULL;
	r->threads = NULL;
}

void wl_cursor_init(const struct wl_reader *r, uint32_t thread, struct wl_cursor *c)
{
	c->base = r->map;
	c->p = r->map + r->threads[thread].offset;
	c->end = c->p + r->threads[thread].length;
	c->done = 0;
}

int wl_next_fail(struct wl_reader *r, const struct wl_cursor *c, const struct wl_op *op, int why,
		 int k)
{
	switch (why) {
	case WL_BAD_END:
		return fail(r, (uint64_t)(c->p - c->base), "stream ends without an end operation");
	case WL_BAD_OPCODE:
		return fail(r, op->offset, "unknown opcode 0x%02x", c->base[op->offset]);
	case WL_BAD_OPERAND:
		return fail(r, op->offset, "%s: operand %d is truncated or too long",
			    mtrace_wl_op_name(op->op), k + 1);
	case WL_BAD_THREAD:
		return fail(r, op->offset, "wait for thread %llu of %u",
			    (unsigned long long)op->a[0], r->h.nthreads);
	case WL_BAD_MAP:
		return fail(r, op->offset, "%s: map %llu out of range (%llu maps)",
			    mtrace_wl_op_name(op->op), (unsigned long long)op->a[0],
			    (unsigned long long)r->h.nmaps);
	default:
		return fail(r, op->offset, "%s: slot %llu out of range (%llu slots)",
			    mtrace_wl_op_name(op->op), (unsigned long long)op->a[k],
			    (unsigned long long)r->h.nslots);
	}
}
