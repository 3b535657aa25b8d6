/* output.h - writing a tool's output whole or not at all: under a temporary name beside it,
 * renamed into place when complete; standard output ("-"), character devices and pipes
 * written in place; temporary files removed however the tool ends. */
#ifndef OUTPUT_H
#define OUTPUT_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "msg.h"

/* ---------------------------------------------------------------------------------------------
   One output
   ------------------------------------------------------------------------------------------- */

#define OUTPUT_TMP_CAP 4300   /* a temporary name: a path of PATH_MAX and its suffix */
enum {
	OUTPUT_BINARY  = 1,   /* refuse a terminal */
	OUTPUT_PRIVATE = 2,   /* keep mkstemp's 0600: a trace holds addresses and a command line */
	OUTPUT_SYNC    = 4,   /* on disk before it is renamed into place: a trace mailed on */
};
struct output {
	const char *path;            /* where it goes (its storage must last) */
	char tmp[OUTPUT_TMP_CAP];    /* the temporary name, removed if the tool ends first; "" when
	                                written in place */
	int fd;                      /* -1 once closed */
	FILE *f;                     /* output_stdio's, or NULL */
	int flags;
	struct tool_err err;         /* after a failure: what, and the exit status it calls for */
};

/* Open path (after output_check) to be written: in place if tool_output_in_place says
   so (standard output is descriptor 1), else a new temporary file beside it, of mode 0666
   less the umask unless OUTPUT_PRIVATE.  0, or -1 with o->err: EXIT_USAGE for binary
   output to a terminal, else EXIT_SYSTEM.  o must not move until it is finished. */
int output_open(struct output *o, const char *path, int flags);
/* o's descriptor as a stdio stream, which output_close flushes and closes: NULL on failure,
   with o->err. */
FILE *output_stdio(struct output *o);
/* Flush, (OUTPUT_SYNC) fsync and close it; write_errno, if not 0, is an earlier failed
   write.  0, or -1 with o->err ("PATH: cannot write: ..."): then output_abort. */
int output_close(struct output *o, int write_errno);
/* output_close if it is open, then the temporary file renamed into place.  0, or -1 with
   o->err, the temporary file removed. */
int output_commit(struct output *o);
/* Give up: closed, the temporary file removed.  Harmless after output_commit. */
void output_abort(struct output *o);
/* A scratch file for o's writer, unlinked at once so that it never outlives us: beside the
   output (PATH.SUFFIX.XXXXXX), or in $TMPDIR (else /tmp) when o is written in place.  Its
   descriptor, or -1 with o->err. */
int output_scratch(struct output *o, const char *suffix);
/* How messages name path: "standard output" for "-". */
const char *output_name(const char *path);

/* ---------------------------------------------------------------------------------------------
   Checks, temporary files and writes
   ------------------------------------------------------------------------------------------- */

/* Before writing OUT (not "-"): refuses it (status 2) if it is the same file as one of the n
   inputs (the output would destroy it), or, unless OUTPUT_TRACE_OK, an mtrace trace (trace2wl
   TRACE with the output name forgotten would replace the trace by its own workload), a
   directory, a block device or a socket; and (status 3) when its directory cannot take the
   temporary file it is written to (tried: made and removed), so that a tool fails before any
   work.  Returns the path to write, NULL with e if refused: OUT, or the file OUT links to
   (renaming onto a symbolic link would replace the link). */
enum {
	OUTPUT_TRACE_OK  = 1,   /* an existing trace may be replaced (trace_import's output) */
	OUTPUT_NO_STDOUT = 2,   /* the option takes no "-": never suggest standard output */
};
const char *output_check(const char *out, char *const *inputs, int n, int flags,
			 struct tool_err *e);
/* Is OUT written in place rather than under a temporary name renamed at the end: "-" (standard
   output), or an existing character device or pipe (/dev/null, /dev/stdout, a FIFO)? */
int tool_output_in_place(const char *out);
/* path (its storage must last) is a temporary file of ours: removed at exit and when SIGINT,
   SIGTERM, SIGHUP or SIGPIPE ends the tool, until tool_temp_done(path) (renamed into place,
   or gone). */
void tool_temp_add(const char *path);
void tool_temp_done(const char *path);
/* Remove them now (async-signal-safe: for a handler of a fatal signal). */
void tool_remove_temps(void);
/* mkstemp(tmpl) for the temporary file an output (out) is written to before it is renamed into
   place, beside it: its descriptor, or -1 with err (EXIT_SYSTEM), whose message names out,
   says it is that file, in out's directory, that cannot be made, and what to do (write
   elsewhere, or to standard output).  A writable output in a directory that is not is the
   case it is for. */
int tool_mkstemp_beside(const char *out, char *tmpl, struct tool_err *err);
/* A new file $TMPDIR/<tool>.XXXXXX (else in /tmp), its name into path[cap]; its descriptor,
   or -1 with e. */
int tool_mkstemp(char *path, size_t cap, struct tool_err *e);
/* Write all n bytes (EINTR retried; a write of 0 is ENOSPC): 0, or -1 with errno. */
int tool_write_all(int fd, const void *p, size_t n);
/* The same at offset at, with pwrite. */
int tool_pwrite_all(int fd, const void *p, size_t n, uint64_t at);
/* Copy the rest of fd in to fd out (short writes continued).  0, or -1 with errno. */
int tool_copy_fd(int in, int out);
/* Do paths a and b name one existing file (by any name)?  "-" (standard input) names none. */
int tool_same_file(const char *a, const char *b);

/* ---------------------------------------------------------------------------------------------
   For a tool's main: the same, exiting on failure
   ------------------------------------------------------------------------------------------- */

/* output_check */
const char *tool_check_output(const char *out, char *const *inputs, int n, int flags);
/* output_open for a tool's main that exits on failure, the output's temporary name kept in
   tmp (TOOL_TMP_CAP bytes; "" when written in place): its descriptor. */
#define TOOL_TMP_CAP OUTPUT_TMP_CAP
int  tool_output_open(const char *path, char *tmp);
/* output_close and output_commit of tool_output_open's output; exits 3 on any failure (the
   temporary file is then removed). */
void tool_output_finish(const char *path, int fd, char *tmp, int write_errno);
#endif
