/* mtrace_log.h - parsing glibc mtrace() logs (the MALLOC_TRACE text format) into records.
 *
 * Each line is an optional "@ CALLER" then one of:  "+ PTR SIZE" (malloc, calloc, memalign;
 * PTR "(nil)" when it failed), "- PTR" (free), "< OLD" followed by "> NEW SIZE" (realloc that
 * moved or kept a block), "! OLD SIZE" (a realloc that failed), "= Start" / "= End".
 * glibc logs realloc(NULL, n) as "+" and realloc(p, 0) as "-". */
#ifndef MTRACE_LOG_H
#define MTRACE_LOG_H
#include <stddef.h>
#include "msg.h"
#include "mtrace-trace.h"

struct mtrace_log {
	unsigned long line;           /* of the next line */
	int pending;                  /* a "<" waits for its ">" */
	uint64_t old;                 /* its pointer */
	uint64_t seq;                 /* records made so far (their ts) */
	const char *caller;           /* the line's "@ CALLER" (inside the line; its length */
	size_t caller_len;            /* 0: none), while put() runs */
	struct tool_err err;
};

/* Feed one line (without its newline).  Calls put() for each record it makes (put may fill err
   itself when it fails); 0, or -1 with err set ("line N: ..."). */
int mtrace_log_line(struct mtrace_log *l, const char *text, size_t len,
		    int (*put)(void *ctx, const struct mtrace_record *), void *ctx);
/* A caller as glibc writes it: "[0xADDR]", "OBJECT:[0xADDR]" or "OBJECT:(FUNC+0xOFF)[0xADDR]"
   (FUNC-0xOFF before the symbol; the offset in hexadecimal with or without "0x").  0 and its parts (obj, func: pointers into text and lengths,
   0 when absent; off UINT32_MAX when unknown), or -1 if it is none of these. */
struct mtrace_caller {
	const char *obj, *func;
	size_t obj_len, func_len;
	uint64_t addr;
	uint32_t off;
};
int mtrace_log_caller(const char *text, size_t len, struct mtrace_caller *c);
/* At the end of the log: -1 if a "<" never got its ">". */
int mtrace_log_end(struct mtrace_log *l);
#endif
