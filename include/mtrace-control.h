/* mtrace-control.h - switching a dormant tracer on and off from outside the traced process.
 *
 * libmtracectl.so exports one object, mtrace_control, in its data.  mtracectl finds it in a
 * running process (the library's load address in /proc/PID/maps, the symbol's value in the
 * library's dynamic symbol table) and writes a request into it with process_vm_writev, which
 * the kernel allows only to whoever may ptrace the process; the process's next allocator call
 * (any thread's) carries the request out and writes what it did beside it, which mtracectl
 * reads back with process_vm_readv.  No signal, no thread, no descriptor: a dormant process
 * pays one more compare a call.
 *
 * Protocol: mtracectl writes base, cmd and check, then request (a new number) last.  The
 * process compares request with the last it saw; when they differ it checks check, acts, and
 * sets done = request, with state, error and file.
 */
#ifndef MTRACE_CONTROL_H
#define MTRACE_CONTROL_H

#include <stdint.h>

#define MTRACE_CONTROL_SYMBOL   "mtrace_control"
#define MTRACE_CONTROL_MAGIC    "MTRCTL\0\1"    /* 8 bytes; the last is the protocol's version */
#define MTRACE_CONTROL_PATH_MAX 4096u

enum mtrace_control_cmd {
	MTRACE_CMD_NONE  = 0,
	MTRACE_CMD_START = 1,           /* record into a new trace file (base: where; "": as set) */
	MTRACE_CMD_STOP  = 2,           /* finish the trace file and go dormant again */
	MTRACE_CMD_STOP_BACKLOG = 3,    /* stop recording, MTRACE_STOP_BACKLOG in the header (the
	                                   sender's backlog is full); the file stays open */
};

enum mtrace_control_state {
	MTRACE_STATE_DORMANT   = 0,     /* loaded, recording nothing, no file open */
	MTRACE_STATE_RECORDING = 1,
};

struct mtrace_control {
	char     magic[8];              /* MTRACE_CONTROL_MAGIC: what mtracectl checks it found */
	uint32_t size;                  /* sizeof (struct mtrace_control) */
	/* written by mtracectl */
	uint32_t request;               /* a new number asks for cmd; written last */
	uint32_t cmd;                   /* enum mtrace_control_cmd */
	uint32_t check;                 /* mtrace_control_check(request, cmd, base) */
	char     base[MTRACE_CONTROL_PATH_MAX];   /* START: the trace files' base, absolute */
	/* written by the traced process */
	uint32_t done;                  /* the last request carried out (or refused) */
	uint32_t state;                 /* enum mtrace_control_state */
	int32_t  error;                 /* 0, or the errno that refused the last request */
	uint32_t windows;               /* traces started from outside so far */
	char     file[MTRACE_CONTROL_PATH_MAX + 128];   /* the trace file being written, or the
	                                                   last one finished */
};

/* What a request's check must be: FNV-1a over request, cmd and base up to its NUL. */
static inline uint32_t mtrace_control_check(uint32_t request, uint32_t cmd, const char *base)
{
	uint32_t h = 2166136261u;
	for (int i = 0; i < 4; i++)
		h = (h ^ ((request >> (8 * i)) & 0xff)) * 16777619u;
	for (int i = 0; i < 4; i++)
		h = (h ^ ((cmd >> (8 * i)) & 0xff)) * 16777619u;
	for (unsigned i = 0; i < MTRACE_CONTROL_PATH_MAX && base[i]; i++)
		h = (h ^ (unsigned char)base[i]) * 16777619u;
	return h;
}

#endif
