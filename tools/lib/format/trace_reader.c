/* trace_reader.c - opening a trace and handing out its records (format: include/mtrace-trace.h).
 * The reader's other files: trace_input.c and trace_map.c (the input), trace_header.c,
 * trace_record.c (checks), trace_slots.c (version 3), trace_dj.c (dj/malloc traces). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "dj_wl.h"
#include "hint.h"
#include "input.h"
#include "msg.h"
#include "mtrace-workload.h"
#include "trace_follow.h"
#include "trace_reader_int.h"

int trace_reader_decompress = 1;
const char *trace_reader_wants = "a trace";

int trace_fail(struct trace_reader *r, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	offset_error(&r->err, r->name, off, fmt, ap);
	va_end(ap);
	return -1;
}

/* ---------------------------------------------------------------------------------------------
   Opening: the header, or what the file is instead
   ------------------------------------------------------------------------------------------- */

/* Does a file beginning so hold a workload (ours or dj/malloc's) rather than a trace? */
static int is_workload(const unsigned char *b, size_t n)
{
	return (n >= MTRACE_WL_MAGIC_LEN && !memcmp(b, MTRACE_WL_MAGIC, MTRACE_WL_MAGIC_LEN)) ||
	       dj_wl_head(b, n);
}

#define WORKLOAD_NOT_TRACE "a workload, not a trace (trace_run replays it, trace_dump prints it)"

const char *trace_head_check(const unsigned char *b, size_t n)
{
	if ((n >= MTRACE_MAGIC_LEN && !memcmp(b, MTRACE_MAGIC, MTRACE_MAGIC_LEN)) ||
	    trace_dj_is(b, n))
		return NULL;
	return is_workload(b, n) ? WORKLOAD_NOT_TRACE : "not an mtrace trace (bad magic)";
}

static void copy_string(char *dst, size_t cap, const unsigned char *src, uint32_t len, int args)
{
	size_t n = len < cap - 1 ? len : cap - 1;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = src[i];
		dst[i] = (char)(c == 0 && args ? ' ' : (c < 32 || c == 127) ? '?' : c);
	}
	while (n > 0 && dst[n - 1] == ' ')
		n--;
	dst[n] = 0;
}

/* argv0 from the first argument: its file name; a program that wrote a title over its
   arguments (redis-server's "redis-server *:6379", setproctitle) is named by the title's first
   word, unless the executable's own name is the argument's (a path with a space) */
static void name_as_run(struct trace_reader *r, const char *arg)
{
	const char *exe = strrchr(r->exe, '/') ? strrchr(r->exe, '/') + 1 : r->exe;
	const char *base = strrchr(arg, '/') ? strrchr(arg, '/') + 1 : arg;
	size_t n = strlen(arg);
	if (strchr(arg, ' ') && strcmp(base, exe)) {
		n = strcspn(arg, " ");
		base = arg;
		for (const char *c = arg; c < arg + n; c++)
			if (*c == '/')
				base = c + 1;
	}
	snprintf(r->argv0, sizeof r->argv0, "%.*s", (int)(arg + n - base), base);
}

/* The command line (len bytes at src, each argument ended by a NUL) as a shell would take it
   back: arguments quoted where they need it, an empty one as ''; and the first one's file name
   into argv0 */
static void copy_args(struct trace_reader *r, const unsigned char *src, uint32_t len)
{
	char arg[sizeof r->cmdline], word[sizeof r->cmdline + 16];
	size_t at = 0;
	r->cmdline[0] = r->argv0[0] = 0;
	for (uint32_t i = 0, n = 0; i < len; i = n + 1) {
		for (n = i; n < len && src[n]; n++)
			;
		if (n == len && n == i)
			break;   /* (no argument after the last NUL) */
		copy_string(arg, sizeof arg, src + i, n - i, 0);
		if (i == 0)
			name_as_run(r, arg);
		hint_shell_word(word, sizeof word, arg);
		int k = snprintf(r->cmdline + at, sizeof r->cmdline - at, "%s%s", at ? " " : "",
				 word);
		if (k < 0 || (size_t)k >= sizeof r->cmdline - at)
			break;   /* (a long command line is cut at an argument) */
		at += (size_t)k;
	}
}

/* The header of r, whose fd, name and first bytes in r->buf are set: 0, or -1 with r->err */
static int open_input(struct trace_reader *r)
{
	ssize_t have = trace_fill(r, sizeof r->hdr);
	if (have < 0)
		return trace_read_failed(r);
	if (have == 0)
		return trace_fail(r, 0, "empty file, not a trace");
	const char *comp = input_compression(r->buf, (size_t)have);
	if (comp) {
		if (!trace_reader_decompress)
			return trace_fail(r, 0, "%s-compressed (decompression is off)", comp);
		if (trace_decompress(r, comp, (size_t)have) < 0)
			return -1;
		have = trace_fill(r, sizeof r->hdr);
		if (have < 0)
			return trace_read_failed(r);
		if (have == 0)
			return trace_fail(r, 0, "%s-compressed file holds nothing%s", comp,
					  trace_child_failed(r) ? " (or is corrupt)" : "");
	}
	if (trace_dj_is(r->buf, (size_t)have))
		return trace_dj_open(r);
	if (is_workload(r->buf, (size_t)have)) {
		r->format = TRACE_FMT_WORKLOAD;
		return trace_fail(r, 0, WORKLOAD_NOT_TRACE);
	}
	char hint[600];   /* a text file, a glibc mtrace() log: said so, not "bad magic" */
	if (hint_text(r->buf, (size_t)have, r->name, trace_reader_wants, hint, sizeof hint))
		return trace_fail(r, 0, "%s", hint);
	if ((size_t)have < sizeof r->hdr)
		return trace_fail(r, (uint64_t)have, "truncated header (%zd bytes, a header has "
				  "at least %zu)", have, sizeof r->hdr);
	memcpy(&r->hdr, r->buf, sizeof r->hdr);
	if (memcmp(r->hdr.magic, MTRACE_MAGIC, MTRACE_MAGIC_LEN) == 0 &&
	    r->hdr.byte_order_mark == __builtin_bswap32(MTRACE_BYTE_ORDER_MARK)) {
		r->swap = 1;
		trace_swap_header(&r->hdr);
	}
	struct tool_err bad;
	uint64_t at;
	if (trace_header_check(&r->hdr, &at, &bad) < 0)
		return trace_fail(r, at, "%s", bad.msg);
	have = trace_fill(r, r->hdr.header_size);
	if (have < 0)
		return trace_read_failed(r);
	if ((size_t)have < r->hdr.header_size)
		return trace_fail(r, (uint64_t)have, "truncated header (%zd of %u bytes)", have,
			    (unsigned)r->hdr.header_size);
	copy_string(r->exe, sizeof r->exe, r->buf + r->hdr.exe_offset, r->hdr.exe_len, 0);
	copy_args(r, r->buf + r->hdr.cmdline_offset, r->hdr.cmdline_len);
	trace_settings_read(r->buf + r->hdr.settings_offset, r->hdr.settings_len, r->settings,
			    sizeof r->settings, r->settings_set, sizeof r->settings_set);
	/* and the program's mallopt calls, as a --compare column takes them */
	for (int i = 0; i < MTRACE_MALLOPT_PARAMS; i++)
		if (r->hdr.mallopt_set & (1u << i)) {
			char one[64];
			snprintf(one, sizeof one, "%s=%d", mtrace_mallopt_params[i].name,
				 (int)r->hdr.mallopt_value[i]);
			size_t n = strlen(r->settings), k = strlen(r->settings_set);
			snprintf(r->settings + n, sizeof r->settings - n, "%s%s", n ? " " : "", one);
			snprintf(r->settings_set + k, sizeof r->settings_set - k, "%s%s",
				 k ? " " : "", one);
		}
	copy_string(r->allocator, sizeof r->allocator, r->buf + r->hdr.allocator_offset,
		    r->hdr.allocator_len, 0);
	r->buf_pos = r->hdr.header_size;
	r->offset = r->hdr.header_size;
	/* records can be handed out in place: host order, the record size we read, and pointers
	   that need no width check (buffer positions stay multiples of 8 from its aligned start) */
	r->fast = !r->swap && r->hdr.version < 3 && r->hdr.record_size == MTRACE_RECORD_SIZE &&
		  r->hdr.pointer_size == 8;
	if ((r->slots = r->hdr.version >= 3)) {
		r->dec = malloc(TRACE_DEC * sizeof *r->dec);
		r->dec_offs = malloc(TRACE_DEC * sizeof *r->dec_offs);
		if (!r->dec || !r->dec_offs)
			return trace_fail(r, 0, "out of memory");
	}
	return 0;
}

/* r reading fd (closed by trace_close, or once a decompressor reads it, if own), whose first
   n bytes at head are read already: its header read, as trace_open */
static int open_fd(struct trace_reader *r, int fd, int own, const char *name,
		   const unsigned char *head, size_t n)
{
	memset(r, 0, sizeof *r);
	r->name = name;
	r->fd = fd;
	r->own_fd = own;
	r->buf = r->rbuf = malloc(READ_BUF);
	if (r->buf == NULL)
		return trace_fail(r, 0, "out of memory");
	if (n)
		memcpy(r->buf, head, n);
	r->buf_len = n;
	r->bytes_read = n;
	return open_input(r);
}

int trace_open_stream(struct trace_reader *r, int fd, const char *name, const unsigned char *head,
		      size_t n, trace_tee_fn *tee, void *tee_arg)
{
	if (open_fd(r, fd, 0, name, head, n) < 0)
		return -1;
	/* the buffer holds the trace's first bytes (plain): from there on the reads */
	r->tee = tee;
	r->tee_arg = tee_arg;
	if (tee && tee(tee_arg, r->buf, r->buf_len) < 0) {
		r->failed = 1;
		return trace_fail(r, 0, "its copy failed");
	}
	return 0;
}

int trace_open(struct trace_reader *r, const char *path)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0) {
		memset(r, 0, sizeof *r);
		return tool_fail(&r->err, EXIT_BADFILE, "%s: %s", path, strerror(errno));
	}
	if (open_fd(r, fd, fd != 0, tool_display_name(path), NULL, 0) < 0)
		return -1;
	trace_map_start(r);
	return 0;
}

int trace_open_follow(struct trace_reader *r, const char *path, unsigned poll_ms,
		      unsigned idle_ms)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		int e = fd < 0 ? errno : EINVAL;
		if (fd >= 0)
			close(fd);
		memset(r, 0, sizeof *r);
		return tool_fail(&r->err, fd < 0 ? EXIT_BADFILE : EXIT_USAGE, "%s: %s", path,
				 fd < 0 ? strerror(e) : "not a plain file: only a file being "
				 "written can be followed");
	}
	if (open_fd(r, fd, 1, tool_display_name(path), NULL, 0) < 0)
		return -1;
	if (r->format != TRACE_FMT_MTRACE || r->compression || !r->slots)
		return trace_fail(r, 0, "%s: only a trace being written (version 3 or later, not "
				  "compressed) can be followed", r->compression ? r->compression :
				  r->format == TRACE_FMT_DJ ? "a dj/malloc trace" : "an older version");
	/* what was read past the header may not be final: read it again once it is */
	if (lseek(fd, r->hdr.header_size, SEEK_SET) < 0)
		return trace_read_failed(r);
	r->buf_len = r->buf_pos;
	r->bytes_read = r->hdr.header_size;
	r->follow = trace_follow_new(fd, &r->hdr, r->swap, idle_ms);
	r->follow_ms = poll_ms;
	if (!r->follow)
		return trace_fail(r, 0, "out of memory");
	return 0;
}

int trace_unwritten(struct trace_reader *r, uint64_t at, unsigned n)
{
	r->unwritten_bytes += n;
	if (at < r->hdr.reset_off)
		return 0;   /* (what a reset discarded: zeros as long as the trace was) */
	if (at != r->run_end)
		r->run_start = at;
	r->run_end = at + n;
	if (r->run_end - r->run_start <= MTRACE_UNWRITTEN_RUN_MAX)
		return 0;
	r->failed = 1;
	return trace_fail(r, r->run_start, "more than %llu MiB of zeros (unwritten records) from "
			  "here on: not a trace, which has %llu MiB of them in a row at most",
			  (unsigned long long)(MTRACE_UNWRITTEN_RUN_MAX >> 20),
			  (unsigned long long)(MTRACE_UNWRITTEN_RUN_MAX >> 20));
}

/* ---------------------------------------------------------------------------------------------
   Records
   ------------------------------------------------------------------------------------------- */

int trace_next_slow(struct trace_reader *r, const struct mtrace_record **out, uint64_t *off)
{
	if (r->slots)
		return trace_next_ref(r, out, off);
	size_t rs = r->hdr.record_size;
	struct mtrace_record *rec = &r->scratch;
	for (;;) {
		ssize_t have = trace_fill_record(r, rs);
		if (have < 0)
			return -1;
		if (have == 0) {
			if (trace_input_failed(r) < 0)
				return -1;
			return 0;
		}
		if ((size_t)have < rs) {
			if (trace_input_failed(r) < 0)
				return -1;
			return trace_fail(r, r->offset, "truncated record (%zd of %zu bytes)", have,
					  rs);
		}
		const unsigned char *p = r->buf + r->buf_pos;
		uint64_t at = r->offset;
		r->buf_pos += rs;
		r->offset += rs;
		if (r->format == TRACE_FMT_DJ) {
			const char *bad = NULL;
			int k = trace_dj_convert(r, p, rec, &bad);
			if (k < 0)
				return trace_fail(r, at, "%s %u", bad, (unsigned)(p[4]));
			if (k == 0 && p[4] == 0 && trace_unwritten(r, at, (unsigned)rs) < 0)
				return -1;   /* (an unused record: type 0) */
			if (k == 0)
				continue;
			r->n_written++;
			if (off)
				*off = at;
			*out = rec;
			return 1;
		}
		memcpy(rec, p, sizeof *rec);
		if (rec->call == MTRACE_CALL_UNWRITTEN) {
			if (trace_unwritten(r, at, (unsigned)rs) < 0)
				return -1;
			r->n_unwritten++;
			for (size_t i = 0; i < rs; i++)
				if (p[i]) {
					r->n_torn++;
					break;
				}
			continue;
		}
		if (r->swap)
			trace_swap_record(rec);
		if (trace_record_check(r, rec, at) < 0)
			return -1;
		if (rec->call == MTRACE_CALL_CHUNK)
			trace_chunk_seen(r, rec, at);
		r->n_written++;
		if (off)
			*off = at;
		*out = rec;
		return 1;
	}
}

int trace_next(struct trace_reader *r, struct mtrace_record *rec, uint64_t *off)
{
	const struct mtrace_record *p;
	int k = trace_next_ref(r, &p, off);
	if (k > 0)
		*rec = *p;
	return k;
}

void trace_close(struct trace_reader *r)
{
	if ((r->own_fd || r->decomp.child) && r->fd >= 0)
		close(r->fd);
	input_reap(&r->decomp, 1);   /* (we may stop reading early) */
	trace_map_end(r);
	free(r->rbuf);
	free(r->dec);
	free(r->dec_offs);
	trace_follow_free(r->follow);
	r->follow = NULL;
	free(r->ext);
	r->ext = NULL;
	r->dec = NULL;
	r->dec_offs = NULL;
	r->buf = r->rbuf = NULL;
	r->fd = -1;
}

double trace_seconds(const struct trace_reader *r, uint64_t ticks)
{
	return (double)(int64_t)(ticks - r->hdr.start_ticks) / (double)r->hdr.ticks_per_sec;
}
