/* order_check - test helper: prove a trace's order points give a causal order.
 *
 * Every allocation becomes an ALLOC event at its order point, every free (and the releasing half
 * of realloc) a FREE event at its own; sorted by order point, no address may be allocated while
 * live nor freed twice.  Prints the counts; exits 1 if there is any inversion.  It also counts
 * how often an address freed by one thread was handed to another, to show the test had teeth.
 * For a trace flagged MTRACE_HF_CHUNK_BOUND it also counts records that precede their chunk's
 * timestamp (the flag promises none; the tools' streaming order relies on it).
 * (Holds the whole trace in memory: a test tool, not for huge traces.) */
#include <stdlib.h>
#include <string.h>
#include "tool.h"
#include "trace_reader.h"
#include "u64map.h"

struct ev { uint64_t t; uint64_t addr; uint32_t tid; uint32_t kind; uint64_t seq; };
enum { FREE_EV = 0, ALLOC_EV = 1 };

static int cmp(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;   /* on a tie, a release first */
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int main(int argc, char **argv)
{
	tool_name = "order_check";
	if (argc != 2)
		tool_die(2, "usage: order_check TRACE");
	struct trace_reader r;
	if (trace_open(&r, argv[1]) < 0)
		tool_die(1, "%s", r.err.msg);
	size_t n = 0, cap = 1 << 16;
	struct ev *ev = malloc(cap * sizeof *ev);
	struct mtrace_record x;
	int rc;
	uint64_t seq = 0, chunk_ts = 0;
	unsigned long long before_chunk = 0;
	struct u64map chunk_of = { 0 };   /* tid -> ts of its current chunk */
	while ((rc = trace_next(&r, &x, NULL)) > 0) {
		if (x.call == MTRACE_CALL_CHUNK) {
			u64map_put(&chunk_of, x.tid, x.ts);
			continue;
		}
		uint64_t *ct = u64map_get(&chunk_of, x.tid);
		chunk_ts = ct ? *ct : 0;
		if (x.ts < chunk_ts)
			before_chunk++;
		if (n + 2 > cap)
			ev = realloc(ev, (cap *= 2) * sizeof *ev);
		int failed = x.flags & MTRACE_RF_FAILED;
		switch (x.call) {
		case MTRACE_CALL_FREE:
			if (x.ptr)
				ev[n++] = (struct ev){ x.ts, x.ptr, x.tid, FREE_EV, seq++ };
			break;
		case MTRACE_CALL_REALLOC: case MTRACE_CALL_REALLOCARRAY:
			if (x.ptr && !failed)
				ev[n++] = (struct ev){ x.ts, x.ptr, x.tid, FREE_EV, seq++ };
			if (x.result)
				ev[n++] = (struct ev){ x.ts + x.duration, x.result, x.tid, ALLOC_EV,
						       seq++ };
			break;
		default:
			if (x.result)
				ev[n++] = (struct ev){ x.ts, x.result, x.tid, ALLOC_EV, seq++ };
		}
	}
	if (rc < 0)
		tool_die(1, "%s", r.err.msg);
	qsort(ev, n, sizeof *ev, cmp);
	/* value: bit 0 live, bits 32.. tid of the last event */
	struct u64map m = { 0 };
	unsigned long long alloc_live = 0, double_free = 0, pretrace = 0, xfree = 0, xreuse = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t *v = u64map_get(&m, ev[i].addr);
		uint64_t nv = ((uint64_t)ev[i].tid << 32) | (ev[i].kind == ALLOC_EV);
		if (ev[i].kind == ALLOC_EV) {
			if (v && (*v & 1))
				alloc_live++;
			else if (v && (uint32_t)(*v >> 32) != ev[i].tid)
				xreuse++;
		} else {
			if (v == NULL)
				pretrace++;
			else if (!(*v & 1))
				double_free++;
			else if ((uint32_t)(*v >> 32) != ev[i].tid)
				xfree++;
		}
		u64map_put(&m, ev[i].addr, nv);
	}
	printf("events %zu\nalloc_while_live %llu\nfree_while_free %llu\nfree_pretrace %llu\n"
	       "cross_thread_free %llu\ncross_thread_reuse %llu\nchunk_bound %d\n"
	       "before_chunk %llu\n", n, alloc_live, double_free, pretrace, xfree, xreuse,
	       !!(r.hdr.flags & MTRACE_HF_CHUNK_BOUND), before_chunk);
	int bound = r.hdr.flags & MTRACE_HF_CHUNK_BOUND;
	return (alloc_live || double_free || (bound && before_chunk)) ? 1 : 0;
}
