/* Fuzz version 5's call stacks: the trace reader's extended records (returned, through the
 * hook, and skipped) and the stacks table fed with them.  Any input gives records or one error
 * naming an offset, never a crash, a hang or an unbounded allocation; the three ways of reading
 * agree on the records that are not stack records, and reading and mapping a page at a time
 * on everything; every frame of every stack
 * gets a name (from SYMBOL records and object+offset only: no file of this machine is read). */
#include <string.h>
#include "fuzz.h"
#include "stacks.h"
#include "trace_reader.h"

struct outcome { uint64_t calls, sum; int k; char err[600]; };

static int feed(void *arg, const struct mtrace_record *rec, const struct mtrace_slot *slots,
		uint64_t off)
{
	struct trace_reader *r = arg;
	struct trace_stacks *st = r->progress_arg;
	if (trace_stacks_add(st, rec, slots, off) < 0) {
		r->ext_err = trace_stacks_error(st);
		return -1;
	}
	return 0;
}

static int name_frame(void *arg, uint64_t frame)
{
	const char *n = trace_stacks_name(arg, frame);
	PROPERTY(n && *n, "a frame without a name");
	return 0;
}

/* mode 0: records returned; 1: through ext_fn; 2: skipped */
static void read_all(const char *path, int mode, struct outcome *o)
{
	struct trace_reader r;
	memset(o, 0, sizeof *o);
	struct trace_stacks *st = trace_stacks_new();
	PROPERTY(st, "no table");
	trace_stacks_set_local(st, 0);
	trace_stacks_keep_callers(st, mode == 1);
	if (trace_open(&r, path) == 0) {
		r.ext_return = mode == 0;
		if (mode == 1) {
			r.ext_fn = feed;
			r.ext_arg = &r;
			r.progress_arg = st;   /* (unused by the reader without progress) */
		}
		struct mtrace_record rec;
		uint64_t off;
		while ((o->k = trace_next(&r, &rec, &off)) > 0) {
			int stk = rec.call >= MTRACE_CALL_CALLER && rec.call <= MTRACE_CALL_SYMBOL;
			PROPERTY(mode == 0 || !stk, "a stack record returned unasked");
			if (mode == 0 && trace_stacks_add(st, &rec, trace_ext_slots(&r, &rec),
							  off) < 0) {
				snprintf(r.err.msg, sizeof r.err.msg, "%s", trace_stacks_error(st));
				o->k = -1;
				break;
			}
			if (stk)
				continue;
			const uint64_t *f;
			trace_stacks_frames(st, trace_stacks_caller(st, &rec, off), &f);
			o->calls++;
			o->sum = o->sum * 31 + off + rec.call;
		}
		PROPERTY(o->k == 0 || r.err.msg[0], "error without a message");
		trace_stacks_each_frame(st, name_frame, st);
	} else
		o->k = -2;
	memcpy(o->err, r.err.msg, sizeof o->err);
	trace_close(&r);
	trace_stacks_free(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_file(data, size, path);
	trace_reader_decompress = 0;
	struct outcome ret, hook, skip, mapped;
	trace_reader_map_min = 0;            /* mapped, a page a window: records cross windows */
	trace_reader_map_window = 4096;
	read_all(path, 0, &mapped);
	trace_reader_map_min = UINT64_MAX;   /* read */
	read_all(path, 0, &ret);
	PROPERTY(ret.k == mapped.k && ret.calls == mapped.calls && ret.sum == mapped.sum &&
		 strcmp(ret.err, mapped.err) == 0, "read and mapped differ: %d '%s' against %d "
		 "'%s'", ret.k, ret.err, mapped.k, mapped.err);
	read_all(path, 1, &hook);
	read_all(path, 2, &skip);
	/* the table's own errors (a stack defined twice) come where it reads them: only the
	   reader's agree */
	PROPERTY(ret.k < 0 || hook.k < 0 || (ret.calls == hook.calls && ret.sum == hook.sum),
		 "returned and hooked differ");
	PROPERTY(hook.k < 0 || (skip.k == 0 && skip.calls == hook.calls && skip.sum == hook.sum),
		 "hooked and skipped differ: %d '%s' against %d '%s'", hook.k, hook.err, skip.k,
		 skip.err);
	close(fd);
	return 0;
}
