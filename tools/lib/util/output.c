/* output.c - outputs written whole or not at all, and the temporary files that are removed
 * however the tool ends (output.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "msg.h"
#include "mtrace-trace.h"
#include "output.h"

/* ---------------------------------------------------------------------------------------------
   Temporary files: removed at exit and when SIGINT, SIGTERM, SIGHUP or SIGPIPE ends the tool,
   so that an interrupted run leaves nothing behind (finished outputs are renamed into place first)
   ------------------------------------------------------------------------------------------- */

#define MAX_TEMPS 16   /* a tool has a few at once */
static const char *volatile temps[MAX_TEMPS];
static pid_t temps_owner;   /* a forked child that exits must not remove its parent's files */

void tool_remove_temps(void)
{
	if (getpid() != temps_owner)
		return;
	for (int i = 0; i < MAX_TEMPS; i++) {
		const char *p = temps[i];
		if (p)
			unlink(p);   /* async-signal-safe */
	}
}

static void on_ending_signal(int sig)
{
	tool_remove_temps();
	signal(sig, SIG_DFL);
	raise(sig);   /* end as the signal would have: the caller sees it in our status */
}

void tool_temp_add(const char *path)
{
	if (!temps_owner) {
		temps_owner = getpid();
		atexit(tool_remove_temps);
		/* SIGPIPE: `trace_plot - | head` */
		static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
		for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
			struct sigaction old;
			/* an ignored signal (nohup) stays ignored */
			if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
				signal(sigs[i], on_ending_signal);
		}
	}
	for (int i = 0; i < MAX_TEMPS; i++)
		if (!temps[i]) {
			temps[i] = path;
			return;
		}
}

void tool_temp_done(const char *path)
{
	for (int i = 0; i < MAX_TEMPS; i++)
		if (temps[i] == path)
			temps[i] = NULL;
}

int tool_mkstemp_beside(const char *out, char *tmpl, char *err, size_t cap)
{
	int fd = mkstemp(tmpl);
	if (fd >= 0)
		return fd;
	int e = errno;
	const char *slash = strrchr(out, '/');
	int dirlen = slash ? (slash == out ? 1 : (int)(slash - out)) : 1;
	snprintf(err, cap, "%s: cannot create the temporary file it is written to before it is renamed "
		 "into place, in %.*s: %s (write the output to another directory, or to standard output)",
		 out, dirlen, slash ? out : ".", strerror(e));
	errno = e;
	return -1;
}

int tool_output_open(const char *path, char *tmp)
{
	if (tool_output_in_place(path)) {
		tmp[0] = 0;
		return tool_open_in_place(path, 0);
	}
	snprintf(tmp, TOOL_TMP_CAP, "%s.tmp.XXXXXX", path);
	char err[TOOL_TMP_CAP + 300];
	int fd = tool_mkstemp_beside(path, tmp, err, sizeof err);
	if (fd < 0) {
		tmp[0] = 0;
		tool_die(EXIT_SYSTEM, "%s", err);
	}
	tool_temp_add(tmp);
	tool_output_mode(fd);
	return fd;
}

void tool_output_finish(const char *path, int fd, char *tmp, int write_errno)
{
	if (write_errno)
		tool_die(EXIT_SYSTEM, "%s: cannot write: %s", path, strerror(write_errno));
	if (close(fd) < 0)
		tool_die(EXIT_SYSTEM, "%s: cannot write: %s", path, strerror(errno));
	if (!tmp[0])
		return;   /* written in place */
	if (rename(tmp, path) < 0)
		tool_die(EXIT_SYSTEM, "%s: cannot rename the finished file into place: %s", path,
			 strerror(errno));
	tool_temp_done(tmp);
}

int tool_mkstemp(char *path, size_t cap)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp)
		tmp = "/tmp";
	snprintf(path, cap, "%s/%s.XXXXXX", tmp, tool_name);
	int fd = mkstemp(path);
	if (fd < 0) {
		int e = errno;
		path[0] = 0;
		tool_die(EXIT_SYSTEM, "cannot create a temporary file in %s: %s", tmp, strerror(e));
	}
	return fd;
}

void tool_output_mode(int fd)
{
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);   /* failing leaves 0600: safe, and the data is what matters */
}

/* All n bytes with write (at < 0) or with pwrite at offset at. */
static int write_fully(int fd, const void *p, size_t n, int64_t at)
{
	const char *c = p;
	while (n) {
		ssize_t k = at < 0 ? write(fd, c, n) : pwrite(fd, c, n, (off_t)at);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k == 0)
				errno = ENOSPC;
			return -1;
		}
		c += k;
		n -= (size_t)k;
		if (at >= 0)
			at += k;
	}
	return 0;
}

int tool_write_all(int fd, const void *p, size_t n)
{
	return write_fully(fd, p, n, -1);
}

int tool_pwrite_all(int fd, const void *p, size_t n, uint64_t at)
{
	return write_fully(fd, p, n, (int64_t)at);
}

int tool_copy_fd(int in, int out)
{
	static char buf[65536];
	for (;;) {
		ssize_t got = read(in, buf, sizeof buf);
		if (got == 0)
			return 0;
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 || tool_write_all(out, buf, (size_t)got) < 0)
			return -1;
	}
}

int tool_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return strcmp(a, "-") && strcmp(b, "-") && stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int tool_output_in_place(const char *out)
{
	struct stat st;
	return !strcmp(out, "-") || (stat(out, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)));
}

int tool_open_in_place(const char *out, int binary)
{
	int fd = strcmp(out, "-") ? open(out, O_WRONLY | O_CLOEXEC) : 1;
	if (fd < 0)
		tool_die(EXIT_SYSTEM, "%s: cannot open: %s", out, strerror(errno));
	if (binary && isatty(fd))
		tool_die(EXIT_USAGE, "%s is a terminal, and the output is binary: name a file, or pipe it",
			 strcmp(out, "-") ? out : "standard output");
	return fd;
}

const char *tool_check_output(const char *out, char *const *inputs, int n, int trace_ok)
{
	struct stat so;
	size_t len = strlen(out);
	if (!strcmp(out, "-"))
		return out;   /* stdout */
	if (len == 0 || out[len - 1] == '/')
		tool_die(EXIT_USAGE, "'%s': name the output file, not a directory", out);
	if (stat(out, &so) != 0)
		return out;   /* a new file */
	if (S_ISDIR(so.st_mode))
		tool_die(EXIT_USAGE, "%s is a directory: name the output file", out);
	/* a character device or a pipe is written in place (tool_open_in_place); anything else
	   (a block device, a socket) is not for us to write */
	if (S_ISCHR(so.st_mode) || S_ISFIFO(so.st_mode))
		return out;
	if (!S_ISREG(so.st_mode))
		tool_die(EXIT_USAGE, "%s is neither a regular file, a character device nor a pipe: name a file",
			 out);
	for (int i = 0; i < n; i++)
		if (tool_same_file(out, inputs[i]))
			tool_die(EXIT_USAGE, "%s: the output is also an input, which writing it would destroy",
				 out);
	struct stat sl;
	char *target = NULL;
	if (lstat(out, &sl) == 0 && S_ISLNK(sl.st_mode) && (target = realpath(out, NULL)) != NULL)
		out = target;   /* write where the link points, and keep the link */
	if (trace_ok)
		return out;
	char head[MTRACE_MAGIC_LEN];
	int fd = open(out, O_RDONLY | O_CLOEXEC);
	ssize_t got = fd >= 0 ? read(fd, head, sizeof head) : -1;
	if (fd >= 0)
		close(fd);
	if (got == (ssize_t)sizeof head && !memcmp(head, MTRACE_MAGIC, MTRACE_MAGIC_LEN))
		tool_die(EXIT_USAGE, "%s is an mtrace trace, which the output would replace: name another "
			 "file, or remove it first", out);
	return out;
}

