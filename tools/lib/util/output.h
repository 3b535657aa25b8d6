/* output.h - writing a tool's output whole or not at all: under a temporary name beside it,
 * renamed into place when complete; standard output ("-"), character devices and pipes
 * written in place; temporary files removed when the tool ends before. */
#ifndef OUTPUT_H
#define OUTPUT_H
#include <stddef.h>
#include <stdint.h>

/* Before writing OUT (not "-"): exit 2 if OUT is the same file as one of the n inputs (the
   output would destroy it), or, unless trace_ok, if OUT is an mtrace trace (trace2wl TRACE with
   the output name forgotten would replace the trace by its own workload).  Also exits 2 if OUT
   is a directory, a block device or a socket.  Returns the path to write: OUT, or the file OUT links to (renaming onto a symbolic link
   would replace the link). */
const char *tool_check_output(const char *out, char *const *inputs, int n, int trace_ok);
/* Is OUT written in place rather than under a temporary name renamed at the end: "-" (standard
   output), or an existing character device or pipe (/dev/null, /dev/stdout, a FIFO)? */
int tool_output_in_place(const char *out);
/* Its descriptor (1 for "-"); exits 3 if it cannot be opened, 2 if binary output would go to
   a terminal. */
int tool_open_in_place(const char *out, int binary);
/* path (its storage must last) is a temporary file of ours: removed at exit and when SIGINT,
   SIGTERM, SIGHUP or SIGPIPE ends the tool, until tool_temp_done(path) (renamed into place, or gone). */
void tool_temp_add(const char *path);
void tool_temp_done(const char *path);
/* Remove them now (async-signal-safe: for a handler of a fatal signal). */
void tool_remove_temps(void);
/* mkstemp(tmpl) for the temporary file an output (out) is written to before it is renamed into
   place, beside it: its descriptor, or -1 with a message in err (cap bytes) that names out,
   says it is that file, in out's directory, that cannot be made, and what to do (write
   elsewhere, or to standard output).  A writable output in a directory that is not is the
   case it is for. */
int tool_mkstemp_beside(const char *out, char *tmpl, char *err, size_t cap);
/* A new file $TMPDIR/<tool>.XXXXXX (else in /tmp), its name into path[cap]; its descriptor.
   Exits 3 on failure. */
int tool_mkstemp(char *path, size_t cap);
/* Give a new output file (made 0600 by mkstemp) the mode open() would: 0666 less the umask.
   Workloads, plots and logs hold no addresses; traces keep 0600, as capture makes them. */
void tool_output_mode(int fd);
/* Write all n bytes (EINTR retried; a write of 0 is ENOSPC): 0, or -1 with errno. */
int tool_write_all(int fd, const void *p, size_t n);
/* The same at offset at, with pwrite. */
int tool_pwrite_all(int fd, const void *p, size_t n, uint64_t at);
/* Copy the rest of fd in to fd out (short writes continued).  0, or -1 with errno. */
int tool_copy_fd(int in, int out);

/* An output file written whole or not at all: under a temporary name beside path (kept in
   tmp, 4300 bytes; removed if the tool exits first), made path by tool_output_finish.  A
   character device or FIFO (tool_output_in_place) is written as it goes, tmp left empty.
   Exits 3 when it cannot be created. */
#define TOOL_TMP_CAP 4300
int  tool_output_open(const char *path, char *tmp);
/* Close fd and rename it into place; write_errno, if not 0, is an earlier failed write.
   Exits 3 on any failure (the temporary file is then removed). */
void tool_output_finish(const char *path, int fd, char *tmp, int write_errno);

/* Do paths a and b name one existing file (by any name)?  "-" (standard input) names none. */
int tool_same_file(const char *a, const char *b);
#endif
