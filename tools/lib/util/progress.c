/* progress.c - the progress line of a long read, a child's work or a replay, on stderr
 * (progress.h).
 *
 * A line that runs past the terminal's last column wraps, and "\r" then returns to the start of
 * its second part only: each update leaves the first part behind.  So every line is fitted to
 * the terminal's width, asked again at each update (the window may have been resized): the
 * name shortened in its middle first, then the detail in parentheses left out, then the line
 * cut.  The line builder allocates nothing and uses no stdio: replay's sampler writes its line
 * with write(2) while the allocator under test runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "msg.h"
#include "progress.h"
#include "textout.h"
#include "units.h"

/* ---------------------------------------------------------------------------------------------
   Fitting a line to the terminal
   ------------------------------------------------------------------------------------------- */

#define NAME_KEPT 16   /* columns of the name worth more than the detail in parentheses */

/* Columns of the n bytes at s: UTF-8 continuation bytes take none */
static size_t cols_of(const char *s, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

/* Bytes of the n at s that make its first ncols columns (a character is never split) */
static size_t bytes_of(const char *s, size_t n, size_t ncols)
{
	size_t i = 0;
	for (size_t c = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80 && c++ == ncols)
			break;
	return i;
}

/* Append the n bytes at s to line (cap bytes, *k used), control characters as '?' (a name's
   newline or carriage return would break the line) */
static void put_n(char *line, size_t cap, size_t *k, const char *s, size_t n)
{
	for (size_t i = 0; i < n && *k < cap; i++)
		line[(*k)++] = (unsigned char)s[i] < 32 || s[i] == 127 ? '?' : s[i];
}

static void put(char *line, size_t cap, size_t *k, const char *s)
{
	put_n(line, cap, k, s, strlen(s));
}

/* name in room columns: whole, or its start and end around "..." */
static void put_name(char *line, size_t cap, size_t *k, const char *name, size_t room)
{
	size_t len = strlen(name);
	if (cols_of(name, len) <= room) {
		put_n(line, cap, k, name, len);
		return;
	}
	size_t head = (room - 3) / 3, tail = room - 3 - head, all = cols_of(name, len);
	put_n(line, cap, k, name, bytes_of(name, len, head));
	put(line, cap, k, "...");
	size_t from = bytes_of(name, len, all - tail);
	put_n(line, cap, k, name + from, len - from);
}

size_t tool_progress_line(char *line, size_t cap, const char *name, const char *pct,
			  const char *detail, size_t *widest)
{
	size_t width = (size_t)tool_term_width(), limit = width ? width - 1 : (size_t)-1;
	size_t namec = cols_of(name, strlen(name)), k = 0;
	/* "TOOL: NAME: PCT (DETAIL)": what is not the name */
	size_t fixed = cols_of(tool_name, strlen(tool_name)) + 2 +
		       (*pct ? 2 + cols_of(pct, strlen(pct)) : 0);
	size_t detailc = *detail ? 3 + cols_of(detail, strlen(detail)) : 0;   /* " (DETAIL)" */
	size_t keep = namec < NAME_KEPT ? namec : NAME_KEPT;
	if (fixed + detailc + keep > limit)
		detailc = 0, detail = "";
	size_t room = limit > fixed + detailc ? limit - (fixed + detailc) : 0;
	if (cap)
		line[k++] = '\r';
	put(line, cap, &k, tool_name);
	put(line, cap, &k, ": ");
	if (namec <= room || room >= 5) {   /* (else no name: "..." and a letter say nothing) */
		put_name(line, cap, &k, name, room);
		if (*pct)
			put(line, cap, &k, ": ");
	}
	put(line, cap, &k, pct);
	if (*detail) {
		put(line, cap, &k, " (");
		put(line, cap, &k, detail);
		put(line, cap, &k, ")");
	}
	size_t shown = cols_of(line + 1, k - 1);
	if (shown > limit) {   /* a terminal narrower than even the tool's name and the figure */
		k = 1 + bytes_of(line + 1, k - 1, limit);
		shown = limit;
	}
	/* spaces over what is left of a wider line before */
	size_t cover = *widest < limit ? *widest : limit;
	while (shown < cover && k < cap) {
		line[k++] = ' ';
		shown++;
	}
	if (shown > *widest)
		*widest = shown;
	return k;
}

void tool_progress_clear(size_t *widest)
{
	size_t width = (size_t)tool_term_width(), n = *widest;
	if (width && n > width - 1)
		n = width - 1;   /* (a window made narrower since: no wrap now) */
	char blank[64];
	memset(blank, ' ', sizeof blank);
	ssize_t w = write(2, "\r", 1);
	for (size_t chunk; n; n -= chunk) {
		chunk = n < sizeof blank ? n : sizeof blank;
		w = write(2, blank, chunk);
	}
	w = write(2, "\r", 1);
	(void)w;
	*widest = 0;
}

/* ---------------------------------------------------------------------------------------------
   Progress of a read (bytes or other units), and of a child's
   ------------------------------------------------------------------------------------------- */

/* How far the child pid is: the file position of its descriptor child_fd, or, when child_fd
   is -1, the size of our descriptor fd (what it has written). */
static uint64_t child_done(pid_t pid, int child_fd, int fd)
{
	struct stat st;
	if (child_fd < 0)
		return fstat(fd, &st) == 0 ? (uint64_t)st.st_size : 0;
	char path[64], buf[256];
	snprintf(path, sizeof path, "/proc/%d/fdinfo/%d", (int)pid, child_fd);
	int f = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = f >= 0 ? read(f, buf, sizeof buf - 1) : -1;
	if (f >= 0)
		close(f);
	unsigned long long pos = 0;
	if (n > 0) {
		buf[n] = 0;
		sscanf(buf, "pos: %llu", &pos);
	}
	return pos;
}

int tool_wait_ok_progress(pid_t pid, struct tool_progress *p, int child_fd, int fd)
{
	int st = 0;
	if (pid <= 0)
		return 0;   /* it could not be started */
	for (;;) {
		pid_t r = waitpid(pid, &st, p->on ? WNOHANG : 0);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			return 0;
		if (r == 0) {
			tool_progress(child_done(pid, child_fd, fd), p);
			usleep(50000);
		}
	}
	tool_progress_end(p);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

void tool_progress_start(struct tool_progress *p, int on, int fd, const char *name)
{
	struct stat st;
	memset(p, 0, sizeof *p);
	p->on = on;
	p->total = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	/* unless forced, nothing for a read that ends within the second */
	p->last = on == 2 ? 0 : time(NULL);
	p->name = name;
}

void tool_progress_count(struct tool_progress *p, int on, uint64_t total, const char *name,
			 const char *unit)
{
	tool_progress_start(p, on, -1, name);
	p->total = total;
	p->unit = unit;
}

void tool_progress_child(struct tool_progress *p, pid_t pid, int child_fd, uint64_t total)
{
	if (pid <= 0 || !total)
		return;   /* (a pipe's size is not known: the bytes decompressed are shown) */
	p->child = pid;
	p->child_fd = child_fd;
	p->total = total;
}

void tool_progress(uint64_t bytes, void *arg)
{
	struct tool_progress *p = arg;
	if (!p->on)
		return;
	time_t now = time(NULL);
	if (now == p->last)
		return;
	p->last = now;
	p->shown = 1;
	char pct[48], detail[120], a[32], b[32];
	if (p->child) {   /* how far the decompressor has read the compressed file */
		uint64_t at = child_done(p->child, p->child_fd, -1);
		if (at > p->child_at)
			p->child_at = at;   /* (0 once it has ended: the last figure stands) */
		bytes = p->child_at;
	}
	if (p->unit) {
		if (bytes > p->total)
			p->total = bytes;   /* a header's count is a hint, not a promise */
		snprintf(pct, sizeof pct, "%.0f%%",
			 p->total ? 100.0 * (double)bytes / (double)p->total : 100.0);
		snprintf(detail, sizeof detail, "%s of %s %s", fmt_commas(a, bytes),
			 fmt_commas(b, p->total), p->unit);
	} else if (p->total) {
		snprintf(pct, sizeof pct, "%.0f%%", 100.0 * (double)bytes / (double)p->total);
		snprintf(detail, sizeof detail, "%s MiB of %s MiB%s", fmt_commas(a, bytes >> 20),
			 fmt_commas(b, p->total >> 20), p->child ? " compressed" : "");
	} else {   /* the size is not known (a pipe): the MiB read are the news */
		snprintf(pct, sizeof pct, "%s MiB", fmt_commas(a, bytes >> 20));
		detail[0] = 0;
	}
	char line[4608];
	size_t k = tool_progress_line(line, sizeof line, p->name, pct, detail, &p->widest);
	fwrite(line, 1, k, stderr);
}

void tool_progress_end(struct tool_progress *p)
{
	if (p->shown)
		tool_progress_clear(&p->widest);
	p->shown = 0;
}
