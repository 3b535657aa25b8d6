/* hint.h - the next step, for the likely slip: what a file a tool refused is instead and which
 * command reads it, the workload a trace is made into, the known name nearest a mistyped one.
 * Commands are given with the user's own file names, quoted for a shell where they need it.
 */
#ifndef HINT_H
#define HINT_H
#include <stddef.h>

/* When the n bytes at b, the first of the file name (as messages show it), are text - no trace
   or workload, nor the start of one - what it is instead of wanted ("a trace"), with the tool
   that reads it: "a glibc mtrace() log, not a trace: trace_import makes a trace of it
   (trace_import app.log app.mtrace)", or "text, not a trace".  Into buf (cap bytes); NULL
   when the bytes are not text (the reader's own message is then the precise one). */
const char *hint_text(const unsigned char *b, size_t n, const char *name, const char *wanted,
		      char *buf, size_t cap);

/* s as one word for a shell: as it is when it needs no quotes, else in single quotes.  Into
   buf (cap bytes); returns buf. */
char *hint_shell_word(char *buf, size_t cap, const char *s);

/* The workload to suggest for a trace: the program's file name (exe: the trace header's path,
   "" when left out) with ".wl", else the trace's own file name (compression suffix dropped)
   with ".wl"; in the current directory.  Into buf (cap bytes); returns buf. */
char *hint_workload_name(char *buf, size_t cap, const char *trace, const char *exe);

/* Of the n names, the one a typo of word most likely meant (at most a third of its letters
   wrong, letters swapped counting one, case ignored), or NULL. */
const char *hint_closest(const char *word, const char *const *names, int n);
#endif
