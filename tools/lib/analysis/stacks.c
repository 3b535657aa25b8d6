/* stacks.c - see stacks.h.  Frames are kept end to end in one array (a stack: where its first
 * is, and how many); each distinct frame is tied, when its first stack is read, to the object
 * then loaded at its address, so that a library unloaded later still names its frames. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "msg.h"
#include "rangemap.h"
#include "stacks.h"
#include "symbols.h"
#include "u64map.h"

struct obj {
	uint32_t id;
	int unloaded;
	uint64_t bias, lo, hi;
	unsigned char bid[MTRACE_BUILD_ID_MAX];
	unsigned bid_len;
	char *path;                   /* NULL: none */
	int opened;                   /* 0 not yet, 1 sym holds its functions, -1 cannot */
	struct sym_file sym;
	int no_lines;                  /* addr2line is missing, failed, or the file has no lines */
	uint64_t nframes, nlooked;    /* its frames, and those looked up in a run of addr2line */
	struct u64map lines;          /* frame -> index + 1 in lv */
	struct sym_line *lv;
	size_t nlv;
};

struct sym_rec { uint32_t obj, line, fn_off; char *name, *file; };

struct trace_stacks {
	const char *file;
	int use_files, has;
	uint64_t *frames;             /* every stack's frames, end to end */
	size_t nframes, capframes;
	struct u64map stacks;         /* id -> index in frames << 8 | frames */
	struct u64map frame_obj;      /* frame -> object index + 1 when its stack was read (0) */
	struct obj *objs;
	size_t nobjs, capobjs;
	struct u64map obj_by_id;      /* id -> index of its last load */
	struct rangemap loaded;       /* [lo, hi) of the objects loaded now -> index */
	struct sym_rec *syms;
	size_t nsyms, capsyms;
	struct u64map sym_by_addr;    /* address -> index + 1 */
	struct u64map names;          /* frame -> its name for people (char *) */
	uint64_t caller_off;          /* the last CALLER: its offset + 1 (0: none), its id */
	uint32_t caller_id;
	int keep_callers;
	struct u64map callers;        /* the offset of a CALLER's record -> its stack id */
	char err[600];
};

struct trace_stacks *trace_stacks_new(void)
{
	struct trace_stacks *s = calloc(1, sizeof *s);
	if (s) {
		s->file = "trace";
		s->use_files = 1;
	}
	return s;
}

void trace_stacks_free(struct trace_stacks *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nobjs; i++) {
		struct obj *o = &s->objs[i];
		free(o->path);
		if (o->opened > 0)
			sym_close(&o->sym);
		for (size_t k = 0; k < o->nlv; k++) {
			free(o->lv[k].func);
			free(o->lv[k].file);
		}
		free(o->lv);
		u64map_free(&o->lines);
	}
	for (size_t i = 0; i < s->nsyms; i++) {
		free(s->syms[i].name);
		free(s->syms[i].file);
	}
	for (size_t i = 0; i < s->names.cap; i++)
		if (s->names.slots[i].key)
			free((char *)(uintptr_t)s->names.slots[i].val);
	free(s->frames);
	free(s->objs);
	free(s->syms);
	u64map_free(&s->stacks);
	u64map_free(&s->frame_obj);
	u64map_free(&s->obj_by_id);
	u64map_free(&s->sym_by_addr);
	u64map_free(&s->names);
	u64map_free(&s->callers);
	rangemap_free(&s->loaded);
	free(s);
}

void trace_stacks_set_name(struct trace_stacks *s, const char *file)
{
	s->file = file;
}

void trace_stacks_set_local(struct trace_stacks *s, int use_files)
{
	s->use_files = use_files;
}

void trace_stacks_keep_callers(struct trace_stacks *s, int on)
{
	s->keep_callers = on;
}

const char *trace_stacks_error(const struct trace_stacks *s)
{
	return s->err;
}

__attribute__((format(printf, 3, 4)))
static int fail(struct trace_stacks *s, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int k = snprintf(s->err, sizeof s->err, "%s: offset %llu: ", s->file,
			 (unsigned long long)off);
	vsnprintf(s->err + k, sizeof s->err - (size_t)k, fmt, ap);
	va_end(ap);
	return -1;
}

/* Room for one more of an array of elements of size sz: 0, or -1 */
static int grow(void **a, size_t *cap, size_t n, size_t sz)
{
	if (n < *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 16;
	void *p = realloc(*a, nc * sz);
	if (!p)
		return -1;
	*a = p;
	*cap = nc;
	return 0;
}

/* ---------------------------------------------------------------------------------------------
   Records
   ------------------------------------------------------------------------------------------- */

/* n bytes of payload from word at (host order) into a new string */
static char *payload_string(const struct mtrace_slot *h, unsigned *at, unsigned n)
{
	char *p = malloc(n + 1);
	if (p) {
		*at = mtrace_ext_get_bytes(h, *at, p, n);
		p[n] = 0;
		for (unsigned i = 0; i < n; i++)   /* (names for people: no NUL inside) */
			if (!p[i])
				p[i] = '?';
	}
	return p;
}

static int add_stack(struct trace_stacks *s, const struct mtrace_record *rec,
		     const struct mtrace_slot *sl, uint64_t off)
{
	uint32_t id = (uint32_t)rec->size;
	if (u64map_get(&s->stacks, id))
		return fail(s, off, "stack %u defined twice", id);
	unsigned words = 3 * (unsigned)rec->arg2, n = 0;
	size_t at = s->nframes;
	for (unsigned i = 0; i < 2 + words && n < MTRACE_STACK_DEPTH_MAX; i++) {
		uint64_t f = i == 0 ? rec->ptr : i == 1 ? rec->result
				    : *mtrace_ext_word((struct mtrace_slot *)sl, i - 2);
		if (!f)
			break;
		if (grow((void **)&s->frames, &s->capframes, s->nframes, sizeof *s->frames) < 0)
			return fail(s, off, "out of memory");
		s->frames[s->nframes++] = f;
		n++;
		if (!u64map_get(&s->frame_obj, f)) {
			const struct rangemap_node *o = rangemap_find(&s->loaded, f - 1);
			if (u64map_put(&s->frame_obj, f, o ? o->val + 1 : 0) < 0)
				return fail(s, off, "out of memory");
			if (o)
				s->objs[o->val].nframes++;
		}
	}
	if (u64map_put(&s->stacks, id, (uint64_t)at << 8 | n) < 0)
		return fail(s, off, "out of memory");
	return 0;
}

static int add_object(struct trace_stacks *s, const struct mtrace_record *rec,
		      const struct mtrace_slot *sl, uint64_t off)
{
	uint32_t id = (uint32_t)rec->size;
	if (rec->flags & MTRACE_OBJ_UNLOADED) {
		uint64_t *v = u64map_get(&s->obj_by_id, id);
		if (v && !s->objs[*v].unloaded) {
			struct obj *o = &s->objs[*v];
			o->unloaded = 1;
			if (o->hi > o->lo && rangemap_remove(&s->loaded, o->lo, o->hi, NULL, NULL) < 0)
				return fail(s, off, "out of memory");
		}
		return 0;
	}
	if (grow((void **)&s->objs, &s->capobjs, s->nobjs, sizeof *s->objs) < 0)
		return fail(s, off, "out of memory");
	struct obj *o = &s->objs[s->nobjs];
	memset(o, 0, sizeof *o);
	o->id = id;
	o->bias = rec->ptr;
	o->lo = sl[1].ts;
	o->hi = sl[1].a;
	uint64_t lens = sl[1].b;
	unsigned at = 3, plen = (unsigned)(lens >> 16 & 0xffff);
	o->bid_len = (unsigned)(lens & 0xffff);   /* (<= 64: the reader checked) */
	at = mtrace_ext_get_bytes(sl, at, o->bid, o->bid_len);
	if (plen && !(o->path = payload_string(sl, &at, plen)))
		return fail(s, off, "out of memory");
	/* (what was mapped there before is gone) */
	if ((o->hi > o->lo && (rangemap_remove(&s->loaded, o->lo, o->hi, NULL, NULL) < 0 ||
			       rangemap_insert(&s->loaded, o->lo, o->hi, s->nobjs) < 0)) ||
	    u64map_put(&s->obj_by_id, id, s->nobjs) < 0) {
		free(o->path);
		return fail(s, off, "out of memory");
	}
	s->nobjs++;
	return 0;
}

static int add_symbol(struct trace_stacks *s, const struct mtrace_record *rec,
		      const struct mtrace_slot *sl, uint64_t off)
{
	if (grow((void **)&s->syms, &s->capsyms, s->nsyms, sizeof *s->syms) < 0)
		return fail(s, off, "out of memory");
	uint64_t w = sl[1].ts;
	unsigned at = 1, nlen = (unsigned)(w & 0xffff), flen = (unsigned)(w >> 16 & 0xffff);
	struct sym_rec *y = &s->syms[s->nsyms];
	*y = (struct sym_rec){ (uint32_t)rec->size, (uint32_t)rec->result, (uint32_t)(w >> 32),
			       NULL, NULL };
	if (rec->result > UINT32_MAX)
		y->line = 0;
	if ((nlen && !(y->name = payload_string(sl, &at, nlen))) ||
	    (flen && !(y->file = payload_string(sl, &at, flen))) ||
	    u64map_put(&s->sym_by_addr, rec->ptr, s->nsyms + 1) < 0) {
		free(y->name);
		free(y->file);
		return fail(s, off, "out of memory");
	}
	s->nsyms++;
	return 0;
}

int trace_stacks_add(struct trace_stacks *s, const struct mtrace_record *rec,
		     const struct mtrace_slot *slots, uint64_t off)
{
	unsigned call = rec->call;
	if (call < MTRACE_CALL_CALLER || call > MTRACE_CALL_SYMBOL)
		return 0;
	s->has = 1;
	if (call == MTRACE_CALL_CALLER) {
		s->caller_off = off + 1;
		s->caller_id = (uint32_t)rec->size;
		if (s->keep_callers && rec->size &&
		    u64map_put(&s->callers, off + MTRACE_SLOT_SIZE, rec->size) < 0)
			return fail(s, off, "out of memory");
		return 0;
	}
	if (rec->arg2 && !slots)
		return fail(s, off, "a %s record without its slots", mtrace_call_name(call));
	if (call == MTRACE_CALL_STACK)
		return add_stack(s, rec, slots, off);
	if (call == MTRACE_CALL_OBJECT)
		return add_object(s, rec, slots, off);
	return add_symbol(s, rec, slots, off);
}

uint32_t trace_stacks_caller(const struct trace_stacks *s, const struct mtrace_record *rec,
			     uint64_t off)
{
	if (!mtrace_call_has(rec->call, MTRACE_OPD_ALLOC))
		return 0;
	if (s->caller_off && s->caller_off - 1 + MTRACE_SLOT_SIZE == off)
		return s->caller_id;
	uint64_t id;
	/* (each record is asked for once: the table keeps those not asked for yet) */
	if (s->keep_callers && u64map_take((struct u64map *)&s->callers, off, &id))
		return (uint32_t)id;
	return 0;
}

unsigned trace_stacks_frames(const struct trace_stacks *s, uint32_t id, const uint64_t **f)
{
	const uint64_t *v = id ? u64map_get(&s->stacks, id) : NULL;
	if (!v || !(*v & 0xff)) {   /* (a stack of no frames may come before any frame) */
		*f = NULL;
		return 0;
	}
	*f = s->frames + (*v >> 8);
	return (unsigned)(*v & 0xff);
}

int trace_stacks_has(const struct trace_stacks *s)
{
	return s->has;
}

uint32_t trace_stacks_count(const struct trace_stacks *s)
{
	return (uint32_t)s->stacks.n;
}

int trace_stacks_each_frame(const struct trace_stacks *s, int (*fn)(void *arg, uint64_t frame),
			    void *arg)
{
	for (size_t i = 0; i < s->frame_obj.cap; i++)
		if (s->frame_obj.slots[i].key) {
			int rc = fn(arg, s->frame_obj.slots[i].key);
			if (rc)
				return rc;
		}
	return 0;
}

/* ---------------------------------------------------------------------------------------------
   Names
   ------------------------------------------------------------------------------------------- */

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

/* The object frame lies in: the one loaded there when its stack was read; for a frame whose
   stack came before its object's record in the file (another thread's chunk: the record was
   written first), the one loaded there now, else the last that was */
static struct obj *object_of(struct trace_stacks *s, uint64_t frame)
{
	uint64_t *v = u64map_get(&s->frame_obj, frame);
	if (v && *v)
		return &s->objs[*v - 1];
	const struct rangemap_node *n = rangemap_find(&s->loaded, frame - 1);
	size_t i = n ? n->val + 1 : 0;
	for (size_t k = s->nobjs; !i && k-- > 0;)
		if (frame - 1 - s->objs[k].lo < s->objs[k].hi - s->objs[k].lo)
			i = k + 1;
	if (!i)
		return NULL;
	if (v) {   /* (tied to it from now on: its lines looked up with the object's) */
		*v = i;
		s->objs[i - 1].nframes++;
	}
	return &s->objs[i - 1];
}

/* o's file opened, once: 1, or 0 (said once when its build id differs) */
static int open_object(struct trace_stacks *s, struct obj *o)
{
	if (!o->opened) {
		const char *why = "no path";
		o->opened = o->path && sym_open(&o->sym, o->path, o->bid, o->bid_len, &why) == 0
			    ? 1 : -1;
		if (o->opened < 0 && strcmp(why, "build id differs") == 0)
			tool_warn("%s: %s: build id differs from the traced program's: its frames "
				  "are named by offset", s->file, o->path);
	}
	return o->opened > 0;
}

/* The frames of o not looked up yet, file:line through addr2line in one run */
static void object_lines(struct trace_stacks *s, struct obj *o)
{
	o->nlooked = o->nframes;
	if (!o->sym.lines_from || !sym_have_addr2line()) {
		o->no_lines = 1;
		return;
	}
	size_t n = 0, idx = (size_t)(o - s->objs) + 1;
	uint64_t *fr = malloc((s->frame_obj.n + 1) * sizeof *fr), *addr = NULL;
	struct sym_line *lv = NULL;
	if (!fr)
		return;
	for (size_t i = 0; i < s->frame_obj.cap; i++) {
		uint64_t f = s->frame_obj.slots[i].key;
		if (f && s->frame_obj.slots[i].val == idx && !u64map_get(&o->lines, f))
			fr[n++] = f;
	}
	if (n && (addr = malloc(n * sizeof *addr)) &&
	    (lv = realloc(o->lv, (o->nlv + n) * sizeof *lv))) {
		o->lv = lv;
		for (size_t i = 0; i < n; i++)
			addr[i] = fr[i] - 1 - o->bias;
		size_t base = o->nlv, k = 0;
		if (sym_lines(&o->sym, addr, n, lv + base) < 0)
			o->no_lines = 1;
		else {
			while (k < n && u64map_put(&o->lines, fr[k], base + k + 1) == 0)
				k++;
			o->nlv = base + k;
			for (; k < n; k++) {   /* (not kept, out of memory: freed) */
				free(lv[base + k].func);
				free(lv[base + k].file);
			}
		}
	}
	free(addr);
	free(fr);
}

int trace_stacks_resolve(struct trace_stacks *s, uint64_t frame, struct trace_frame_info *info)
{
	memset(info, 0, sizeof *info);
	info->fn_off = UINT32_MAX;
	struct obj *o = object_of(s, frame);
	if (o) {
		info->object = o->id;
		info->object_path = o->path;
		info->object_off = frame - o->bias;
	}
	const uint64_t *y = u64map_get(&s->sym_by_addr, frame);
	if (y) {
		const struct sym_rec *r = &s->syms[*y - 1];
		info->func = r->name;
		info->file = r->file;
		info->line = r->line;
		info->fn_off = r->fn_off;
		info->embedded = 1;
		return r->name != NULL;
	}
	if (!o || !s->use_files || !open_object(s, o))
		return 0;
	uint64_t at = frame - 1 - o->bias, fo;
	info->func = sym_table_find(&o->sym.tab, at, &fo);
	if (info->func && fo + 1 <= UINT32_MAX)
		info->fn_off = (uint32_t)(fo + 1);
	const uint64_t *l = u64map_get(&o->lines, frame);
	if (!l && !o->no_lines && o->nlooked < o->nframes) {
		object_lines(s, o);
		l = u64map_get(&o->lines, frame);
	}
	if (l) {
		const struct sym_line *sl = &o->lv[*l - 1];
		if (sl->func)
			info->func = sl->func;
		info->file = sl->file;
		info->line = sl->file ? sl->line : 0;
	}
	return info->func != NULL;
}

const char *trace_stacks_name(struct trace_stacks *s, uint64_t frame)
{
	if (frame == 0)
		return "0x0";
	uint64_t *v = u64map_get(&s->names, frame);
	if (v)
		return (const char *)(uintptr_t)*v;
	struct trace_frame_info in;
	char buf[1200];
	if (trace_stacks_resolve(s, frame, &in)) {
		int k = snprintf(buf, sizeof buf, "%s", in.func);
		if (in.file && (size_t)k < sizeof buf) {
			k += snprintf(buf + k, sizeof buf - (size_t)k, " at %s", base_name(in.file));
			if (in.line && (size_t)k < sizeof buf)
				snprintf(buf + k, sizeof buf - (size_t)k, ":%u", in.line);
		}
	} else if (in.object_path)
		snprintf(buf, sizeof buf, "%s+0x%llx", base_name(in.object_path),
			 (unsigned long long)in.object_off);
	else
		snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)frame);
	char *name = strdup(buf);
	if (!name || u64map_put(&s->names, frame, (uintptr_t)name) < 0) {
		free(name);
		return "(out of memory)";
	}
	return name;
}
