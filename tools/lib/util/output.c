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

static int mkstemp_beside(const char *out, char *tmpl, struct tool_err *err, int stdout_ok)
{
	int fd = mkstemp(tmpl);
	if (fd >= 0)
		return fd;
	int e = errno;
	const char *slash = strrchr(out, '/');
	int dirlen = slash ? (slash == out ? 1 : (int)(slash - out)) : 1;
	tool_fail(err, EXIT_SYSTEM, "%s: cannot create the temporary file it is written to before "
		  "it is renamed into place, in %.*s: %s (write the output to another directory%s)",
		  out, dirlen, slash ? out : ".", strerror(e),
		  stdout_ok ? ", or to standard output" : "");
	errno = e;
	return -1;
}

int tool_mkstemp_beside(const char *out, char *tmpl, struct tool_err *err)
{
	return mkstemp_beside(out, tmpl, err, 1);
}

/* mkstemp(tmpl) in $TMPDIR (else /tmp): tmpl gets "DIR/NAME.XXXXXX".  Its descriptor, or -1
   with err. */
static int mkstemp_tmpdir(char *tmpl, size_t cap, const char *name, struct tool_err *err)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	snprintf(tmpl, cap, "%s/%s.XXXXXX", dir, name);
	int fd = mkstemp(tmpl);
	if (fd < 0) {
		int e = errno;
		tmpl[0] = 0;
		tool_fail(err, EXIT_SYSTEM, "cannot create a temporary file in %s: %s", dir,
			  strerror(e));
		errno = e;
	}
	return fd;
}

int tool_mkstemp(char *path, size_t cap, struct tool_err *e)
{
	return mkstemp_tmpdir(path, cap, tool_name, e);
}

/* ---------------------------------------------------------------------------------------------
   One output: its temporary file renamed into place when complete
   ------------------------------------------------------------------------------------------- */

/* Give a new output file (made 0600 by mkstemp) the mode open() would: 0666 less the umask.
   Workloads, plots and logs hold no addresses; traces keep 0600, as capture makes them. */
static void output_mode(int fd)
{
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);   /* failing leaves 0600: safe, and the data is what matters */
}

const char *output_name(const char *path)
{
	return strcmp(path, "-") ? path : "standard output";
}

/* The descriptor an output is written to: path's own (1 for "-") in place, else a new
   temporary file beside it, its name in tmp (cap bytes, "" in place) registered for removal.
   -1 with err on failure. */
static int open_output(const char *path, int flags, char *tmp, size_t cap, struct tool_err *err)
{
	tmp[0] = 0;
	if (tool_output_in_place(path)) {
		int fd = strcmp(path, "-") ? open(path, O_WRONLY | O_CLOEXEC) : 1;
		if (fd < 0) {
			return tool_fail(err, EXIT_SYSTEM, "%s: cannot open: %s", path,
					 strerror(errno));
		}
		if ((flags & OUTPUT_BINARY) && isatty(fd)) {
			tool_fail(err, EXIT_USAGE, "%s is a terminal, and the output is binary: "
				  "name a file, or pipe it", output_name(path));
			if (fd != 1)
				close(fd);
			return -1;
		}
		return fd;
	}
	snprintf(tmp, cap, "%s.tmp.XXXXXX", path);
	int fd = tool_mkstemp_beside(path, tmp, err);
	if (fd < 0) {
		tmp[0] = 0;
		return -1;
	}
	tool_temp_add(tmp);
	if (!(flags & OUTPUT_PRIVATE))
		output_mode(fd);
	return fd;
}

/* The finished temporary file tmp renamed to path; on failure removed, -1 with err. */
static int rename_into_place(char *tmp, const char *path, struct tool_err *err)
{
	int r = rename(tmp, path);
	if (r < 0) {
		tool_fail(err, EXIT_SYSTEM, "%s: cannot rename into place: %s", path,
			  strerror(errno));
		unlink(tmp);
	}
	tool_temp_done(tmp);
	tmp[0] = 0;
	return r;
}

int output_open(struct output *o, const char *path, int flags)
{
	o->path = path;
	o->f = NULL;
	o->flags = flags;
	o->err = (struct tool_err){ 0 };
	o->fd = open_output(path, flags, o->tmp, sizeof o->tmp, &o->err);
	return o->fd < 0 ? -1 : 0;
}

FILE *output_stdio(struct output *o)
{
	/* one stream for descriptor 1: nothing of stdout's is lost */
	if (o->fd == 1)
		return o->f = stdout;
	if (!(o->f = fdopen(o->fd, "w")))
		tool_fail(&o->err, EXIT_SYSTEM, "%s: %s", o->path, strerror(errno));
	return o->f;
}

int output_close(struct output *o, int write_errno)
{
	if (o->fd < 0)
		return 0;
	int e = write_errno;
	if (o->f && (fflush(o->f) != 0 || ferror(o->f)) && !e)
		e = errno ? errno : EIO;
	if (!e && (o->flags & OUTPUT_SYNC) && o->tmp[0] && fsync(o->fd) != 0)
		e = errno;
	int closed = o->f ? (o->f == stdout ? 0 : fclose(o->f)) : o->fd == 1 ? 0 : close(o->fd);
	if (closed != 0 && !e)
		e = errno;
	o->f = NULL;
	o->fd = -1;
	if (!e)
		return 0;
	return tool_fail(&o->err, EXIT_SYSTEM, "%s: cannot write: %s", output_name(o->path),
			 strerror(e));
}

int output_commit(struct output *o)
{
	if (output_close(o, 0) < 0) {
		output_abort(o);
		return -1;
	}
	if (!o->tmp[0])
		return 0;   /* written in place */
	return rename_into_place(o->tmp, o->path, &o->err);
}

void output_abort(struct output *o)
{
	if (o->fd >= 0) {
		if (o->f && o->f != stdout)
			fclose(o->f);
		else if (!o->f && o->fd != 1)
			close(o->fd);
	}
	o->f = NULL;
	o->fd = -1;
	if (o->tmp[0]) {
		unlink(o->tmp);
		tool_temp_done(o->tmp);
		o->tmp[0] = 0;
	}
}

int output_scratch(struct output *o, const char *suffix)
{
	char name[OUTPUT_TMP_CAP + 32];
	int fd;
	if (!o->tmp[0]) {
		char what[64];
		snprintf(what, sizeof what, "%s%s", tool_name, suffix);
		fd = mkstemp_tmpdir(name, sizeof name, what, &o->err);
	} else {
		snprintf(name, sizeof name, "%s%s.XXXXXX", o->path, suffix);
		fd = tool_mkstemp_beside(o->path, name, &o->err);
	}
	if (fd >= 0)
		unlink(name);
	return fd;
}

/* ---------------------------------------------------------------------------------------------
   For a tool's main: the same, exiting on failure
   ------------------------------------------------------------------------------------------- */

int tool_output_open(const char *path, char *tmp)
{
	struct tool_err e;
	int fd = open_output(path, 0, tmp, TOOL_TMP_CAP, &e);
	if (fd < 0)
		tool_die_err(&e);
	return fd;
}

const char *tool_check_output(const char *out, char *const *inputs, int n, int flags)
{
	struct tool_err e;
	const char *path = output_check(out, inputs, n, flags, &e);
	if (!path)
		tool_die_err(&e);
	return path;
}

void tool_output_finish(const char *path, int fd, char *tmp, int write_errno)
{
	if (write_errno)
		tool_die(EXIT_SYSTEM, "%s: cannot write: %s", path, strerror(write_errno));
	if (close(fd) < 0)
		tool_die(EXIT_SYSTEM, "%s: cannot write: %s", path, strerror(errno));
	if (!tmp[0])
		return;   /* written in place */
	struct tool_err e;
	if (rename_into_place(tmp, path, &e) < 0)
		tool_die_err(&e);
}

/* ---------------------------------------------------------------------------------------------
   Writing all of it
   ------------------------------------------------------------------------------------------- */

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

/* ---------------------------------------------------------------------------------------------
   What may be written
   ------------------------------------------------------------------------------------------- */

int tool_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return strcmp(a, "-") && strcmp(b, "-") && stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int tool_output_in_place(const char *out)
{
	struct stat st;
	return !strcmp(out, "-") ||
	       (stat(out, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)));
}

/* Can out's directory take the temporary file out is written to?  Tried: made and removed. */
static int dir_takes_temp(const char *out, int flags, struct tool_err *e)
{
	char tmpl[OUTPUT_TMP_CAP];
	if (snprintf(tmpl, sizeof tmpl, "%s.XXXXXX", out) >= (int)sizeof tmpl) {
		tool_fail(e, EXIT_USAGE, "%.200s...: the output's name is too long", out);
		return 0;
	}
	int fd = mkstemp_beside(out, tmpl, e, !(flags & OUTPUT_NO_STDOUT));
	if (fd < 0)
		return 0;
	close(fd);
	unlink(tmpl);
	return 1;
}

const char *output_check(const char *out, char *const *inputs, int n, int flags,
			 struct tool_err *e)
{
	struct stat so;
	size_t len = strlen(out);
	if (!strcmp(out, "-"))
		return out;   /* stdout */
	if (len == 0 || out[len - 1] == '/') {
		tool_fail(e, EXIT_USAGE, "'%s': name the output file, not a directory", out);
		return NULL;
	}
	if (stat(out, &so) != 0)
		return dir_takes_temp(out, flags, e) ? out : NULL;   /* a new file */
	if (S_ISDIR(so.st_mode)) {
		tool_fail(e, EXIT_USAGE, "%s is a directory: name the output file", out);
		return NULL;
	}
	/* a character device or a pipe is written in place (output_open); anything else (a block
	   device, a socket) is not for us to write */
	if (S_ISCHR(so.st_mode) || S_ISFIFO(so.st_mode))
		return out;
	if (!S_ISREG(so.st_mode)) {
		tool_fail(e, EXIT_USAGE, "%s is neither a regular file, a character device nor a "
			  "pipe: name a file", out);
		return NULL;
	}
	for (int i = 0; i < n; i++)
		if (tool_same_file(out, inputs[i])) {
			tool_fail(e, EXIT_USAGE, "%s: the output is also an input, which "
				  "writing it would destroy", out);
			return NULL;
		}
	struct stat sl;
	char *target = NULL;
	if (lstat(out, &sl) == 0 && S_ISLNK(sl.st_mode) && (target = realpath(out, NULL)) != NULL)
		out = target;   /* write where the link points, and keep the link */
	if (!dir_takes_temp(out, flags, e)) {
		free(target);
		return NULL;
	}
	if (flags & OUTPUT_TRACE_OK)
		return out;
	char head[MTRACE_MAGIC_LEN];
	int fd = open(out, O_RDONLY | O_CLOEXEC);
	ssize_t got = fd >= 0 ? read(fd, head, sizeof head) : -1;
	if (fd >= 0)
		close(fd);
	if (got == (ssize_t)sizeof head && !memcmp(head, MTRACE_MAGIC, MTRACE_MAGIC_LEN)) {
		tool_fail(e, EXIT_USAGE, "%s is an mtrace trace, which the output would replace: "
			  "name another file", out);
		free(target);
		return NULL;
	}
	return out;
}
