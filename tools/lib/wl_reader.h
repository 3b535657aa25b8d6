/* wl_reader.h - reading and validating workload files (format: include/mtrace-workload.h).
 * The file is mapped read-only; every stream is decoded with bounds checks, and errors name the
 * byte offset. */
#ifndef WL_READER_H
#define WL_READER_H
#include <stddef.h>
#include <stdint.h>
#include "mtrace-workload.h"

struct wl_reader {
	const char *name;
	const uint8_t *map;
	size_t size;
	struct mtrace_wl_header h;
	struct mtrace_wl_thread *threads;   /* h.nthreads entries, host order */
	char err[600];
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
void wl_close(struct wl_reader *r);
void wl_cursor_init(const struct wl_reader *r, uint32_t thread, struct wl_cursor *c);
/* Next op of a stream: 1, 0 after END, -1 with r->err set.  Checks opcodes, operand encoding,
   slot < nslots and WAIT's thread < nthreads. */
int wl_next(struct wl_reader *r, struct wl_cursor *c, struct wl_op *op);
#endif
