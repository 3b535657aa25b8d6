/* stacks.h - the call stacks, loaded objects and names of a trace (version 5).
 *
 * A tool feeds every record the reader returns, in file order, to trace_stacks_add; the table
 * keeps the STACK records (id -> frames), the OBJECT records (which object held an address,
 * and when: a stack's frames resolve against the objects loaded when it was first met, so an
 * unloaded library's frames still name it), the SYMBOL records (names trace_pack embedded) and
 * the stack id of the last CALLER.  Memory is bounded by the trace's own size: each STACK,
 * OBJECT and SYMBOL record is kept once, in about the bytes it takes in the file.  Names are
 * asked for once every record is fed (trace_pack's SYMBOL records come last; a name, once
 * given, stays).
 */
#ifndef STACKS_H
#define STACKS_H
#include <stdint.h>
#include "mtrace-trace.h"

struct trace_stacks;                       /* opaque */
struct trace_stacks *trace_stacks_new(void);
void trace_stacks_free(struct trace_stacks *);
/* Feed every record the reader returns, in file order, with its offset and, for extended
   records, its slots (trace_ext_slots, trace_reader.h: the head slot, then rec->arg2
   continuation slots, in host order).  Returns 0, or -1 with a message naming the file and
   offset for a malformed record (trace_stacks_error). */
int trace_stacks_add(struct trace_stacks *, const struct mtrace_record *rec,
		     const struct mtrace_slot *slots, uint64_t off);
/* the stack id the CALLER just before this allocating record named (0: none) */
uint32_t trace_stacks_caller(const struct trace_stacks *, const struct mtrace_record *rec,
			     uint64_t off);
/* frames of stack id (innermost first); n frames, 0 if unknown id */
unsigned trace_stacks_frames(const struct trace_stacks *, uint32_t id, const uint64_t **f);
/* a frame's name for people: "func", "func at file.c:7", or "libfoo.so+0x1234" (never NULL),
   resolved from SYMBOL records first, then the objects' files on this machine */
const char *trace_stacks_name(struct trace_stacks *, uint64_t frame);
int trace_stacks_has(const struct trace_stacks *);       /* the trace has stacks */

/* ---- beyond the common interface ---- */

/* The file name messages give (trace_stacks_add's errors, "build id differs"): set it before
   the first record; the string must outlive the table */
void trace_stacks_set_name(struct trace_stacks *, const char *file);
/* The last error, "FILE: offset N: what" */
const char *trace_stacks_error(const struct trace_stacks *);
/* 0: trace_stacks_name uses SYMBOL records and object+offset only, never the files on this
   machine (a maintainer's report of a packed trace, tests) */
void trace_stacks_set_local(struct trace_stacks *, int use_files);

/* A tool that reads through order.c (the reader's ext_fn feeds this table ahead of the calls
   handed out) keeps every CALLER's stack id until trace_stacks_caller asks for it, once; by
   default only the last CALLER's is kept (a tool that asks as it reads, in file order) */
void trace_stacks_keep_callers(struct trace_stacks *, int on);

/* What a frame resolves to, for trace_pack's SYMBOL records */
struct trace_frame_info {
	uint32_t object;                /* object id (0: none held the address) */
	uint32_t line;                  /* 0: unknown */
	uint32_t fn_off;                /* the address's offset in its function; UINT32_MAX:
	                                   unknown */
	const char *func;               /* NULL: unknown */
	const char *file;               /* source file, NULL: unknown */
	const char *object_path;        /* NULL if no object */
	uint64_t object_off;            /* frame - object's load bias */
	int embedded;                   /* the names come from a SYMBOL record */
};
/* Resolve frame (SYMBOL records first, then the files): 1 if any name was found, else 0
   (info->object/object_path still say where it lies).  The strings live as long as the table */
int trace_stacks_resolve(struct trace_stacks *, uint64_t frame, struct trace_frame_info *info);
/* Every distinct frame of every stack, once each, by calling fn (stops on fn's nonzero) */
int trace_stacks_each_frame(const struct trace_stacks *, int (*fn)(void *arg, uint64_t frame),
			    void *arg);
/* Stacks and objects held */
uint32_t trace_stacks_count(const struct trace_stacks *);
#endif
