/* input.c - see input.h */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include "input.h"
#include "input.h"
#include "msg.h"
#include "output.h"
#include "progress.h"
#include "proc.h"

int tool_input_is_stream(const char *path)
{
	struct stat st;
	if (!strcmp(path, "-"))
		return 1;
	return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* ---------------------------------------------------------------------------------------------
   Compressed input: the installed program decompresses into a pipe
   ------------------------------------------------------------------------------------------- */

const char *input_compression(const unsigned char *b, size_t n)
{
	if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b)
		return "gzip";
	if (n >= 6 && memcmp(b, "\xfd" "7zXZ\0", 6) == 0)
		return "xz";
	if (n >= 4 && b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd)
		return "zstd";
	return NULL;
}

/* A child that writes the n bytes at head (the first of fd in, already read) to fd out, then
   copies the rest.  Its pid, or -1. */
static pid_t start_feeder(const unsigned char *head, size_t n, int in, int out)
{
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	if (tool_write_all(out, head, n) < 0)
		_exit(1);
	_exit(tool_copy_fd(in, out) < 0);   /* fails too when the decompressor stopped reading */
}

int input_decompress(const char *prog, int src, const unsigned char *head, size_t have,
		     pid_t *child, pid_t *feeder, char *err, size_t cap)
{
	*child = *feeder = 0;
	if (!tool_on_path(prog)) {
		snprintf(err, cap, "%s-compressed, but '%s' is not installed (apt-get install %s)",
			 prog, prog, tool_package_of(prog));
		return -1;
	}
	int in = src, feed[2] = { -1, -1 }, pfd[2];
	/* standard input or a pipe: fed what was read, then the rest */
	if (lseek(src, 0, SEEK_SET) != 0) {
		if (pipe2(feed, O_CLOEXEC) < 0) {
			snprintf(err, cap, "pipe: %s", strerror(errno));
			return -1;
		}
		in = feed[0];
		*feeder = start_feeder(head, have, src, feed[1]);
		close(feed[1]);
		if (*feeder < 0) {
			*feeder = 0;
			close(feed[0]);
			snprintf(err, cap, "fork: %s", strerror(errno));
			return -1;
		}
	}
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		snprintf(err, cap, "pipe: %s", strerror(errno));
		return -1;
	}
	char *args[] = { (char *)prog, "-dc", NULL };
	pid_t pid = tool_spawn(args, in, pfd[1], 1);
	if (feed[0] >= 0)
		close(feed[0]);
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		snprintf(err, cap, "fork: %s", strerror(errno));
		return -1;
	}
	*child = pid;
	return pfd[0];
}

int input_reap(pid_t *child, pid_t *feeder, int stop)
{
	if (stop) {
		if (*child)
			kill(*child, SIGTERM);
		if (*feeder)
			kill(*feeder, SIGTERM);
	}
	if (*feeder) {
		while (waitpid(*feeder, NULL, 0) < 0 && errno == EINTR)
			;
		*feeder = 0;
	}
	if (!*child)
		return 0;
	int ok = tool_wait_ok(*child);
	*child = 0;
	return !ok;
}

/* ---------------------------------------------------------------------------------------------
   Copies: unlinked at once, named by /proc/self/fd
   ------------------------------------------------------------------------------------------- */

#define MAX_COPIES 4              /* a tool has one or two */
#define ROOM_KEPT_DIV 10          /* a copy leaves its filesystem a tenth of it free */

static char copy_names[MAX_COPIES][32];
static int ncopies;

/* Up to cap bytes of fd into b, however the pipe delivers them: what was read (fewer only at
   the end), or -1. */
static ssize_t read_full(int fd, unsigned char *b, size_t cap)
{
	size_t n = 0;
	while (n < cap) {
		ssize_t k = read(fd, b + n, cap - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		n += (size_t)k;
	}
	return (ssize_t)n;
}

/* head (n bytes), then the rest of src, into a new unlinked file in $TMPDIR (else /tmp); its
   /proc/self/fd name.  NULL with e (status 3) when it cannot be written, or would leave the
   filesystem less than a tenth free; (status 1) when src cannot be read. */
static const char *copy_in(const char *shown, const unsigned char *head, size_t n, int src,
			   int progress, const char *doing, pid_t child, uint64_t compressed,
			   struct tool_err *e)
{
	if (ncopies == MAX_COPIES) {
		tool_fail(e, EXIT_SYSTEM, "%s: more inputs to copy than %d", shown, MAX_COPIES);
		return NULL;
	}
	/* a file without a name (O_TMPFILE), or one unlinked at once: the descriptor is the file,
	   and no end of ours leaves it behind */
	char path[4200];
	const char *dir = getenv("TMPDIR");
	snprintf(path, sizeof path, "%s", dir && *dir ? dir : "/tmp");
	int fd = open(path, O_TMPFILE | O_RDWR, 0600);
	if (fd < 0) {   /* a filesystem without O_TMPFILE */
		if ((fd = tool_mkstemp(path, sizeof path, e)) < 0)
			return NULL;
		unlink(path);
		char *slash = strrchr(path, '/');
		if (slash)
			*slash = 0;   /* the directory, for messages */
	}
	struct statvfs vfs;
	uint64_t room = UINT64_MAX;
	if (fstatvfs(fd, &vfs) == 0 && vfs.f_blocks) {
		uint64_t avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
		uint64_t keep = (uint64_t)vfs.f_blocks * vfs.f_frsize / ROOM_KEPT_DIV;
		room = avail > keep ? avail - keep : 0;
	}
	struct tool_progress p;
	char what[4400];
	snprintf(what, sizeof what, "%s %s", doing, shown);
	tool_progress_start(&p, progress, -1, what);
	tool_progress_child(&p, child, 0, compressed);   /* (a decompressor reading the file) */
	static unsigned char buf[1 << 16];
	uint64_t done = 0;
	const unsigned char *b = head;
	for (ssize_t k = (ssize_t)n;; k = read(src, buf, sizeof buf), b = buf) {
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			tool_fail(e, EXIT_BADFILE, "%s: offset %llu: %s", shown,
				  (unsigned long long)done, strerror(errno));
		else if (k == 0 && b == buf)
			break;
		else if ((uint64_t)k > room - done)
			tool_fail(e, EXIT_SYSTEM, "%s: its copy in %s stopped at %llu MiB, to "
				  "leave a tenth of that filesystem free: give the file by its "
				  "name (not through standard input or a pipe), or set TMPDIR to "
				  "a directory with more room", shown, path,
				  (unsigned long long)(done >> 20));
		else if (tool_write_all(fd, b, (size_t)k) < 0)
			tool_fail(e, EXIT_SYSTEM, "%s: copying it into %s: %s", shown, path,
				  strerror(errno));
		else {
			done += (uint64_t)k;
			tool_progress(done, &p);
			continue;
		}
		tool_progress_end(&p);
		close(fd);
		return NULL;
	}
	tool_progress_end(&p);
	char *name = copy_names[ncopies++];
	snprintf(name, sizeof copy_names[0], "/proc/self/fd/%d", fd);   /* (not close-on-exec) */
	return name;
}

void input_release(const char *name)
{
	for (int i = 0; i < ncopies; i++)
		if (!strcmp(name, copy_names[i])) {
			close(atoi(name + strlen("/proc/self/fd/")));
			copy_names[i][0] = 0;   /* (its slot is not used again) */
		}
}

const char *input_copy(int src, const char *shown, int progress, struct tool_err *e)
{
	const char *copy = copy_in(shown, NULL, 0, src, progress, "copying", 0, 0, e);
	if (copy)
		tool_display_as(copy, shown);
	return copy;
}

/* ---------------------------------------------------------------------------------------------
   Inputs a tool reads more than once
   ------------------------------------------------------------------------------------------- */

/* The decompressor and its feeder stopped, fd closed: NULL, for input_open_plain's failures */
static const char *give_up(pid_t *child, pid_t *feeder, int fd)
{
	if (fd > 0)
		close(fd);
	input_reap(child, feeder, 1);
	return NULL;
}

const char *input_open_plain(const char *path, input_check_fn *check, int decompress, int progress,
			     struct tool_err *e)
{
	int stream = tool_input_is_stream(path);
	const char *shown = tool_display_name(path);
	if (!stream && !decompress)
		return path;   /* the tool's own reader looks at it */
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0) {
		tool_fail(e, EXIT_BADFILE, "%s: %s", path, strerror(errno));
		return NULL;
	}
	pid_t child = 0, feeder = 0;
	static unsigned char head[INPUT_HEAD];
	ssize_t n = read_full(fd, head, sizeof head);
	if (n < 0) {
		tool_fail(e, EXIT_BADFILE, "%s: %s", shown, strerror(errno));
		return give_up(&child, &feeder, fd);
	}
	const char *prog = input_compression(head, (size_t)n);
	if (!stream && !prog) {
		close(fd);
		/* (empty: the reader says so) */
		const char *why = n > 0 ? check(head, (size_t)n) : NULL;
		if (why) {
			tool_fail(e, EXIT_BADFILE, "%s: offset 0: %s", shown, why);
			return NULL;
		}
		return path;   /* a plain file: read as it is */
	}
	int src = fd;
	struct stat st;
	uint64_t compressed = !stream && fstat(fd, &st) == 0 ? (uint64_t)st.st_size : 0;
	if (prog) {
		char err[300];
		src = input_decompress(prog, fd, head, (size_t)n, &child, &feeder, err, sizeof err);
		if (src < 0) {
			tool_fail(e, EXIT_SYSTEM, "%s: %s", shown, err);
			return give_up(&child, &feeder, fd);
		}
		if (fd > 0)
			close(fd);   /* (the decompressor, or its feeder, has it) */
		n = read_full(src, head, sizeof head);
		/* all there is, before the check: a failed decompressor, not what it gave, is
		   the news */
		if (n < (ssize_t)sizeof head && input_reap(&child, &feeder, 0)) {
			tool_fail(e, EXIT_BADFILE, "%s: %s -dc failed: the compressed data is "
				  "corrupt or truncated", shown, prog);
			return give_up(&child, &feeder, src);
		}
		if (n < 0) {
			tool_fail(e, EXIT_BADFILE, "%s: %s", shown, strerror(errno));
			return give_up(&child, &feeder, src);
		}
	}
	if (n == 0) {
		tool_fail(e, EXIT_BADFILE, "%s: offset 0: %s", shown,
			  prog ? "its decompressed data is empty" : "empty");
		return give_up(&child, &feeder, src);
	}
	const char *why = check(head, (size_t)n);
	if (why) {
		tool_fail(e, EXIT_BADFILE, "%s: offset 0%s: %s", shown,
			  prog ? " of its decompressed data" : "", why);
		return give_up(&child, &feeder, src);
	}
	const char *copy = copy_in(shown, head, (size_t)n, src, progress,
				   prog ? "decompressing" : "copying", feeder ? 0 : child,
				   compressed, e);
	if (!copy)
		return give_up(&child, &feeder, src);
	if (src > 0)
		close(src);
	if (input_reap(&child, &feeder, 0)) {
		input_release(copy);
		tool_fail(e, EXIT_BADFILE, "%s: %s -dc failed: the compressed data is corrupt or "
			  "truncated", shown, prog);
		return NULL;
	}
	tool_display_as(copy, path);
	return copy;
}

/* ---------------------------------------------------------------------------------------------
   For a tool's main: the same, exiting on failure
   ------------------------------------------------------------------------------------------- */

const char *input_reopenable(const char *path, input_check_fn *check, int decompress, int progress)
{
	struct tool_err e;
	const char *plain = input_open_plain(path, check, decompress, progress, &e);
	if (!plain)
		tool_die_err(&e);
	return plain;
}
