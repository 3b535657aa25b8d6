/* callers.c - see callers.h */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "callers.h"

/* The longest object path kept: glibc's are a file's path */
#define PATH_KEEP 4096u

/* The id of the object at path (n bytes), written as an OBJECT record when first met (its load
   address, range and build id unknown: a log does not say them); 0 on failure */
static uint32_t object_id(struct callers *c, const char *path, size_t n, uint64_t ts)
{
	if (n > PATH_KEEP)
		n = PATH_KEEP;
	for (uint32_t i = 0; i < c->nobjs; i++)
		if (strlen(c->objs[i]) == n && !memcmp(c->objs[i], path, n))
			return i + 1;
	char **v = realloc(c->objs, (c->nobjs + 1) * sizeof *v);
	if (!v)
		return 0;
	c->objs = v;
	if (!(v[c->nobjs] = strndup(path, n)))
		return 0;
	uint32_t id = ++c->nobjs;
	struct trace_writer_object o = { .id = id, .ts = ts, .path = v[id - 1] };
	return trace_writer_object(c->w, &o) < 0 ? 0 : id;
}

/* The stack id of caller k, its STACK, OBJECT and SYMBOL records written when first met; -1 */
static int64_t stack_id(struct callers *c, const struct mtrace_caller *k, uint64_t ts)
{
	uint64_t *id = u64map_get(&c->stacks, k->addr + 1);
	if (id)
		return (int64_t)*id;
	uint32_t obj = 0;
	if (k->obj_len && !(obj = object_id(c, k->obj, k->obj_len, ts)))
		return -1;
	if (k->obj_len || k->func_len) {
		/* the function the log names (none: the object alone), in the object it names */
		char *name = strndup(k->func ? k->func : "", k->func_len);
		struct trace_writer_symbol y = { .addr = k->addr, .object = obj, .fn_off = k->off,
						 .name = name };
		int rc = name ? trace_writer_symbol(c->w, &y) : -1;
		free(name);
		if (rc < 0)
			return -1;
	}
	uint32_t sid = ++c->next_stack;
	if (trace_writer_stack(c->w, sid, ts, &k->addr, 1) < 0 ||
	    u64map_put(&c->stacks, k->addr + 1, sid) < 0)
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
	if (!c->on || !mtrace_call_has(r->call, MTRACE_OPD_ALLOC) || !log->caller_len)
		return trace_writer_put(c->w, r);   /* (with stacks: a CALLER naming none) */
	struct mtrace_caller k;
	if (mtrace_log_caller(log->caller, log->caller_len, &k) < 0)
		return tool_fail(&log->err, EXIT_BADFILE, "line %lu: a caller that is not "
				 "\"[0xADDR]\", \"OBJECT:[0xADDR]\" or \"OBJECT:(FUNC+0xOFF)[0xADDR]\"",
				 log->line);
	int64_t id = stack_id(c, &k, r->ts);
	return id < 0 ? -1 : trace_writer_put_caller(c->w, r, (uint32_t)id, k.addr);
}

void callers_free(struct callers *c)
{
	for (uint32_t i = 0; i < c->nobjs; i++)
		free(c->objs[i]);
	free(c->objs);
	u64map_free(&c->stacks);
}
