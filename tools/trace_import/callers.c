/* callers.c - see callers.h */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "callers.h"

/* the payload bytes an extended record may hold, at most (3 words a slot) */
#define EXT_BYTES (8u * MTRACE_EXT_WORDS_MAX)

static struct mtrace_slot ext[1 + MTRACE_EXT_SLOTS_MAX];

/* Write the extended record whose head is ext[0] and payload words ext's first `words` */
static int put_ext(struct callers *c, unsigned words, uint32_t tid, uint64_t ts)
{
	unsigned n = mtrace_ext_slots(words);
	ext[0].aux = (uint16_t)n;
	return trace_writer_put_slots(c->w, ext, 1 + n, tid, ts);
}

static void ext_head(unsigned call, uint32_t x, uint64_t ts, uint64_t a, uint64_t b)
{
	memset(ext, 0, sizeof ext);
	ext[0] = (struct mtrace_slot){ .call = (uint8_t)call, .x = x, .ts = ts, .a = a, .b = b };
}

/* The id of the object at path (n bytes), written as an OBJECT record when first met (its load
   address and range unknown: a log does not say them); 0 out of memory or on failure */
static uint32_t object_id(struct callers *c, const char *path, size_t n, const struct mtrace_record *r)
{
	for (uint32_t i = 0; i < c->nobjs; i++)
		if (strlen(c->objs[i]) == n && !memcmp(c->objs[i], path, n))
			return i + 1;
	char **v = realloc(c->objs, (c->nobjs + 1) * sizeof *v);
	if (!v)
		return 0;
	c->objs = v;
	if (n > EXT_BYTES - 3 * 8)
		n = EXT_BYTES - 3 * 8;
	if (!(v[c->nobjs] = strndup(path, n)))
		return 0;
	uint32_t id = ++c->nobjs;
	ext_head(MTRACE_CALL_OBJECT, id, r->ts, 0, 0);
	*mtrace_ext_word(ext, 2) = (uint64_t)n << 16;   /* (no build id) */
	unsigned words = mtrace_ext_put_bytes(ext, 3, path, (unsigned)n);
	return put_ext(c, words, r->tid, r->ts) < 0 ? 0 : id;
}

/* The stack id of the caller at text (n bytes), its STACK, OBJECT and SYMBOL records written
   when first met; 0 with *bad set for a caller not of glibc's shape, or -1 */
static int64_t stack_id(struct callers *c, struct mtrace_log *log, const char *text, size_t n,
			const struct mtrace_record *r)
{
	struct mtrace_caller k;
	if (mtrace_log_caller(text, n, &k) < 0)
		return tool_fail(&log->err, EXIT_BADFILE, "line %lu: a caller that is not "
				 "\"[0xADDR]\", \"OBJECT:[0xADDR]\" or \"OBJECT:(FUNC+0xOFF)[0xADDR]\"",
				 log->line);
	uint64_t *id = u64map_get(&c->stacks, k.addr + 1);
	if (id)
		return (int64_t)*id;
	uint32_t obj = 0;
	if (k.obj_len && !(obj = object_id(c, k.obj, k.obj_len, r)))
		return -1;
	if (k.obj_len || k.func_len) {
		/* SYMBOL: the function the log names, in the object it names */
		size_t fl = k.func_len < 0xffff && k.func_len < EXT_BYTES - 8 ? k.func_len : 0;
		ext_head(MTRACE_CALL_SYMBOL, obj, 0, k.addr, 0);
		*mtrace_ext_word(ext, 0) = fl | (uint64_t)k.off << 32;
		unsigned words = mtrace_ext_put_bytes(ext, 1, k.func, (unsigned)fl);
		if (put_ext(c, words, r->tid, r->ts) < 0)
			return -1;
	}
	uint32_t sid = ++c->next_stack;
	ext_head(MTRACE_CALL_STACK, sid, r->ts, k.addr, 0);
	if (put_ext(c, 0, r->tid, r->ts) < 0 || u64map_put(&c->stacks, k.addr + 1, sid) < 0)
		return -1;
	return sid;
}

int callers_put(struct callers *c, struct mtrace_log *log, const struct mtrace_record *r)
{
	if (!c->decided) {
		c->decided = 1;
		c->on = log->caller_len > 0;
		if (c->on) {
			struct mtrace_file_header *h = trace_writer_header(c->w);
			h->flags |= MTRACE_HF_STACKS;
			h->stack_depth = 1;
		}
	}
	if (!c->on || !mtrace_call_has(r->call, MTRACE_OPD_ALLOC))
		return trace_writer_put(c->w, r);
	int64_t id = 0;
	if (log->caller_len && (id = stack_id(c, log, log->caller, log->caller_len, r)) < 0)
		return -1;
	struct mtrace_slot s[3] = { { .call = MTRACE_CALL_CALLER, .x = (uint32_t)id } };
	if (id) {
		struct mtrace_caller k;
		mtrace_log_caller(log->caller, log->caller_len, &k);
		s[0].a = k.addr;
	}
	unsigned n = mtrace_encode(r, 0, s + 1);
	return trace_writer_put_slots(c->w, s, 1 + n, r->tid, r->ts);
}

void callers_free(struct callers *c)
{
	for (uint32_t i = 0; i < c->nobjs; i++)
		free(c->objs[i]);
	free(c->objs);
	u64map_free(&c->stacks);
}
