/* u_trace_ext - unit test of version 5's extended records (trace_reader.h, trace_writer.h,
 * stacks.h): what trace_writer writes (CALLER, STACK, OBJECT, SYMBOL) reads back the same
 * through the reader and the stacks table, skipped by a reader that does not ask for them;
 * trace_ext_problem refuses each malformed head; the reader refuses a malformed record with
 * "NAME: offset N: what" at the slot at fault: a continuation slot that is not one, too many
 * continuation slots, a build id over 64 bytes, lengths past the record, a stack of more than
 * 128 frames, a record across its chunk's end, a truncated one, one in a trace without the
 * stacks flag. */
#include <stddef.h>
#include "unit.h"
#include "stacks.h"
#include "trace_reader.h"
#include "trace_writer.h"

static const uint64_t frames[3] = { 0x401234, 0x7f0000002345, 0x401100 };

/* A version-5 trace: a CALLER and malloc, a STACK of 3 frames, an OBJECT, a SYMBOL */
static const char *good_trace(const char *name, uint32_t flags)
{
	static char path[256];
	struct trace_writer w;
	snprintf(path, sizeof path, "%s/%s", unit_tmpdir(), name);
	if (trace_writer_open(&w, path, 77, "/bin/app") < 0)
		exit(2);
	struct mtrace_file_header *h = trace_writer_header(&w);
	h->flags |= flags;
	h->stack_depth = 8;
	struct mtrace_record m = { .tid = 77, .call = MTRACE_CALL_MALLOC, .ts = 10, .size = 24,
				   .result = 0x10000, .usable = 24 };
	static const unsigned char bid[20] = { 0xde, 0xad, 0xbe, 0xef };
	struct trace_writer_object o = { .id = 1, .ts = 9, .bias = 0x400000, .lo = 0x400000,
					 .hi = 0x402000, .build_id = bid, .build_id_len = 20,
					 .path = "/usr/bin/app" };
	struct trace_writer_symbol y = { .addr = frames[0], .object = 1, .line = 7, .fn_off = 0x34,
					 .name = "cache_fill", .file = "src/bloat.c" };
	if (trace_writer_object(&w, &o) < 0 || trace_writer_stack(&w, 1, 10, frames, 3) < 0 ||
	    trace_writer_put_caller(&w, &m, 1, frames[0]) < 0 || trace_writer_symbol(&w, &y) < 0 ||
	    trace_writer_finish(&w) < 0)
		exit(2);
	return path;
}

static unsigned char file[1 << 17];
static size_t file_n;

static void load(const char *path)
{
	FILE *f = fopen(path, "rb");
	file_n = f ? fread(file, 1, sizeof file, f) : 0;
	if (f)
		fclose(f);
}

/* The offset of the first slot of call `call` */
static uint64_t find(unsigned call)
{
	for (size_t at = MTRACE_HEADER_SIZE; at + 32 <= file_n; at += 32)
		if (file[at] == call)
			return at;
	return 0;
}

static struct mtrace_slot *slot_at(uint64_t at)
{
	return (struct mtrace_slot *)(void *)(file + at);
}

/* Read path to its end, extended records returned: the reader's error ("" if none) */
static const char *read_err(const char *path, int *nrec)
{
	static struct trace_reader r;
	struct mtrace_record rec;
	*nrec = 0;
	if (trace_open(&r, path) < 0)
		return r.err.msg;
	r.ext_return = 1;
	int k;
	while ((k = trace_next(&r, &rec, NULL)) > 0)
		++*nrec;
	trace_close(&r);
	return k < 0 ? r.err.msg : "";
}

/* file with one change, written as NAME: its reader's error (the path in *p) */
static const char *patched_err(const char *name, const char **p)
{
	int n;
	*p = unit_file(name, file, file_n);
	return read_err(*p, &n);
}

static void check_good(void)
{
	const char *path = good_trace("good.mtrace", MTRACE_HF_STACKS);
	struct trace_reader r;
	CHECK(trace_open(&r, path) == 0, "a version-5 trace with stacks opens");
	r.ext_return = 1;
	struct trace_stacks *st = trace_stacks_new();
	trace_stacks_set_local(st, 0);
	struct mtrace_record rec;
	uint64_t off;
	unsigned kinds = 0, stack_of_malloc = 99;
	int k;
	while ((k = trace_next(&r, &rec, &off)) > 0) {
		kinds |= 1u << (rec.call & 31);
		if (mtrace_call_is_ext(rec.call))
			CHECK(trace_ext_slots(&r, &rec) != NULL, "%s: its slots at hand",
			      mtrace_call_name(rec.call));
		CHECK(trace_stacks_add(st, &rec, trace_ext_slots(&r, &rec), off) == 0,
		      "%s fed to the stacks table", mtrace_call_name(rec.call));
		if (rec.call == MTRACE_CALL_MALLOC)
			stack_of_malloc = trace_stacks_caller(st, &rec, off);
	}
	CHECK(k == 0, "read to the end (%s)", r.err.msg);
	CHECK((kinds >> (MTRACE_CALL_CALLER & 31) & 15) == 15,
	      "CALLER, STACK, OBJECT and SYMBOL returned (0x%x)", kinds);
	CHECK(stack_of_malloc == 1, "the malloc's CALLER names stack 1 (%u)", stack_of_malloc);
	const uint64_t *f;
	unsigned n = trace_stacks_frames(st, 1, &f);
	CHECK(n == 3 && f[0] == frames[0] && f[1] == frames[1] && f[2] == frames[2],
	      "stack 1: its 3 frames, innermost first (%u)", n);
	CHECK(trace_stacks_frames(st, 2, &f) == 0, "an unknown stack id: no frames");
	CHECK(strcmp(trace_stacks_name(st, frames[0]), "cache_fill at bloat.c:7") == 0,
	      "a frame named by its SYMBOL record (%s)", trace_stacks_name(st, frames[0]));
	CHECK(strcmp(trace_stacks_name(st, frames[2]), "app+0x1100") == 0,
	      "a frame without one: object+offset (%s)", trace_stacks_name(st, frames[2]));
	CHECK(strcmp(trace_stacks_name(st, frames[1]), "0x7f0000002345") == 0,
	      "a frame in no object: its address (%s)", trace_stacks_name(st, frames[1]));
	struct trace_frame_info in;
	trace_stacks_resolve(st, frames[0], &in);
	CHECK(in.object == 1 && in.fn_off == 0x34 && in.embedded &&
	      strcmp(in.object_path, "/usr/bin/app") == 0 && strcmp(in.file, "src/bloat.c") == 0,
	      "the SYMBOL's object, offset, file and the OBJECT's path");
	CHECK(trace_stacks_has(st) && trace_stacks_count(st) == 1, "the table has 1 stack");
	trace_stacks_free(st);
	trace_close(&r);
	/* a reader that does not ask skips them: the malloc alone */
	CHECK(trace_open(&r, path) == 0, "opened again");
	unsigned calls = 0;
	while ((k = trace_next(&r, &rec, NULL)) > 0)
		calls += rec.call != MTRACE_CALL_CHUNK;
	CHECK(k == 0 && calls == 1 && r.n_ext == 4, "skipped unasked: 1 call, 4 stack records "
	      "counted (%u, %llu)", calls, (unsigned long long)r.n_ext);
	trace_close(&r);
}

static void check_malformed(void)
{
	const char *p, *e;
	good_trace("base.mtrace", MTRACE_HF_STACKS);
	char base[256];
	snprintf(base, sizeof base, "%s/base.mtrace", unit_tmpdir());
	load(base);
	uint64_t st = find(MTRACE_CALL_STACK), ob = find(MTRACE_CALL_OBJECT),
		 sy = find(MTRACE_CALL_SYMBOL), ca = find(MTRACE_CALL_CALLER);
	CHECK(st && ob && sy && ca, "the records found in the file");

	slot_at(st + 32)->x = 1;
	e = patched_err("cont.mtrace", &p);
	CHECK(unit_error_is(e, p, st + 32, "continuation slot 1 of a stack record that is not "
			    "one"), "a continuation slot with a commit word: %s", e);
	load(base);
	slot_at(st)->aux = MTRACE_EXT_SLOTS_MAX + 1;
	e = patched_err("aux.mtrace", &p);
	CHECK(unit_error_is(e, p, st, "257 continuation slots (at most 256)"),
	      "too many continuation slots: %s", e);
	load(base);
	slot_at(ob + 32)->b = 65 | (uint64_t)12 << 16;
	e = patched_err("bid.mtrace", &p);
	CHECK(unit_error_is(e, p, ob, "build id of 65 bytes"), "a build id of 65 bytes: %s", e);
	load(base);
	slot_at(ob + 32)->b = 20 | (uint64_t)2000 << 16;
	e = patched_err("path.mtrace", &p);
	CHECK(unit_error_is(e, p, ob, "longer than its record"), "a path past the record: %s", e);
	load(base);
	slot_at(sy + 32)->ts = 10 | (uint64_t)900 << 16;
	e = patched_err("sym.mtrace", &p);
	CHECK(unit_error_is(e, p, sy, "longer than its record"), "a symbol's file past the "
	      "record: %s", e);
	load(base);
	slot_at(ob)->flags = 0x02;
	e = patched_err("oflags.mtrace", &p);
	CHECK(unit_error_is(e, p, ob, "flags 0x2"), "an object with unknown flags: %s", e);
	load(base);
	slot_at(ca)->aux = 3;
	e = patched_err("caux.mtrace", &p);
	CHECK(unit_error_is(e, p, ca, "aux"), "a CALLER with aux set: %s", e);
	load(base);
	slot_at(st)->x = 0;
	e = patched_err("id0.mtrace", &p);
	CHECK(unit_error_is(e, p, st, "id 0"), "a stack of id 0: %s", e);
	/* a record across the chunk's end: its chunk record made short */
	load(base);
	uint64_t ch = find(MTRACE_CALL_CHUNK);
	slot_at(ch)->b = (slot_at(ch)->b & ~0xffffffffull) | (st + 32 - ch);
	e = patched_err("across.mtrace", &p);
	CHECK(unit_error_is(e, p, st, "across its chunk's end"), "across its chunk's end: %s", e);
	/* truncated inside the record */
	load(base);
	file_n = st + 32;
	e = patched_err("trunc.mtrace", &p);
	CHECK(unit_error_is(e, p, st, "truncated record"), "truncated in its continuation: %s", e);
	/* the same records where the header has no stacks flag */
	const char *nf = good_trace("noflag.mtrace", 0);
	int n;
	load(nf);
	e = read_err(nf, &n);
	CHECK(unit_error_is(e, nf, find(MTRACE_CALL_OBJECT), "without call stacks"),
	      "a stack record in a trace without the stacks flag: %s", e);
	/* a stack of 129 frames: 2 in the head, 127 words in 43 slots */
	struct mtrace_file_header h;
	mtrace_header_init(&h);
	h.flags = MTRACE_HF_STACKS;
	static struct mtrace_slot s[1 + 43];
	memset(s, 0, sizeof s);
	s[0] = (struct mtrace_slot){ .call = MTRACE_CALL_STACK, .aux = 43, .x = 5, .a = 1, .b = 2 };
	char msg[160];
	for (unsigned i = 0; i < 127; i++)
		*mtrace_ext_word(s, i) = 3 + i;
	CHECK(trace_ext_problem(&h, s, msg, sizeof msg) != NULL, "a stack of 129 frames refused");
	*mtrace_ext_word(s, 126) = 0;
	CHECK(trace_ext_problem(&h, s, msg, sizeof msg) == NULL, "one of 128 accepted");
	h.version = 4;
	CHECK(trace_ext_problem(&h, s, msg, sizeof msg) != NULL, "refused in version 4");
	/* the header: the stacks flag is version 5's, its depth 128 frames at most */
	struct tool_err err;
	uint64_t at;
	mtrace_header_init(&h);
	h.clock = MTRACE_CLOCK_MONOTONIC;
	h.ticks_per_sec = 1000000000;
	h.flags = MTRACE_HF_STACKS;
	h.stack_depth = MTRACE_STACK_DEPTH_MAX;
	CHECK(trace_header_check(&h, &at, &err) == 0, "a header of depth 128 accepted");
	h.stack_depth = MTRACE_STACK_DEPTH_MAX + 1;
	CHECK(trace_header_check(&h, &at, &err) < 0 &&
	      at == offsetof(struct mtrace_file_header, stack_depth) &&
	      strstr(err.msg, "stack depth of 129"), "depth 129 refused at its field: %s",
	      err.msg);
	h.stack_depth = 8;
	h.version = 4;
	CHECK(trace_header_check(&h, &at, &err) < 0 && strstr(err.msg, "version 4"),
	      "the stacks flag refused in version 4: %s", err.msg);
}

/* A stack read before its object's record (another thread's chunk, later in the file) */
static void check_object_after(void)
{
	char path[256];
	struct trace_writer w;
	snprintf(path, sizeof path, "%s/after.mtrace", unit_tmpdir());
	if (trace_writer_open(&w, path, 5, NULL) < 0)
		exit(2);
	trace_writer_header(&w)->flags |= MTRACE_HF_STACKS;
	static const uint64_t f[1] = { 0x500010 };
	struct trace_writer_object o = { .id = 3, .ts = 2, .bias = 0x500000, .lo = 0x500000,
					 .hi = 0x501000, .path = "/lib/libx.so" };
	if (trace_writer_stack(&w, 1, 1, f, 1) < 0 || trace_writer_object(&w, &o) < 0 ||
	    trace_writer_finish(&w) < 0)
		exit(2);
	struct trace_reader r;
	struct trace_stacks *st = trace_stacks_new();
	trace_stacks_set_local(st, 0);
	struct mtrace_record rec;
	uint64_t off;
	CHECK(trace_open(&r, path) == 0, "opened");
	r.ext_return = 1;
	while (trace_next(&r, &rec, &off) > 0)
		trace_stacks_add(st, &rec, trace_ext_slots(&r, &rec), off);
	CHECK(strcmp(trace_stacks_name(st, f[0]), "libx.so+0x10") == 0,
	      "a stack read before its object's record: named by the object (%s)",
	      trace_stacks_name(st, f[0]));
	trace_stacks_free(st);
	trace_close(&r);
}

int main(void)
{
	check_good();
	check_object_after();
	check_malformed();
	return unit_done();
}
