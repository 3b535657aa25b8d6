/* caller_form - test helper: a one-thread trace whose records hold their stacks' ids (version 6,
 * MTRACE_HF_STACK_IDS) written again with a CALLER slot before each allocating call, as
 * version 5 lays them out (trace_writer_put_caller); the header (strings too) and every other
 * record kept.  What a tool reports of the two must be the same.
 *   caller_form IN OUT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trace_reader.h"
#include "trace_writer.h"

static void die(const char *m) { fprintf(stderr, "caller_form: %s\n", m); exit(1); }

int main(int argc, char **argv)
{
	if (argc != 3)
		die("usage: caller_form IN OUT");
	struct trace_reader r;
	if (trace_open(&r, argv[1]) < 0)
		die(r.err.msg);
	if (!r.slots || !(r.hdr.flags & MTRACE_HF_STACK_IDS) ||
	    r.hdr.header_size != MTRACE_HEADER_SIZE)
		die("not a trace with stack ids in its records");
	r.ext_return = 1;
	struct trace_writer w;
	if (trace_writer_open(&w, argv[2], r.hdr.pid, NULL) < 0)
		die(w.err.msg);
	memcpy(w.page, r.buf, MTRACE_HEADER_SIZE);   /* (its strings as they were) */
	memcpy(w.page, &r.hdr, sizeof r.hdr);        /* (in host order) */
	struct mtrace_record rec;
	uint64_t off, words[MTRACE_EXT_WORDS_MAX];
	uint32_t stack = 0;
	uint64_t ret = 0;
	int k, caller = 0, tid = -1;
	while ((k = trace_next(&r, &rec, &off)) > 0) {
		int rc = 0;
		if (rec.call == MTRACE_CALL_CHUNK)
			continue;
		if (tid != -1 && rec.tid != (uint32_t)tid)
			die("more than one thread");
		tid = (int)rec.tid;
		if (rec.call == MTRACE_CALL_CALLER) {
			caller = 1;
			stack = (uint32_t)rec.size;
			ret = rec.ptr;
			continue;
		}
		const struct mtrace_slot *h = trace_ext_slots(&r, &rec);
		if (h) {
			unsigned n = 3 * h->aux;
			for (unsigned i = 0; i < n; i++)
				words[i] = *mtrace_ext_word((struct mtrace_slot *)h, i);
			rc = trace_writer_put_ext(&w, h, words, n);
		} else if (caller && mtrace_call_has_stack(rec.call))
			rc = trace_writer_put_caller(&w, &rec, stack, ret);
		else
			rc = trace_writer_put(&w, &rec);
		caller = 0;
		if (rc < 0)
			die(w.err.msg);
	}
	if (k < 0)
		die(r.err.msg);
	trace_close(&r);
	if (trace_writer_finish(&w) < 0)
		die(w.err.msg);
	return 0;
}
