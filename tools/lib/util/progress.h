/* progress.h - the progress line of a long read, a child's work or a replay, on stderr. */
#ifndef PROGRESS_H
#define PROGRESS_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* Progress of a long read on stderr , at most once a second: "NAME: 42% (512 MiB
   of 1,220 MiB)", or the MiB read when the size is not known (a pipe).  tool_progress fits the
   trace reader's progress hook.  Every line fits the terminal (tool_progress_line). */
struct tool_progress {
	int on, shown;
	uint64_t total;
	time_t last;
	const char *name, *unit;
	size_t widest;                /* columns of the widest line shown */
	pid_t child;                  /* tool_progress_child's */
	int child_fd;
	uint64_t child_at;
};
/* on: 1 when stderr is a terminal (shown from the first second on), 2 forced (-p: from the
   start); fd: the input, to learn its size (-1: unknown) */
void tool_progress_start(struct tool_progress *p, int on, int fd, const char *name);
/* The same for work counted in units other than bytes: "NAME: 42% (N of TOTAL UNIT)" */
void tool_progress_count(struct tool_progress *p, int on, uint64_t total, const char *name,
			 const char *unit);
/* Count, instead of the bytes tool_progress is given, how far child pid (a decompressor) has
   read its descriptor child_fd, against total (the compressed file's size; 0: unknown, and
   nothing changes): "NAME: 42% (290 MiB of 700 MiB compressed)". */
void tool_progress_child(struct tool_progress *p, pid_t pid, int child_fd, uint64_t total);
void tool_progress(uint64_t bytes, void *arg);
void tool_progress_end(struct tool_progress *p);   /* clears the line */

/* The progress line "\rTOOL: NAME: PCT (DETAIL)" into line (cap bytes), no wider than the
   terminal less a column (one that fills the last column wraps on some terminals): NAME
   shortened in its middle ("..."), DETAIL ("" for none) left out if NAME would keep fewer than
   16 columns, the line cut as a last resort; spaces after it cover the rest of the widest line
   shown before (*widest columns, updated).  Its length in bytes.  Allocates nothing and uses
   no stdio: replay's sampler builds its line so while the allocator under test runs. */
size_t tool_progress_line(char *line, size_t cap, const char *name, const char *pct,
			  const char *detail, size_t *widest);
/* "\r", spaces over *widest columns (the terminal's width at most), "\r", with write(2);
   *widest becomes 0.  As tool_progress_line, no allocation. */
void tool_progress_clear(size_t *widest);

/* tool_wait_ok, showing progress p meanwhile if it is on (polled every 50 ms): how far the
   child is read from its descriptor child_fd's position (/proc/PID/fdinfo), or, if child_fd
   is -1, from the size of our descriptor fd, which it writes.  Ends the progress line. */
int tool_wait_ok_progress(pid_t pid, struct tool_progress *p, int child_fd, int fd);
#endif
