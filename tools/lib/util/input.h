/* input.h - how every tool takes its input: a file by name, standard input ("-"), a pipe (bash's
 * <(...)) or a device, plain or compressed with gzip, xz or zstd (undone by the installed
 * program, whose output is read through a pipe).
 *
 * Nothing is done with an input before its first bytes - decompressed, if it is compressed -
 * say it is what the tool reads: /dev/zero, or a gzip of a gigabyte of zeros, is refused after
 * a few KiB.  A tool that reads its input more than once, or maps it, gets a plain copy of a
 * stream (and, if it asks, of a compressed file) in a temporary file unlinked as soon as it is
 * open, so that no end of the tool, SIGKILL included, leaves it behind; the copy stops short of
 * filling its filesystem.
 */
#ifndef INPUT_H
#define INPUT_H
#include <stddef.h>
#include <sys/types.h>
#include "msg.h"

/* Can path be read only once: "-" (standard input), a pipe (bash's <(...)), a device? */
int tool_input_is_stream(const char *path);

/* "gzip", "xz" or "zstd" if the n bytes at b begin data so compressed (their magic), or NULL:
   also the name of the program that decompresses it. */
const char *input_compression(const unsigned char *b, size_t n);

/* Decompress with prog: a pipe to read the plain bytes from (close-on-exec), or -1 with what
   went wrong in err (cap bytes).  src is the input, of which the have bytes at head are already
   read: prog reads it from its start, from src seeked back when it can be, else from a feeder
   child that writes head and copies the rest.  *child, *feeder: their pids (0: none), for
   input_reap. */
int input_decompress(const char *prog, int src, const unsigned char *head, size_t have,
		     pid_t *child, pid_t *feeder, char *err, size_t cap);
/* Reap the decompressor and its feeder (stopped first if stop: the reader gave up early).
   1 if the decompressor failed (its input corrupt or truncated), else 0. */
int input_reap(pid_t *child, pid_t *feeder, int stop);

/* What an input's first n bytes (INPUT_HEAD, fewer only at its end) must begin as: NULL when
   they do, else what the input is instead ("not an mtrace trace (bad magic)"). */
#define INPUT_HEAD 4096
typedef const char *input_check_fn(const unsigned char *b, size_t n);

/* A name the tool can open, read and map as often as it likes, for the plain bytes of path:
   path itself when it is a regular file (plain - its first bytes checked when decompress is 1 -
   or compressed and decompress is 0: the trace reader decompresses and checks as it reads),
   else a copy, once its first plain bytes pass check:
   "/proc/self/fd/N", a descriptor the tool keeps (and the programs it runs inherit), which
   tool_display_name shows as path.  NULL with e, naming path: status 1 if it cannot be read,
   does not pass check or its compressed data is corrupt; 3 if its decompressor is missing or
   the copy cannot be made (in $TMPDIR, else /tmp), or would leave its filesystem less than a
   tenth free.  progress: tool_progress's on, for the copy. */
const char *input_open_plain(const char *path, input_check_fn *check, int decompress, int progress,
			     struct tool_err *e);
/* The same for a tool's main: exits on failure. */
const char *input_reopenable(const char *path, input_check_fn *check, int decompress, int progress);

/* Copy all of fd src (a pipe: a translation's output) into a new unlinked temporary file, as
   input_open_plain does; shown: what messages call it.  Its "/proc/self/fd/N", or NULL with
   e. */
const char *input_copy(int src, const char *shown, int progress, struct tool_err *e);
/* Done with a copy (input_reopenable's or input_copy's): its descriptor closed, and so the file
   gone.  Nothing for a name that is not a copy's. */
void input_release(const char *name);
#endif
