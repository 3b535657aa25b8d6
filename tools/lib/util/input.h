/* input.h - how every tool takes its input: a file by name, standard input ("-"), a pipe (bash's
 * <(...)) or a device, plain or compressed with gzip, xz or zstd (undone by the installed
 * program, whose output is read through a pipe).
 *
 * Nothing is done with an input before its first bytes - decompressed, if it is compressed -
 * say it is what the tool reads: /dev/zero, or a gzip of a gigabyte of zeros, is refused after
 * a few KiB.  A tool that reads its input more than once, or maps it, gets a plain copy of a
 * stream (and, if it asks, of a compressed file) in a temporary file unlinked as soon as it is
 * open, so that no end of the tool, SIGKILL included, leaves it behind.  The copy stops at the
 * first bytes that cannot be what the tool reads (its kind's copy function says where), short
 * of filling its filesystem, and where a decompressor's output outgrows its input more than
 * any file of mtrace's does; runs of zeros in it are holes, which take no room.
 */
#ifndef INPUT_H
#define INPUT_H
#include <stddef.h>
#include <sys/types.h>
#include "msg.h"
#include "progress.h"

/* Can path be read only once: "-" (standard input), a pipe (bash's <(...)), a device? */
int tool_input_is_stream(const char *path);

/* "gzip", "xz" or "zstd" if the n bytes at b begin data so compressed (their magic), or NULL:
   also the name of the program that decompresses it. */
const char *input_compression(const unsigned char *b, size_t n);

/* A decompressor at work: its pid, and that of the feeder that gives it a stream (0: none) */
struct input_dec {
	pid_t child, feeder;
	uint64_t size;                  /* the compressed file's size, when it reads the file */
	volatile uint64_t *fed;         /* the bytes the feeder gave it so far (a page shared with
	                                   the feeder), or NULL */
};

/* Decompress with prog: a pipe to read the plain bytes from (close-on-exec), or -1 with what
   went wrong in err (EXIT_SYSTEM).  src is the input, of which the have bytes at head are already
   read: prog reads it from its start, from src seeked back when it can be, else from a feeder
   child that writes head and copies the rest.  d: for input_reap and input_overgrown. */
int input_decompress(const char *prog, int src, const unsigned char *head, size_t have,
		     struct input_dec *d, struct tool_err *err);
/* Reap the decompressor and its feeder (stopped first if stop: the reader gave up early).
   1 if the decompressor failed (its input corrupt or truncated), else 0. */
int input_reap(struct input_dec *d, int stop);

/* No file of mtrace's decompresses to more than INPUT_RATIO_MAX times its compressed size,
   its zeros aside, once past its first INPUT_RATIO_FREE bytes (the most seen: 46 times, a trace
   of a loop of malloc and free with their durations under xz -9); a compression bomb (zeros, or
   one record again and again) reaches a thousand with gzip, more with xz or zstd. */
#define INPUT_RATIO_MAX  256u
#define INPUT_RATIO_FREE ((uint64_t)16 << 20)
/* Has d's output outgrown its input: plain bytes of it, zeros aside?  0, or 1 with e saying
   so ("it decompresses to more than ...", EXIT_BADFILE) */
int input_overgrown(const struct input_dec *d, uint64_t plain, struct tool_err *e);

/* What an input's first n bytes (INPUT_HEAD, fewer only at its end) must begin as: NULL when
   they do, else what the input is instead ("not an mtrace trace (bad magic)"). */
#define INPUT_HEAD 4096
typedef const char *input_check_fn(const unsigned char *b, size_t n);

/* A copy being made: a new unlinked file in $TMPDIR (else /tmp), written with input_copy_write */
struct input_copy {
	int fd;
	const char *shown;              /* the input, as messages name it */
	char where[4200];               /* the copy's directory, for messages */
	uint64_t room;                  /* bytes it may store (a tenth of its filesystem free) */
	uint64_t size, stored;          /* bytes copied; of those, stored (zeros are holes) */
	const struct input_dec *dec;    /* the decompressor whose output it is, or NULL */
	struct tool_progress progress;
};
/* Append the n bytes at b to the copy.  0, or -1 with e: status 3 when they cannot be written
   or would leave the filesystem less than a tenth free, 1 when they make a decompressor's
   output outgrow its input. */
int input_copy_write(struct input_copy *c, const unsigned char *b, size_t n, struct tool_err *e);

/* How a stream that passed its check is copied: its first n bytes, at head, are read, the rest
   is read from src (a pipe, or standard input); each part goes to c with input_copy_write once
   it is known to be of the tool's kind.  0 when all of it is copied, -1 with e (naming the
   input and the offset, status 1) at what cannot be. */
typedef int input_copy_fn(struct input_copy *c, const unsigned char *head, size_t n, int src,
			  struct tool_err *e);
/* All of it, as it comes */
input_copy_fn input_copy_all;
/* The same for an input whose header says it has size bytes: more is an error */
int input_copy_upto(struct input_copy *c, const unsigned char *head, size_t n, int src,
		    uint64_t size, struct tool_err *e);
/* The same for text, up to its first NUL byte, which is an error */
input_copy_fn input_copy_text;

/* A name the tool can open, read and map as often as it likes, for the plain bytes of path:
   path itself when it is a regular file (plain - its first bytes checked when decompress is 1 -
   or compressed and decompress is 0: the trace reader decompresses and checks as it reads),
   else a copy made by copy (NULL: input_copy_all), once its first plain bytes pass check:
   "/proc/self/fd/N", a descriptor the tool keeps (and the programs it runs inherit), which
   tool_display_name shows as path.  NULL with e, naming path: status 1 if it cannot be read,
   does not pass check or copy or its compressed data is corrupt; 3 if its decompressor is
   missing or the copy cannot be made (in $TMPDIR, else /tmp), or would leave its filesystem
   less than a tenth free.  progress: tool_progress's on, for the copy. */
const char *input_open_plain(const char *path, input_check_fn *check, input_copy_fn *copy,
			     int decompress, int progress, struct tool_err *e);
/* The same for a tool's main: exits on failure. */
const char *input_reopenable(const char *path, input_check_fn *check, input_copy_fn *copy,
			     int decompress, int progress);

/* Copy all of fd src (a pipe: a translation's output) into a new unlinked temporary file, as
   input_open_plain does; shown: what messages call it.  Its "/proc/self/fd/N", or NULL with
   e. */
const char *input_copy(int src, const char *shown, int progress, struct tool_err *e);
/* Done with a copy (input_reopenable's or input_copy's): its descriptor closed, and so the file
   gone.  Nothing for a name that is not a copy's. */
void input_release(const char *name);
#endif
