/* input.c - see input.h */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>
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
   copies the rest, counting in *fed what it gave.  Its pid, or -1. */
static pid_t start_feeder(const unsigned char *head, size_t n, int in, int out,
			  volatile uint64_t *fed)
{
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	if (tool_write_all(out, head, n) < 0)
		_exit(1);
	static unsigned char buf[1 << 16];
	for (uint64_t done = n;;) {
		__atomic_store_n(fed, done, __ATOMIC_RELAXED);
		ssize_t k = read(in, buf, sizeof buf);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			_exit(k < 0);
		/* (fails too when the decompressor stopped reading) */
		if (tool_write_all(out, buf, (size_t)k) < 0)
			_exit(1);
		done += (uint64_t)k;
	}
}

int input_decompress(const char *prog, int src, const unsigned char *head, size_t have,
		     struct input_dec *d, struct tool_err *err)
{
	memset(d, 0, sizeof *d);
	if (!tool_on_path(prog)) {
		tool_fail(err, EXIT_SYSTEM, "%s-compressed, but '%s' is not installed "
			  "(apt-get install %s)", prog, prog, tool_package_of(prog));
		return -1;
	}
	int in = src, feed[2] = { -1, -1 }, pfd[2];
	struct stat st;
	if (lseek(src, 0, SEEK_SET) == 0) {
		if (fstat(src, &st) == 0 && S_ISREG(st.st_mode))
			d->size = (uint64_t)st.st_size;
	} else {   /* standard input or a pipe: fed what was read, then the rest */
		void *page = mmap(NULL, sizeof *d->fed, PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (page == MAP_FAILED || pipe2(feed, O_CLOEXEC) < 0) {
			tool_fail(err, EXIT_SYSTEM, "%s: %s", page == MAP_FAILED ? "mmap" : "pipe",
				  strerror(errno));
			if (page != MAP_FAILED)
				munmap(page, sizeof *d->fed);
			return -1;
		}
		d->fed = page;
		in = feed[0];
		d->feeder = start_feeder(head, have, src, feed[1], d->fed);
		close(feed[1]);
		if (d->feeder < 0) {
			d->feeder = 0;
			close(feed[0]);
			input_reap(d, 0);
			tool_fail(err, EXIT_SYSTEM, "fork: %s", strerror(errno));
			return -1;
		}
	}
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		tool_fail(err, EXIT_SYSTEM, "pipe: %s", strerror(errno));
		return -1;
	}
	char *args[] = { (char *)prog, "-dc", NULL };
	pid_t pid = tool_spawn(args, in, pfd[1], 1);
	if (feed[0] >= 0)
		close(feed[0]);
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		tool_fail(err, EXIT_SYSTEM, "fork: %s", strerror(errno));
		return -1;
	}
	d->child = pid;
	return pfd[0];
}

int input_reap(struct input_dec *d, int stop)
{
	if (stop) {
		if (d->child)
			kill(d->child, SIGTERM);
		if (d->feeder)
			kill(d->feeder, SIGTERM);
	}
	if (d->feeder) {
		while (waitpid(d->feeder, NULL, 0) < 0 && errno == EINTR)
			;
		d->feeder = 0;
	}
	int failed = 0;
	if (d->child) {
		failed = !tool_wait_ok(d->child);
		d->child = 0;
	}
	if (d->fed) {
		munmap((void *)d->fed, sizeof *d->fed);
		d->fed = NULL;
	}
	return failed;
}

int input_overgrown(const struct input_dec *d, uint64_t plain, struct tool_err *e)
{
	uint64_t in = d->fed ? __atomic_load_n(d->fed, __ATOMIC_RELAXED) : d->size;
	if (!d->child || (!d->fed && !d->size) || plain <= INPUT_RATIO_FREE ||
	    plain - INPUT_RATIO_FREE <= in * INPUT_RATIO_MAX)
		return 0;
	tool_fail(e, EXIT_BADFILE, "it decompresses to more than %u times its %llu compressed "
		  "bytes (zeros aside): a compression bomb, not a file of mtrace's",
		  INPUT_RATIO_MAX, (unsigned long long)in);
	return 1;
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

/* A new unlinked file for a copy of shown in $TMPDIR (else /tmp), into c.  0, or -1 with e. */
static int copy_start(struct input_copy *c, const char *shown, const struct input_dec *dec,
		      int progress, struct tool_err *e)
{
	memset(c, 0, sizeof *c);
	c->shown = shown;
	c->dec = dec;
	if (ncopies == MAX_COPIES)
		return tool_fail(e, EXIT_SYSTEM, "%s: more inputs to copy than %d", shown,
				 MAX_COPIES);
	/* a file without a name (O_TMPFILE), or one unlinked at once: the descriptor is the file,
	   and no end of ours leaves it behind */
	const char *dir = getenv("TMPDIR");
	snprintf(c->where, sizeof c->where, "%s", dir && *dir ? dir : "/tmp");
	c->fd = open(c->where, O_TMPFILE | O_RDWR, 0600);
	if (c->fd < 0) {   /* a filesystem without O_TMPFILE */
		if ((c->fd = tool_mkstemp(c->where, sizeof c->where, e)) < 0)
			return -1;
		unlink(c->where);
		char *slash = strrchr(c->where, '/');
		if (slash)
			*slash = 0;   /* the directory, for messages */
	}
	struct statvfs vfs;
	c->room = UINT64_MAX;
	if (fstatvfs(c->fd, &vfs) == 0 && vfs.f_blocks) {
		uint64_t avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
		uint64_t keep = (uint64_t)vfs.f_blocks * vfs.f_frsize / ROOM_KEPT_DIV;
		c->room = avail > keep ? avail - keep : 0;
	}
	static char what[4400];
	snprintf(what, sizeof what, "%s %s", dec ? "decompressing" : "copying", shown);
	tool_progress_start(&c->progress, progress, -1, what);
	if (dec && !dec->feeder)   /* (a decompressor reading the file) */
		tool_progress_child(&c->progress, dec->child, 0, dec->size);
	return 0;
}

/* Are the n bytes at b all zero? */
static int all_zero(const unsigned char *b, size_t n)
{
	return n == 0 || (b[0] == 0 && memcmp(b, b + 1, n - 1) == 0);
}

#define COPY_PAGE 4096u   /* a copy's pages of zeros are left holes */

int input_copy_write(struct input_copy *c, const unsigned char *b, size_t n, struct tool_err *e)
{
	while (n > 0) {
		/* a run of pages of the copy, all zeros or none */
		size_t run = COPY_PAGE - c->size % COPY_PAGE, k;
		if (run > n)
			run = n;
		int zero = all_zero(b, run);
		for (; run < n; run += k) {
			k = n - run < COPY_PAGE ? n - run : COPY_PAGE;
			if (all_zero(b + run, k) != zero)
				break;
		}
		struct tool_err over;
		if (zero && lseek(c->fd, (off_t)run, SEEK_CUR) < 0)
			return tool_fail(e, EXIT_SYSTEM, "%s: copying it into %s: %s", c->shown,
					 c->where, strerror(errno));
		if (!zero && run > c->room - c->stored)
			return tool_fail(e, EXIT_SYSTEM, "%s: its copy in %s stopped at %llu MiB, "
					 "to leave a tenth of that filesystem free: give the file "
					 "by its name (not through standard input or a pipe), or "
					 "set TMPDIR to a directory with more room", c->shown,
					 c->where, (unsigned long long)(c->stored >> 20));
		if (!zero && tool_write_all(c->fd, b, run) < 0)
			return tool_fail(e, EXIT_SYSTEM, "%s: copying it into %s: %s", c->shown,
					 c->where, strerror(errno));
		if (!zero && c->dec && input_overgrown(c->dec, c->stored + run, &over))
			return tool_fail(e, EXIT_BADFILE, "%s: offset %llu of its decompressed "
					 "data: %s", c->shown, (unsigned long long)c->size,
					 over.msg);
		c->stored += zero ? 0 : run;
		c->size += run;
		b += run;
		n -= run;
	}
	tool_progress(c->size, &c->progress);
	return 0;
}

/* The copy complete (its holes at the end included): its /proc/self/fd name, or NULL with e */
static const char *copy_end(struct input_copy *c, struct tool_err *e)
{
	tool_progress_end(&c->progress);
	if (ftruncate(c->fd, (off_t)c->size) < 0) {
		tool_fail(e, EXIT_SYSTEM, "%s: copying it into %s: %s", c->shown, c->where,
			  strerror(errno));
		close(c->fd);
		return NULL;
	}
	char *name = copy_names[ncopies++];
	snprintf(name, sizeof copy_names[0], "/proc/self/fd/%d", c->fd);   /* (not close-on-exec) */
	return name;
}

/* input_copy_upto, and for text (text 1) up to its first NUL byte, which no text has */
static int copy_stream(struct input_copy *c, const unsigned char *head, size_t n, int src,
		       uint64_t size, int text, struct tool_err *e)
{
	static unsigned char buf[1 << 16];
	const unsigned char *b = head;
	for (ssize_t k = (ssize_t)n;; b = buf, k = read(src, buf, sizeof buf)) {
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return tool_fail(e, EXIT_BADFILE, "%s: offset %llu: %s", c->shown,
					 (unsigned long long)c->size, strerror(errno));
		if (k == 0 && b == buf)
			return 0;
		if ((uint64_t)k > size - c->size)
			return tool_fail(e, EXIT_BADFILE, "%s: offset %llu: more than the %llu "
					 "bytes its header says it has", c->shown,
					 (unsigned long long)size, (unsigned long long)size);
		const unsigned char *nul = text ? memchr(b, 0, (size_t)k) : NULL;
		if (nul)
			return tool_fail(e, EXIT_BADFILE, "%s: offset %llu: a NUL byte: not text",
					 c->shown, (unsigned long long)(c->size +
									(uint64_t)(nul - b)));
		if (input_copy_write(c, b, (size_t)k, e) < 0)
			return -1;
	}
}

int input_copy_upto(struct input_copy *c, const unsigned char *head, size_t n, int src,
		    uint64_t size, struct tool_err *e)
{
	return copy_stream(c, head, n, src, size, 0, e);
}

int input_copy_all(struct input_copy *c, const unsigned char *head, size_t n, int src,
		   struct tool_err *e)
{
	return copy_stream(c, head, n, src, UINT64_MAX, 0, e);
}

int input_copy_text(struct input_copy *c, const unsigned char *head, size_t n, int src,
		    struct tool_err *e)
{
	return copy_stream(c, head, n, src, UINT64_MAX, 1, e);
}

/* head (n bytes), then the rest of src, copied by copy into a new unlinked file: its
   /proc/self/fd name, or NULL with e */
static const char *copy_in(const char *shown, const unsigned char *head, size_t n, int src,
			   input_copy_fn *copy, const struct input_dec *dec, int progress,
			   struct tool_err *e)
{
	struct input_copy c;
	if (copy_start(&c, shown, dec, progress, e) < 0)
		return NULL;
	if ((copy ? copy : input_copy_all)(&c, head, n, src, e) < 0) {
		tool_progress_end(&c.progress);
		close(c.fd);
		return NULL;
	}
	return copy_end(&c, e);
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
	const char *copy = copy_in(shown, NULL, 0, src, NULL, NULL, progress, e);
	if (copy)
		tool_display_as(copy, shown);
	return copy;
}

/* ---------------------------------------------------------------------------------------------
   Inputs a tool reads more than once
   ------------------------------------------------------------------------------------------- */

/* The decompressor and its feeder stopped, fd closed: NULL, for input_open_plain's failures */
static const char *give_up(struct input_dec *d, int fd)
{
	if (fd > 0)
		close(fd);
	input_reap(d, 1);
	return NULL;
}

/* Is the pipe fd at its end (the decompressor has closed it: its status is the news)? */
static int pipe_ended(int fd)
{
	unsigned char c;
	int fl = fcntl(fd, F_GETFL);
	return fl >= 0 && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0 && read(fd, &c, 1) == 0;
}

const char *input_open_plain(const char *path, input_check_fn *check, input_copy_fn *copy,
			     int decompress, int progress, struct tool_err *e)
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
	struct input_dec d = { 0 };
	static unsigned char head[INPUT_HEAD];
	ssize_t n = read_full(fd, head, sizeof head);
	if (n < 0) {
		tool_fail(e, EXIT_BADFILE, "%s: %s", shown, strerror(errno));
		return give_up(&d, fd);
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
	const char *corrupt = "%s: %s -dc failed: the compressed data is corrupt or truncated";
	if (prog) {
		struct tool_err err;
		src = input_decompress(prog, fd, head, (size_t)n, &d, &err);
		if (src < 0) {
			tool_fail(e, EXIT_SYSTEM, "%s: %s", shown, err.msg);
			return give_up(&d, fd);
		}
		if (fd > 0)
			close(fd);   /* (the decompressor, or its feeder, has it) */
		n = read_full(src, head, sizeof head);
		/* all there is, before the check: a failed decompressor, not what it gave, is
		   the news */
		if (n < (ssize_t)sizeof head && input_reap(&d, 0)) {
			tool_fail(e, EXIT_BADFILE, corrupt, shown, prog);
			return give_up(&d, src);
		}
		if (n < 0) {
			tool_fail(e, EXIT_BADFILE, "%s: %s", shown, strerror(errno));
			return give_up(&d, src);
		}
	}
	if (n == 0) {
		tool_fail(e, EXIT_BADFILE, "%s: offset 0: %s", shown,
			  prog ? "its decompressed data is empty" : "empty");
		return give_up(&d, src);
	}
	const char *why = check(head, (size_t)n);
	if (why) {
		tool_fail(e, EXIT_BADFILE, "%s: offset 0%s: %s", shown,
			  prog ? " of its decompressed data" : "", why);
		return give_up(&d, src);
	}
	const char *plain = copy_in(shown, head, (size_t)n, src, copy, prog ? &d : NULL, progress,
				    e);
	/* what the copy found wrong at the end of a failed decompressor's output: the failure */
	if (!plain && e->status == EXIT_BADFILE && prog && pipe_ended(src) && input_reap(&d, 0))
		tool_fail(e, EXIT_BADFILE, corrupt, shown, prog);
	if (!plain)
		return give_up(&d, src);
	if (src > 0)
		close(src);
	if (input_reap(&d, 0)) {
		input_release(plain);
		tool_fail(e, EXIT_BADFILE, corrupt, shown, prog);
		return NULL;
	}
	tool_display_as(plain, path);
	return plain;
}

/* ---------------------------------------------------------------------------------------------
   For a tool's main: the same, exiting on failure
   ------------------------------------------------------------------------------------------- */

const char *input_reopenable(const char *path, input_check_fn *check, input_copy_fn *copy,
			     int decompress, int progress)
{
	struct tool_err e;
	const char *plain = input_open_plain(path, check, copy, decompress, progress, &e);
	if (!plain)
		tool_die_err(&e);
	return plain;
}
