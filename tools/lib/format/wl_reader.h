/* wl_reader.h - reading and validating workload files (format: include/mtrace-workload.h).
 * The file is mapped read-only; every stream is decoded with bounds checks, and errors name the
 * byte offset. */
#ifndef WL_READER_H
#define WL_READER_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "msg.h"
#include "mtrace-workload.h"
#include "varint.h"

struct wl_reader {
	const char *name;
	const uint8_t *map;
	size_t size;
	struct mtrace_wl_header h;
	struct mtrace_wl_thread *threads;   /* h.nthreads entries, host order; mapped (trace_run
	                                       reads it with the allocator under test in place) */
	size_t threads_bytes;
	/* called by a consumer that walks every op (replay_validate) every 2^20 ops with the ops
	   decoded so far; tool_progress fits */
	void (*progress)(uint64_t ops, void *arg);
	void *progress_arg;
	struct tool_err err;          /* last: large, and read only when something failed */
};

struct wl_op {
	unsigned op;          /* opcode without the FAILED bit */
	int failed;
	int n;                /* operands */
	uint64_t a[4];
	uint64_t offset;      /* file offset of the opcode */
};

struct wl_cursor { const uint8_t *p, *end; const uint8_t *base; int done; };

int wl_open(struct wl_reader *r, const char *path);
/* Of the settings the program ran with (h->settings), those it set as it ran: "" if none, or
   not said (mtrace-workload.h) */
static inline const char *wl_settings_set(const struct mtrace_wl_header *h)
{
	size_t n = strlen(h->settings);
	return n + 1 < sizeof h->settings ? h->settings + n + 1 : "";
}
/* The program's memory sample i (< r->h.nsamples, checked at open: in the file, in order of
   calls and time), in host order. */
void wl_sample(const struct wl_reader *r, uint64_t i, struct mtrace_wl_sample *s);
void wl_close(struct wl_reader *r);
void wl_cursor_init(const struct wl_reader *r, uint32_t thread, struct wl_cursor *c);
/* What wl_next found wrong: the message, naming the offset, into r->err; -1. */
enum { WL_BAD_END, WL_BAD_OPCODE, WL_BAD_OPERAND, WL_BAD_THREAD, WL_BAD_SLOT, WL_BAD_MAP };
int wl_next_fail(struct wl_reader *r, const struct wl_cursor *c, const struct wl_op *op, int why,
		 int k);

/* Next op of a stream: 1, 0 after END, -1 with r->err set.  Checks opcodes (version 2's only
   in a version-2 file), operand encoding, slot < nslots, map < nmaps and WAIT's thread <
   nthreads.  Inline: trace_run's validation runs it on every op before each replay. */
static inline int wl_next(struct wl_reader *r, struct wl_cursor *c, struct wl_op *op)
{
	if (c->done)
		return 0;
	if (c->p >= c->end)
		return wl_next_fail(r, c, op, WL_BAD_END, 0);
	op->offset = (uint64_t)(c->p - c->base);
	unsigned code = *c->p++;
	op->op = code & 0x7f;
	op->failed = !!(code & MTRACE_WL_FAILED);
	op->n = mtrace_wl_operands(code);
	/* the program's own memory (version 2's ops): never FAILED */
	int prog_op = op->op > MTRACE_WL_LAST_CALL && op->op != MTRACE_WL_WAIT;
	if (op->n < 0 ||
	    (op->failed && (prog_op || op->op == MTRACE_WL_WAIT || op->op == MTRACE_WL_END ||
			    op->op == MTRACE_WL_FREE)) ||
	    (prog_op && r->h.version < 2))
		return wl_next_fail(r, c, op, WL_BAD_OPCODE, 0);
	for (int k = 0; k < op->n; k++)
		if (varint_get(&c->p, c->end, &op->a[k]) < 0)
			return wl_next_fail(r, c, op, WL_BAD_OPERAND, k);
	if (op->op == MTRACE_WL_END) {
		c->done = 1;
		return 0;
	}
	if (op->op == MTRACE_WL_WAIT)
		return op->a[0] < r->h.nthreads ? 1 : wl_next_fail(r, c, op, WL_BAD_THREAD, 0);
	/* a mapping call's map; RESIDENT and AT take any number */
	if (__builtin_expect(prog_op, 0)) {
		if (op->op <= MTRACE_WL_LAST_MAP && op->a[0] >= r->h.nmaps)
			return wl_next_fail(r, c, op, WL_BAD_MAP, 0);
		return 1;
	}
	/* slot operands: the first (result) and, for realloc/reallocarray, the second */
	if (op->a[0] >= r->h.nslots)
		return wl_next_fail(r, c, op, WL_BAD_SLOT, 0);
	if (mtrace_wl_resizes(op->op) && op->a[1] >= r->h.nslots)
		return wl_next_fail(r, c, op, WL_BAD_SLOT, 1);
	return 1;
}
#endif
