/* wl_input.c - see wl_input.h */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "dj_wl.h"
#include "hint.h"
#include "input.h"
#include "msg.h"
#include "mtrace-workload.h"
#include "progress.h"
#include "trace_reader.h"
#include "wl_input.h"

void wl_input_name(char *msg, size_t cap, const char *path, const char *shown)
{
	size_t n = strlen(path);
	if (strcmp(path, shown) && !strncmp(msg, path, n)) {
		char rest[1024];
		snprintf(rest, sizeof rest, "%s", msg + n);
		snprintf(msg, cap, "%s%s", tool_display_name(shown), rest);
	}
}

void wl_input_die_named(const char *msg, const char *path, const char *shown)
{
	char m[1200];
	snprintf(m, sizeof m, "%s", msg);
	wl_input_name(m, sizeof m, path, shown);
	tool_die(EXIT_BADFILE, "%s", m);
}

static void translate_progress(uint64_t done, uint64_t total, void *p)
{
	((struct tool_progress *)p)->total = total;
	tool_progress(done, p);
}

static const char *checking;   /* the workload wl_head_check looks at, as the user gave it */

/* "a trace, not a workload" and the commands that make one of it and replay that, with the
   user's file names; the n bytes at b are the trace's first (its header names the program) */
static const char *trace_hint(const unsigned char *b, size_t n)
{
	static char msg[1600];
	if (!checking || !strcmp(checking, "-"))
		return "a trace, not a workload: convert it on the way "
		       "(... | trace2wl - | trace_run -)";
	char exe[512] = "", wl[300], qwl[700], qtrace[1000];
	struct tool_err bad;
	struct mtrace_file_header h;
	uint64_t at;
	if (n >= sizeof h) {
		memcpy(&h, b, sizeof h);
		if (trace_header_check(&h, &at, &bad) == 0 &&
		    (uint64_t)h.exe_offset + h.exe_len <= n)
			snprintf(exe, sizeof exe, "%.*s", (int)h.exe_len,
				 (const char *)b + h.exe_offset);
	}
	hint_shell_word(qwl, sizeof qwl, hint_workload_name(wl, sizeof wl, checking, exe));
	snprintf(msg, sizeof msg, "a trace, not a workload: make one of it, then replay that "
		 "(trace2wl %s %s && trace_run %s)", qwl,
		 hint_shell_word(qtrace, sizeof qtrace, checking), qwl);
	return msg;
}

/* What a workload's first bytes are: ours (or its start: a file cut short, which the reader
   names), or a dj/malloc one (input_check_fn) */
static const char *wl_head_check(const unsigned char *b, size_t n)
{
	static char text[800];
	if (!memcmp(b, MTRACE_WL_MAGIC, n < MTRACE_WL_MAGIC_LEN ? n : MTRACE_WL_MAGIC_LEN) ||
	    dj_wl_head(b, n))
		return NULL;
	if (!trace_head_check(b, n))
		return trace_hint(b, n);
	const char *t = hint_text(b, n, checking ? tool_display_name(checking) : "-", "a workload",
				  text, sizeof text);
	return t ? t : "not an mtrace workload (bad magic)";
}

/* Our workload copied up to the size its header gives, which is its size (input_copy_fn); a
   dj/malloc one, or a header cut short (which the reader names), as it comes */
static int wl_copy(struct input_copy *c, const unsigned char *head, size_t n, int src,
		   struct tool_err *e)
{
	struct mtrace_wl_header h;
	if (n < sizeof h || memcmp(head, MTRACE_WL_MAGIC, MTRACE_WL_MAGIC_LEN))
		return input_copy_all(c, head, n, src, e);
	memcpy(&h, head, sizeof h);
	mtrace_wl_header_le(&h);
	return input_copy_upto(c, head, n, src, h.file_size, e);
}

/* The dj/malloc workload plain (the user's workload, or a plain copy of it) translated into
   ours, by a child that writes it into a pipe, copied from there (input_copy); NULL with e */
static const char *translate_dj(const char *plain, const char *workload, int progress,
				struct tool_err *e)
{
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		tool_fail(e, EXIT_SYSTEM, "pipe: %s", strerror(errno));
		return NULL;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		tool_fail(e, EXIT_SYSTEM, "fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return NULL;
	}
	if (pid == 0) {
		close(pfd[0]);
		char what[4300], out[64];
		struct tool_err err;
		struct tool_progress p;
		snprintf(what, sizeof what, "translating %s", tool_display_name(workload));
		tool_progress_count(&p, progress, 0, what, "operations");
		/* a pipe: written in one pass */
		snprintf(out, sizeof out, "/proc/self/fd/%d", pfd[1]);
		int bad = dj_wl_to_ours(plain, out, &err, translate_progress, &p) < 0;
		tool_progress_end(&p);
		if (bad)   /* said here, where the message is; the parent passes the status on */
			wl_input_die_named(err.msg, plain, workload);
		_exit(0);
	}
	close(pfd[1]);
	const char *copy = input_copy(pfd[0], tool_display_name(workload), 0, e);
	close(pfd[0]);
	/* the copy's failure is the news, not the translation's end */
	if (!copy)
		kill(pid, SIGTERM);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!copy)
		return NULL;
	if (WIFSIGNALED(st))
		tool_fail(e, EXIT_SYSTEM, "%s: translating the dj/malloc workload: killed by "
			  "signal %d (%s)",
			  tool_display_name(workload), WTERMSIG(st), strsignal(WTERMSIG(st)));
	else if (WEXITSTATUS(st))
		tool_fail(e, WEXITSTATUS(st), "%s", "");   /* (it said why) */
	else
		return copy;
	input_release(copy);
	return NULL;
}

const char *wl_input_open(const char *workload, int progress, struct tool_err *e)
{
	checking = workload;
	const char *plain = input_open_plain(workload, wl_head_check, wl_copy, 1, progress, e);
	if (plain && access(plain, R_OK) == 0 && dj_wl_sniff(plain)) {
		const char *ours = translate_dj(plain, workload, progress, e);
		input_release(plain);   /* a plain copy of the dj workload: done with */
		return ours;
	}
	return plain;
}

/* ---------------------------------------------------------------------------------------------
   For a tool's main: the same, exiting on failure
   ------------------------------------------------------------------------------------------- */

const char *wl_input_plain(const char *workload, int progress)
{
	struct tool_err e;
	const char *plain = wl_input_open(workload, progress, &e);
	if (!plain)
		tool_die_err(&e);
	return plain;
}
