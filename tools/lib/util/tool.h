/* tool.h - what every command shares: its name in messages, --version, errors, numbers. */
#ifndef TOOL_H
#define TOOL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

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

/* 12,272,385,738 - into buf (>= 32 bytes), returns buf.  Async-signal-safe. */
char *fmt_commas(char *buf, unsigned long long v);

/* "NAME: offset N: what" into err (cap bytes), the shape of every reader's errors; returns -1
   so that readers can `return offset_error(...)`. */
int offset_error(char *err, size_t cap, const char *name, uint64_t off, const char *fmt, va_list ap);

/* Before writing OUT (not "-"): exit 2 if OUT is the same file as one of the n inputs (the
   output would destroy it), or, unless trace_ok, if OUT is an mtrace trace (trace2wl TRACE with
   the output name forgotten would replace the trace by its own workload).  Also exits 2 if OUT
   is a directory, a block device or a socket.  Returns the path to write: OUT, or the file OUT links to (renaming onto a symbolic link
   would replace the link). */
const char *tool_check_output(const char *out, char *const *inputs, int n, int trace_ok);
/* Is OUT written in place rather than under a temporary name renamed at the end: "-" (standard
   output), or an existing character device or pipe (/dev/null, /dev/stdout, a FIFO)? */
int tool_output_in_place(const char *out);
/* Its descriptor (1 for "-"); exits 3 if it cannot be opened, 2 if binary output would go to
   a terminal. */
int tool_open_in_place(const char *out, int binary);
/* path (its storage must last) is a temporary file of ours: removed at exit and when SIGINT,
   SIGTERM, SIGHUP or SIGPIPE ends the tool, until tool_temp_done(path) (renamed into place, or gone). */
void tool_temp_add(const char *path);
void tool_temp_done(const char *path);
/* Remove them now (async-signal-safe: for a handler of a fatal signal). */
void tool_remove_temps(void);
/* mkstemp(tmpl) for the temporary file an output (out) is written to before it is renamed into
   place, beside it: its descriptor, or -1 with a message in err (cap bytes) that names out,
   says it is that file, in out's directory, that cannot be made, and what to do (write
   elsewhere, or to standard output).  A writable output in a directory that is not is the
   case it is for. */
int tool_mkstemp_beside(const char *out, char *tmpl, char *err, size_t cap);
/* A new file $TMPDIR/<tool>.XXXXXX (else in /tmp), its name into path[cap]; its descriptor.
   Exits 3 on failure. */
int tool_mkstemp(char *path, size_t cap);
/* Give a new output file (made 0600 by mkstemp) the mode open() would: 0666 less the umask.
   Workloads, plots and logs hold no addresses; traces keep 0600, as capture makes them. */
void tool_output_mode(int fd);
/* Write all n bytes (EINTR retried; a write of 0 is ENOSPC): 0, or -1 with errno. */
int tool_write_all(int fd, const void *p, size_t n);
/* The same at offset at, with pwrite. */
int tool_pwrite_all(int fd, const void *p, size_t n, uint64_t at);
/* Copy the rest of fd in to fd out (short writes continued).  0, or -1 with errno. */
int tool_copy_fd(int in, int out);
/* Run the program args[0] (found in $PATH) with args, its standard input fd in, its standard
   output fd out, its complaints to /dev/null if quiet (our one error line says what failed);
   its pid, or -1 with errno.  tool_wait_ok: did it exit 0? */
pid_t tool_spawn(char *const args[], int in, int out, int quiet);
int tool_wait_ok(pid_t pid);
/* tool_wait_ok, showing progress p meanwhile if it is on (polled every 50 ms): how far the
   child is read from its descriptor child_fd's position (/proc/PID/fdinfo), or, if child_fd
   is -1, from the size of our descriptor fd, which it writes.  Ends the progress line. */
struct tool_progress;
int tool_wait_ok_progress(pid_t pid, struct tool_progress *p, int child_fd, int fd);
/* The Debian package that installs prog (a decompressor). */
const char *tool_package_of(const char *prog);

/* Can path be read only once: "-" (standard input), a pipe (bash's <(...)), a device? */
int tool_input_is_stream(const char *path);
/* From now on messages name path (a copy of an input: input.h), as: what the user gave ("-", a
   path; its storage must last) */
void tool_display_as(const char *path, const char *as);
/* How messages name path: "<stdin>" for standard input, what the user gave for a copy of an
   input, else path itself. */
const char *tool_display_name(const char *path);

/* Progress of a long read on stderr (progress.c), at most once a second: "NAME: 42% (512 MiB
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
void tool_progress_count(struct tool_progress *p, int on, uint64_t total, const char *name, const char *unit);
/* Count, instead of the bytes tool_progress is given, how far child pid (a decompressor) has
   read its descriptor child_fd, against total (the compressed file's size; 0: unknown, and
   nothing changes): "NAME: 42% (290 MiB of 700 MiB compressed)". */
void tool_progress_child(struct tool_progress *p, pid_t pid, int child_fd, uint64_t total);
void tool_progress(uint64_t bytes, void *arg);
void tool_progress_end(struct tool_progress *p);   /* clears the line */

/* The width of the terminal stderr shows on: its window's when stderr is a terminal (80 if it
   does not say), else $COLUMNS (stderr piped on to one, through tee), else 0: no limit. */
int tool_term_width(void);
/* The progress line "\rTOOL: NAME: PCT (DETAIL)" into line (cap bytes), no wider than the
   terminal less a column (one that fills the last column wraps on some terminals): NAME
   shortened in its middle ("..."), DETAIL ("" for none) left out if NAME would keep fewer than
   16 columns, the line cut as a last resort; spaces after it cover the rest of the widest line
   shown before (*widest columns, updated).  Its length in bytes.  Allocates nothing and uses
   no stdio: replay's sampler builds its line so while the allocator under test runs. */
size_t tool_progress_line(char *line, size_t cap, const char *name, const char *pct, const char *detail,
			  size_t *widest);
/* "\r", spaces over *widest columns (the terminal's width at most), "\r", with write(2);
   *widest becomes 0.  As tool_progress_line, no allocation. */
void tool_progress_clear(size_t *widest);

/* Is prog an executable in $PATH? */
int tool_on_path(const char *prog);
/* An output file written whole or not at all: under a temporary name beside path (kept in
   tmp, 4300 bytes; removed if the tool exits first), made path by tool_output_finish.  A
   character device or FIFO (tool_output_in_place) is written as it goes, tmp left empty.
   Exits 3 when it cannot be created. */
#define TOOL_TMP_CAP 4300
int  tool_output_open(const char *path, char *tmp);
/* Close fd and rename it into place; write_errno, if not 0, is an earlier failed write.
   Exits 3 on any failure (the temporary file is then removed). */
void tool_output_finish(const char *path, int fd, char *tmp, int write_errno);

/* Do paths a and b name one existing file (by any name)?  "-" (standard input) names none. */
int tool_same_file(const char *a, const char *b);

/* s as a JSON string, quotes included (", \ and control characters escaped: a file or
   library name may hold any of them). */
void print_json_string(FILE *f, const char *s);
/* s as a CSV field (RFC 4180): quoted, quotes doubled, when it holds a comma, quote or line
   break. */
void print_csv_field(FILE *f, const char *s);
/* Split a CSV line into its fields, in place, as print_csv_field writes them (quotes removed,
   empty fields kept); at most max are stored.  Returns how many were stored. */
int csv_split(char *line, char **fields, int max);
/* s for a TSV field: tabs and line breaks become spaces. */
void print_tsv_field(FILE *f, const char *s);

/* a * b / c (c > 0) without overflowing in between (the result saturates at UINT64_MAX) */
static inline uint64_t mul_div_u64(uint64_t a, uint64_t b, uint64_t c)
{
#if defined(__SIZEOF_INT128__)
	unsigned __int128 q = (unsigned __int128)a * b / c;
	return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
#else
	uint64_t p;
	if (!__builtin_mul_overflow(a, b, &p))
		return p / c;
	long double q = (long double)a * (long double)b / (long double)c;   /* (32-bit targets) */
	return q >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)q;
#endif
}

/* Parse an unsigned decimal; 0 or -1 if it is not one. */
int parse_u64(const char *s, uint64_t *out);

#endif
