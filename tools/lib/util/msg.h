/* msg.h - a tool's messages: its name, errors and warnings, --version, exit codes, and how
 * messages name the inputs. */
#ifndef MSG_H
#define MSG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifndef MTRACE_PKG_VERSION
#define MTRACE_PKG_VERSION "0.1.0"
#endif

/* Exit codes every tool uses */
#define EXIT_OK      0
#define EXIT_BADFILE 1   /* input missing, unreadable, corrupt or truncated */
#define EXIT_USAGE   2   /* bad command line */
#define EXIT_SYSTEM  3   /* the system failed us: out of memory, cannot write output */

extern const char *tool_name;
/* Set tool_name, and argv[0] to it: getopt names the program by argv[0] ("./bin/trace_run:
   invalid option"), which must be the name every other message starts with. */
void tool_set_name(const char *name, char **argv);

/* "NAME: message\n" on stderr, then exit(code). */
void tool_die(int code, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
void tool_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tool_version(void) __attribute__((noreturn));
/* Print a --help text on standard output and exit 0 (3, saying why, if it cannot be written) */
void tool_help(const char *text) __attribute__((noreturn));

/* A failure library code reports to the tool's main, which decides to exit: the exit status
   it calls for and what to say (without the tool's name). */
struct tool_err {
	int status;
	char msg[4600];               /* a path and what went wrong with it */
};
/* Fill e; returns -1, for `return tool_fail(e, ...)`. */
int tool_fail(struct tool_err *e, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Exit with e's status, saying its message ("" when a child process has said why itself). */
void tool_die_err(const struct tool_err *e) __attribute__((noreturn));

/* e = "NAME: offset N: what", EXIT_BADFILE: the shape of every reader's errors; returns -1 so
   that readers can `return offset_error(...)`. */
int offset_error(struct tool_err *e, const char *name, uint64_t off, const char *fmt, va_list ap);

/* From now on messages name path (a copy of an input: input.h), as: what the user gave ("-", a
   path; its storage must last) */
void tool_display_as(const char *path, const char *as);
/* How messages name path: "<stdin>" for standard input, what the user gave for a copy of an
   input, else path itself. */
const char *tool_display_name(const char *path);
#endif
