/* msg.c - a tool's messages, its --version, and the check that its standard output arrived
 * (msg.h). */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "msg.h"
#include "textout.h"

const char *tool_name = "mtrace";

static int dying;   /* tool_die is exiting: it has said what went wrong */

/* Whatever a tool printed on standard output (a summary, a name, --help) must have arrived:
   exit 3 if not (a full disk, a closed descriptor), never 0. */
static void check_stdout(void)
{
	if (dying)
		return;
	int flushed = fflush(stdout) == 0, e = errno;
	if (!flushed || ferror(stdout)) {
		fprintf(stderr, "%s: cannot write output%s%s\n", tool_name, flushed ? "" : ": ",
			flushed ? "" : strerror(e));
		_exit(EXIT_SYSTEM);
	}
}

/* A file size limit (ulimit -f) must end a tool as a full disk does, with a message naming the
   file and its temporary files removed, not kill it by SIGXFSZ halfway through a write. */
__attribute__((constructor)) static void tool_setup(void)
{
	signal(SIGXFSZ, SIG_IGN);
	atexit(check_stdout);
}

/* ---------------------------------------------------------------------------------------------
   Errors and warnings: "NAME: message" on stderr, after what standard output holds so far
   ------------------------------------------------------------------------------------------- */

/* On a terminal a message is broken at spaces to its width: the terminal would break words */
static void vwarn(const char *fmt, va_list ap)
{
	char text[16384];
	va_list again;
	va_copy(again, ap);
	int n = snprintf(text, sizeof text, "%s: ", tool_name);
	int m = vsnprintf(text + n, sizeof text - (size_t)n, fmt, ap);
	fflush(stdout);
	if (m >= 0 && (size_t)(n + m) < sizeof text)
		print_wrapped(stderr, text, tool_term_width(), 2);
	else {   /* (too long to hold: as it is) */
		fprintf(stderr, "%s: ", tool_name);
		vfprintf(stderr, fmt, again);
		fputc('\n', stderr);
	}
	va_end(again);
}

void tool_set_name(const char *name, char **argv)
{
	tool_name = name;
	if (argv[0])
		argv[0] = (char *)name;
}

void tool_die(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	dying = 1;
	exit(code);
}

void tool_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
}

int tool_fail(struct tool_err *e, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	e->status = status;
	return -1;
}

void tool_die_err(const struct tool_err *e)
{
	if (!e->msg[0])
		exit(e->status);
	tool_die(e->status, "%s", e->msg);
}

void tool_help(const char *text)
{
	/* (a help longer than stdio's buffer is written before exit: its error said here) */
	if (fputs(text, stdout) == EOF || fflush(stdout) != 0) {
		int e = errno;
		dying = 1;
		fprintf(stderr, "%s: cannot write output: %s\n", tool_name, strerror(e));
		_exit(EXIT_SYSTEM);
	}
	exit(EXIT_OK);
}

void tool_version(void)
{
	printf("%s (mtrace) %s\n", tool_name, MTRACE_PKG_VERSION);
	exit(EXIT_OK);
}

int offset_error(struct tool_err *e, const char *name, uint64_t off, const char *fmt, va_list ap)
{
	char what[400];
	vsnprintf(what, sizeof what, fmt, ap);
	return tool_fail(e, EXIT_BADFILE, "%s: offset %llu: %s", name, (unsigned long long)off,
			 what);
}

/* ---------------------------------------------------------------------------------------------
   Input names: a copy of an input is named as the user named the input
   ------------------------------------------------------------------------------------------- */

#define MAX_SHOWN 4
static struct { char path[32]; const char *as; } shown_as[MAX_SHOWN];   /* copies of inputs */

void tool_display_as(const char *path, const char *as)
{
	for (int i = 0; i < MAX_SHOWN; i++)
		if (!shown_as[i].as) {
			snprintf(shown_as[i].path, sizeof shown_as[i].path, "%s", path);
			shown_as[i].as = as;
			return;
		}
}

const char *tool_display_name(const char *path)
{
	for (int i = 0; i < MAX_SHOWN && shown_as[i].as; i++)
		if (!strcmp(path, shown_as[i].path)) {
			path = shown_as[i].as;
			break;
		}
	return strcmp(path, "-") ? path : "<stdin>";
}
