/* tool.c - messages, version and number helpers shared by every command. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "mtrace-trace.h"
#include "tool.h"

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

static void vwarn(const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: ", tool_name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
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

void tool_version(void)
{
	printf("%s (mtrace) %s\n", tool_name, MTRACE_PKG_VERSION);
	exit(EXIT_OK);
}

char *fmt_commas(char *buf, unsigned long long v)
{
	char tmp[32];
	int n = 0, o = 0;
	do   /* digits by hand, not snprintf: trace_run's crash handler calls this */
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	for (int i = 0; i < n / 2; i++) {
		char c = tmp[i];
		tmp[i] = tmp[n - 1 - i];
		tmp[n - 1 - i] = c;
	}
	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = 0;
	return buf;
}

int offset_error(char *err, size_t cap, const char *name, uint64_t off, const char *fmt, va_list ap)
{
	char what[400];
	vsnprintf(what, sizeof what, fmt, ap);
	snprintf(err, cap, "%s: offset %llu: %s", name, (unsigned long long)off, what);
	return -1;
}

int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

/* ---------------------------------------------------------------------------------------------
   Temporary files: removed at exit and when SIGINT, SIGTERM, SIGHUP or SIGPIPE ends the tool, so that
   an interrupted run leaves nothing behind (finished outputs are renamed into place first)
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

pid_t tool_spawn(char *const args[], int in, int out, int quiet)
{
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	if (in != 0)
		dup2(in, 0);   /* (dup2 clears O_CLOEXEC on the copy) */
	if (out != 1)
		dup2(out, 1);
	int devnull = quiet ? open("/dev/null", O_WRONLY) : -1;
	if (devnull >= 0)
		dup2(devnull, 2);
	execvp(args[0], args);
	_exit(127);
}

int tool_wait_ok(pid_t pid)
{
	int st = 0;
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

const char *tool_package_of(const char *prog)
{
	return strcmp(prog, "xz") == 0 ? "xz-utils" : prog;
}

int tool_input_is_stream(const char *path)
{
	struct stat st;
	if (!strcmp(path, "-"))
		return 1;
	return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

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

int tool_on_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];
	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t len = colon ? (size_t)(colon - path) : strlen(path);
		snprintf(buf, sizeof buf, "%.*s/%s", (int)len, path, prog);
		if (access(buf, X_OK) == 0)
			return 1;
		path += len + (colon != NULL);
	}
	return 0;
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

void print_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

void print_csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	fputc('"', f);
}

int csv_split(char *line, char **fields, int max)
{
	int n = 0;
	char *p = line;
	for (;;) {
		char *out = p;
		if (n < max)
			fields[n] = out;
		n++;
		if (*p == '"') {   /* quoted: "" is a quote, and commas are the field's */
			for (p++; *p && !(*p == '"' && p[1] != '"'); p++)
				*out++ = *p == '"' ? *++p : *p;
			if (*p == '"')
				p++;
		}
		while (*p && *p != ',')
			*out++ = *p++;
		if (!*p) {
			*out = 0;
			return n < max ? n : max;
		}
		*out = 0;   /* (out <= p: a field only shrinks) */
		p++;
	}
}

void print_tsv_field(FILE *f, const char *s)
{
	for (const char *p = s; *p; p++)
		fputc(*p == '\t' || *p == '\n' || *p == '\r' ? ' ' : *p, f);
}
