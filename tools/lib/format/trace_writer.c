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
	return tool_fail(&w->err, EXIT_SYSTEM, "%s: %s: %s", w->path ? w->path : "the copy", what,
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
	h->flags &= ~MTRACE_HF_STACK_IDS;   /* (stacks written as CALLER slots: put_caller) */
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

/* One slot, in the copy's byte order (the other one for trace_writer_append's swap) */
static int put_slot(struct trace_writer *w, const struct mtrace_slot *s)
{
	struct mtrace_slot c = *s;
	if (w->swap) {
		MTRACE_SWAP(c.aux);
		MTRACE_SWAP(c.x);
		MTRACE_SWAP(c.ts);
		MTRACE_SWAP(c.a);
		MTRACE_SWAP(c.b);
	}
	if (fwrite(&c, sizeof c, 1, w->f) != 1)
		return fail(w, "cannot write");
	return 0;
}

/* n slots of one record (or of a CALLER and its call: one reservation) of thread tid, in the
   current chunk, or in a new one from clock value ts */
static int put_slots(struct trace_writer *w, uint32_t tid, uint64_t ts,
		     const struct mtrace_slot *s, unsigned n)
{
	const struct mtrace_file_header *h = (const struct mtrace_file_header *)w->hdr_copy;
	if (w->in_chunk < n && put_unwritten(w, w->in_chunk) < 0)   /* (a wide record: two slots) */
		return -1;
	ts = ts ? ts : w->last_ts;
	if (w->in_chunk == 0) {
		uint64_t off = w->pos;
		struct mtrace_record c = { .tid = tid, .call = MTRACE_CALL_CHUNK,
					   .ts = ts, .ptr = w->prev_chunk,
					   .size = (PER_CHUNK + 1) * MTRACE_SLOT_SIZE,
					   .arg2 = (uint32_t)h->pid };
		struct mtrace_slot cs[2];
		mtrace_encode(&c, 0, cs);
		if (put_slot(w, cs) < 0)
			return -1;
		w->pos += sizeof cs[0];
		w->prev_chunk = off;
		w->in_chunk = PER_CHUNK;
	}
	for (unsigned i = 0; i < n; i++)
		if (put_slot(w, &s[i]) < 0)
			return -1;
	w->tid = tid;
	w->last_ts = ts;
	w->pos += n * sizeof s[0];
	w->in_chunk -= n;
	w->written++;
	return 0;
}

int trace_writer_put(struct trace_writer *w, const struct mtrace_record *rec)
{
	return trace_writer_put_caller(w, rec, 0, 0);
}

int trace_writer_put_caller(struct trace_writer *w, const struct mtrace_record *rec,
			    uint32_t stack, uint64_t ret)
{
	if (put_header(w) < 0)
		return -1;
	const struct mtrace_file_header *h = (const struct mtrace_file_header *)w->hdr_copy;
	if (h->version < 3)
		return put_wide64(w, rec);
	struct mtrace_slot s[3] = { { .call = MTRACE_CALL_CALLER, .x = stack, .a = ret } };
	int caller = (h->flags & MTRACE_HF_STACKS) && mtrace_call_has_stack(rec->call);
	unsigned n = mtrace_encode(rec, (h->flags & MTRACE_HF_DURATIONS) != 0, s + caller);
	return put_slots(w, rec->tid, rec->ts, s, n + (unsigned)caller);
}

int trace_writer_put_ext(struct trace_writer *w, const struct mtrace_slot *head,
			 const uint64_t *words, unsigned nwords)
{
	if (put_header(w) < 0)
		return -1;
	if (nwords > MTRACE_EXT_WORDS_MAX || !mtrace_call_is_ext(head->call)) {
		errno = EINVAL;
		return fail(w, "an extended record too long");
	}
	static struct mtrace_slot s[1 + MTRACE_EXT_SLOTS_MAX];   /* (tools are one thread) */
	unsigned cont = mtrace_ext_slots(nwords);
	memset(s, 0, (1 + cont) * sizeof s[0]);
	s[0] = *head;
	s[0].aux = (uint16_t)cont;
	for (unsigned i = 0; i < nwords; i++)
		*mtrace_ext_word(s, i) = words[i];
	return put_slots(w, w->tid ? w->tid : (uint32_t)trace_writer_pid(w), head->ts, s, 1 + cont);
}

/* n bytes as payload words from word `at` on (mtrace_ext_put_bytes' layout): the word after */
static unsigned put_bytes(uint64_t *words, unsigned at, const void *src, size_t n)
{
	const unsigned char *p = src;
	for (size_t i = 0; i < n; i += 8, at++) {
		uint64_t v = 0;
		for (unsigned k = 0; k < 8 && i + k < n; k++)
			v |= (uint64_t)p[i + k] << (8 * k);
		words[at] = v;
	}
	return at;
}

int trace_writer_stack(struct trace_writer *w, uint32_t id, uint64_t ts, const uint64_t *frames,
		       unsigned n)
{
	uint64_t words[MTRACE_STACK_DEPTH_MAX];
	if (n > MTRACE_STACK_DEPTH_MAX)
		n = MTRACE_STACK_DEPTH_MAX;
	struct mtrace_slot head = { .call = MTRACE_CALL_STACK, .x = id, .ts = ts,
				    .a = n > 0 ? frames[0] : 0, .b = n > 1 ? frames[1] : 0 };
	unsigned nw = n > 2 ? n - 2 : 0;
	memcpy(words, frames + 2, nw * sizeof *words);
	return trace_writer_put_ext(w, &head, words, nw);
}

int trace_writer_object(struct trace_writer *w, const struct trace_writer_object *o)
{
	uint64_t words[MTRACE_EXT_WORDS_MAX] = { o->lo, o->hi };
	size_t path = o->path ? strlen(o->path) : 0, bid = o->build_id_len;
	if (bid > MTRACE_BUILD_ID_MAX || path > 0xffff || 3 + (bid + 7) / 8 + (path + 7) / 8 >
	    MTRACE_EXT_WORDS_MAX) {
		errno = ENAMETOOLONG;
		return fail(w, "an object's build id or path too long");
	}
	words[2] = bid | path << 16;
	unsigned at = put_bytes(words, 3, o->build_id, bid);
	at = put_bytes(words, at, o->path, path);
	struct mtrace_slot head = { .call = MTRACE_CALL_OBJECT, .x = o->id, .ts = o->ts,
				    .flags = o->unloaded ? MTRACE_OBJ_UNLOADED : 0, .a = o->bias };
	return trace_writer_put_ext(w, &head, words, at);
}

int trace_writer_symbol(struct trace_writer *w, const struct trace_writer_symbol *y)
{
	uint64_t words[MTRACE_EXT_WORDS_MAX];
	size_t name = y->name ? strlen(y->name) : 0, file = y->file ? strlen(y->file) : 0;
	/* (a name or file too long for one record is cut: a name for people) */
	size_t room = (MTRACE_EXT_WORDS_MAX - 1) * 8;
	if (name > 0xffff || name > room / 2)
		name = room / 2 < 0xffff ? room / 2 : 0xffff;
	if (file > 0xffff || file > room / 2)
		file = room / 2 < 0xffff ? room / 2 : 0xffff;
	words[0] = name | file << 16 | (uint64_t)y->fn_off << 32;
	unsigned at = put_bytes(words, 1, y->name, name);
	at = put_bytes(words, at, y->file, file);
	struct mtrace_slot head = { .call = MTRACE_CALL_SYMBOL, .x = y->object, .a = y->addr,
				    .b = y->line };
	return trace_writer_put_ext(w, &head, words, at);
}

int32_t trace_writer_pid(struct trace_writer *w)
{
	const struct mtrace_file_header *h = w->page ? trace_writer_header(w)
			: (const struct mtrace_file_header *)w->hdr_copy;
	return h->pid > 0 ? h->pid : 1;
}

void trace_writer_append(struct trace_writer *w, FILE *f, const struct mtrace_file_header *h,
			 uint64_t pos, uint32_t tid, uint64_t prev_chunk, uint64_t ts, int swap)
{
	memset(w, 0, sizeof *w);
	w->out.fd = -1;
	w->f = f;
	w->pos = pos;
	w->tid = tid;
	w->prev_chunk = prev_chunk;
	w->last_ts = ts;
	w->swap = swap;
	memcpy(w->hdr_copy, h, sizeof w->hdr_copy);
}

int trace_writer_append_end(struct trace_writer *w)
{
	int rc = put_unwritten(w, w->in_chunk);
	w->f = NULL;
	return rc;
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
