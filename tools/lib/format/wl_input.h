/* wl_input.h - a workload as the tools take it (a file of ours, standard input or a pipe,
 * gzip/xz/zstd-compressed, or an original dj/malloc .wl) made a plain file in our encoding. */
#ifndef WL_INPUT_H
#define WL_INPUT_H
#include <stddef.h>
#include "msg.h"

/* The plain workload of ours for WORKLOAD: WORKLOAD itself, or a copy made plain (input.h:
   "/proc/self/fd/N", a descriptor kept open, which messages show as WORKLOAD).  A dj/malloc
   workload is translated in a child process, so that none of the translation's memory comes
   from the caller's allocator (trace_run's, under test).  NULL with e, naming WORKLOAD, on any
   failure.  progress: tool_progress's on. */
const char *wl_input_open(const char *workload, int progress, struct tool_err *e);
/* The same for a tool's main: exits on failure. */
const char *wl_input_plain(const char *workload, int progress);

/* msg (cap bytes), which begins with path, made to begin with shown instead: what the user
   gave (standard input, the compressed file) rather than a temporary copy. */
void wl_input_name(char *msg, size_t cap, const char *path, const char *shown);
/* For a tool's main, and translate_dj's child: exit 1 with msg so renamed. */
void wl_input_die_named(const char *msg, const char *path, const char *shown)
	__attribute__((noreturn));
#endif
