/* trace_reader.c - reading and validating trace files (format: include/mtrace-trace.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "dj_wl.h"
#include "hint.h"
#include "input.h"
#include "mtrace-workload.h"
#include "tool.h"
#include "trace_reader.h"

#define READ_BUF (256u << 10)
#define TRACE_DEC 512   /* version 3: records decoded at a time */

int trace_reader_decompress = 1;
const char *trace_reader_wants = "a trace";

static int fail(struct trace_reader *r, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	offset_error(r->err, sizeof r->err, r->name, off, fmt, ap);
	va_end(ap);
	return -1;
}

/* ---------------------------------------------------------------------------------------------
   Byte order
   ------------------------------------------------------------------------------------------- */

void trace_swap_header(struct mtrace_file_header *h)
{
	MTRACE_SWAP(h->byte_order_mark);
	MTRACE_SWAP(h->version);
	MTRACE_SWAP(h->header_size);
	MTRACE_SWAP(h->record_size);
	MTRACE_SWAP(h->flags);
	MTRACE_SWAP(h->ticks_per_sec);
	MTRACE_SWAP(h->start_time_ns);
	MTRACE_SWAP(h->start_ticks);
	MTRACE_SWAP(h->pid);
	MTRACE_SWAP(h->ppid);
	MTRACE_SWAP(h->exe_offset);
	MTRACE_SWAP(h->exe_len);
	MTRACE_SWAP(h->cmdline_offset);
	MTRACE_SWAP(h->cmdline_len);
	MTRACE_SWAP(h->stop_ticks);
	MTRACE_SWAP(h->calls_recorded);
	MTRACE_SWAP(h->stop_reason);
	MTRACE_SWAP(h->stop_errno);
	MTRACE_SWAP(h->settings_offset);
	MTRACE_SWAP(h->settings_len);
	MTRACE_SWAP(h->allocator_offset);
	MTRACE_SWAP(h->allocator_len);
	MTRACE_SWAP(h->mallopt_set);
	for (int i = 0; i < MTRACE_MALLOPT_PARAMS; i++)
		MTRACE_SWAP(h->mallopt_value[i]);
	MTRACE_SWAP(h->memory_interval_ms);
	MTRACE_SWAP(h->resident_min);
	MTRACE_SWAP(h->reset_off);
	MTRACE_SWAP(h->start_threads);
	MTRACE_SWAP(h->window);
}

void trace_swap_record(struct mtrace_record *rec)
{
	MTRACE_SWAP(rec->tid);
	MTRACE_SWAP(rec->err);
	MTRACE_SWAP(rec->ts);
	MTRACE_SWAP(rec->ptr);
	MTRACE_SWAP(rec->result);
	MTRACE_SWAP(rec->size);
	MTRACE_SWAP(rec->arg2);
	MTRACE_SWAP(rec->usable);
	MTRACE_SWAP(rec->duration);
}

/* ---------------------------------------------------------------------------------------------
   Mapped input: a plain file's records are read where the page cache holds them, in windows,
   instead of being copied by read() (a sixth of trace2wl's time).  A file that shrinks under a
   window (truncated by another process) would raise SIGBUS on the next load: the handler puts
   zero pages there instead, which read as unwritten records, and the reader reports the file
   as having shrunk at its next refill.
   ------------------------------------------------------------------------------------------- */

#define MAX_MAPPED   8              /* readers with a window at once */

uint64_t trace_reader_map_min = 4u << 20;     /* smaller files are read: mapping costs more */
uint64_t trace_reader_map_window = 1u << 20;  /* bytes mapped at a time */

static struct trace_reader *volatile mapped[MAX_MAPPED];
static struct sigaction sigbus_old;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	unsigned char *at = si->si_addr;
	for (int i = 0; i < MAX_MAPPED; i++) {
		struct trace_reader *r = mapped[i];
		if (!r || at < r->map || at >= r->map + r->map_len)
			continue;
		unsigned char *page = (unsigned char *)((uintptr_t)at & ~(uintptr_t)(getpagesize() - 1));
		size_t len = (size_t)(r->map + r->map_len - page);
		if (mmap(page, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
			break;
		r->shrunk = 1;
		return;   /* the load is made again, and reads zeros */
	}
	/* not ours: whoever handled it before (by default, the core dump) gets the fault again */
	sigaction(sig, &sigbus_old, NULL);
}

/* Read r's records in place from now on.  0, or -1 (it is read as before). */
static int map_register(struct trace_reader *r)
{
	static int installed;
	if (!installed) {
		struct sigaction sa = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO };
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGBUS, &sa, &sigbus_old) < 0)
			return -1;
		installed = 1;
	}
	for (int i = 0; i < MAX_MAPPED; i++)
		if (mapped[i] == NULL) {
			mapped[i] = r;
			r->map_mode = 1;
			return 0;
		}
	return -1;
}

static void unmap_window(struct trace_reader *r)
{
	if (r->map) {
		unsigned char *m = r->map;
		r->map = NULL;   /* (first: the handler no longer claims its addresses) */
		munmap(m, r->map_len);
		r->map_len = 0;
	}
}

/* Back to reading: at the end, or when a window cannot be mapped. */
static void map_end(struct trace_reader *r)
{
	if (!r->map_mode)
		return;
	for (int i = 0; i < MAX_MAPPED; i++)
		if (mapped[i] == r)
			mapped[i] = NULL;
	unmap_window(r);
	r->map_mode = 0;
	r->buf = r->rbuf;
	r->buf_len = r->buf_pos = 0;
}

/* After the header: read the records in place if the input is a plain file of some size whose
   records need no conversion (a window is handed out as it is). */
static void map_start(struct trace_reader *r)
{
	struct stat st;
	if (!(r->fast || r->slots) || r->child || fstat(r->fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size < trace_reader_map_min || map_register(r) < 0)
		return;
	r->buf_len = r->buf_pos;   /* the next fill maps from offset on */
}

/* fill() of a mapped file: a window from the page that holds offset.  -2: mapping failed,
   read from here on. */
static ssize_t fill_mapped(struct trace_reader *r, size_t want)
{
	if (r->shrunk)
		return (ssize_t)(r->buf_len - r->buf_pos);   /* (trace_next_slow reports it) */
	struct stat st;
	if (fstat(r->fd, &st) < 0)
		return -1;
	uint64_t off = r->offset, size = (uint64_t)st.st_size;
	uint64_t start = off & ~(uint64_t)(getpagesize() - 1);
	if (size <= off) {
		r->eof = 1;   /* (what remains, less than a record, is the caller's to report) */
		return (ssize_t)(r->buf_len - r->buf_pos);
	}
	uint64_t len = off - start + want, win = trace_reader_map_window;
	if (len < win)
		len = win;
	if (len > size - start)
		len = size - start;
	/* the window's records, and the first of the next window's mapped as well: their lines
	   can be loaded ahead (trace_ahead) before the window moves on */
	uint64_t maplen = size - start - len < TRACE_MAP_AHEAD ? size - start : len + TRACE_MAP_AHEAD;
	unmap_window(r);
	/* populated: the scan's prefetches are dropped where no page is mapped yet */
	void *m = mmap(NULL, (size_t)maplen, PROT_READ, MAP_SHARED | MAP_POPULATE, r->fd, (off_t)start);
	if (m == MAP_FAILED) {
		map_end(r);
		return lseek(r->fd, (off_t)off, SEEK_SET) < 0 ? -1 : -2;
	}
	r->map_len = (size_t)maplen;
	r->map = m;
	r->buf = m;
	r->buf_pos = (size_t)(off - start);
	r->buf_len = (size_t)len;
	r->bytes_read = start + len;
	if (r->progress)
		r->progress(r->bytes_read, r->progress_arg);
	return (ssize_t)(r->buf_len - r->buf_pos);
}

/* ---------------------------------------------------------------------------------------------
   Buffered input
   ------------------------------------------------------------------------------------------- */

/* Make at least want bytes available (fewer only at end of file).  Returns what is available,
   or -1 on a read error. */
static ssize_t fill(struct trace_reader *r, size_t want)
{
	if (r->buf_len - r->buf_pos >= want || r->eof)
		return (ssize_t)(r->buf_len - r->buf_pos);
	if (r->map_mode) {
		ssize_t k = fill_mapped(r, want);
		if (k != -2)
			return k;
	}
	memmove(r->buf, r->buf + r->buf_pos, r->buf_len - r->buf_pos);
	r->buf_len -= r->buf_pos;
	r->buf_pos = 0;
	while (r->buf_len < want && !r->eof) {
		ssize_t n = read(r->fd, r->buf + r->buf_len, READ_BUF - r->buf_len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			r->eof = 1;
		r->buf_len += (size_t)n;
		r->bytes_read += (uint64_t)n;
		if (r->progress)
			r->progress(r->bytes_read, r->progress_arg);
	}
	return (ssize_t)r->buf_len;
}

/* ---------------------------------------------------------------------------------------------
   Compressed input: the external program decompresses into a pipe
   ------------------------------------------------------------------------------------------- */

/* Decompress our input, whose first have bytes are in r->buf, through prog into a pipe
   (input.h). */
static int start_decompressor(struct trace_reader *r, const char *prog, size_t have)
{
	char err[300];
	pid_t child, feeder;
	struct stat st;
	if (fstat(r->fd, &st) == 0 && S_ISREG(st.st_mode))
		r->compressed_size = (uint64_t)st.st_size;
	int fd = input_decompress(prog, r->fd, r->buf, have, &child, &feeder, err, sizeof err);
	if (fd < 0)
		return fail(r, 0, "%s", err);
	if (r->own_fd)
		close(r->fd);
	r->fd = fd;
	r->child = child;
	r->feeder = feeder;
	r->compression = prog;
	r->buf_len = r->buf_pos = 0;
	r->eof = 0;
	return 0;
}

void trace_progress_start(struct tool_progress *p, int on, const struct trace_reader *r)
{
	tool_progress_start(p, on, r->child ? -1 : r->fd, r->name);
	if (r->child && !r->feeder)   /* (it reads the file itself: its standard input) */
		tool_progress_child(p, r->child, 0, r->compressed_size);
}

/* After end of input: did the decompressor fail?  Reaps it. */
static int child_failed(struct trace_reader *r)
{
	pid_t child = r->child, feeder = r->feeder;
	int failed = input_reap(&child, &feeder, 0);
	r->child = r->feeder = 0;
	return failed;
}

/* ---------------------------------------------------------------------------------------------
   Original dj/malloc traces: int32 thread; uint32 type (low 8 bits); void *ptr1, *ptr2;
   size_t size, size2, size3, pad[2]; the first record is type 255 with ptr1 = 0x1234 and
   size = sizeof(void *).  Native byte order, 64-bit.
   ------------------------------------------------------------------------------------------- */

struct dj_record {
	int32_t thread;
	uint32_t type;
	uint64_t ptr1, ptr2, size, size2, size3, pad[2];
};

static int is_dj(const unsigned char *b, size_t n)
{
	struct dj_record d;
	if (n < sizeof d)
		return 0;
	memcpy(&d, b, sizeof d);
	return (d.type & 0xff) == 255 && d.ptr1 == 0x1234 && d.size == 8;
}

/* Does a file beginning so hold a workload (ours or dj/malloc's) rather than a trace? */
static int is_workload(const unsigned char *b, size_t n)
{
	return (n >= MTRACE_WL_MAGIC_LEN && !memcmp(b, MTRACE_WL_MAGIC, MTRACE_WL_MAGIC_LEN)) || dj_wl_head(b, n);
}

#define WORKLOAD_NOT_TRACE "a workload, not a trace (trace_run replays it, trace_dump prints it)"

const char *trace_head_check(const unsigned char *b, size_t n)
{
	if ((n >= MTRACE_MAGIC_LEN && !memcmp(b, MTRACE_MAGIC, MTRACE_MAGIC_LEN)) || is_dj(b, n))
		return NULL;
	return is_workload(b, n) ? WORKLOAD_NOT_TRACE : "not an mtrace trace (bad magic)";
}

static int open_dj(struct trace_reader *r)
{
	r->format = TRACE_FMT_DJ;
	memset(&r->hdr, 0, sizeof r->hdr);
	memcpy(r->hdr.magic, MTRACE_MAGIC, MTRACE_MAGIC_LEN);
	r->hdr.byte_order_mark = MTRACE_BYTE_ORDER_MARK;
	r->hdr.version = MTRACE_FORMAT_VERSION;
	r->hdr.record_size = sizeof(struct dj_record);
	r->hdr.pointer_size = 8;
	r->hdr.clock = MTRACE_CLOCK_NONE;   /* no clock: ts is the record index */
	r->hdr.ticks_per_sec = 1;
	r->offset = 0;
	return 0;
}

/* One dj record as an mtrace record; 0 to skip it, -1 if it is bad. */
static int dj_convert(struct trace_reader *r, const unsigned char *p, struct mtrace_record *rec, const char **bad)
{
	struct dj_record d;
	memcpy(&d, p, sizeof d);
	unsigned type = d.type & 0xff;
	memset(rec, 0, sizeof *rec);
	rec->tid = (uint32_t)d.thread;
	rec->ts = r->seq++;
	switch (type) {
	case 0: case 255:
		return 0;   /* unused slot; the magic record */
	case 1: case 6: case 7:           /* malloc, valloc, pvalloc: ptr2 = f(size) */
		rec->size = d.size;
		rec->result = d.ptr2;
		break;
	case 2:                           /* calloc: size is the total */
		rec->size = d.size;
		rec->arg2 = 1;
		rec->result = d.ptr2;
		break;
	case 3:
		rec->ptr = d.ptr1;
		break;
	case 4:
		rec->ptr = d.ptr1;
		rec->result = d.ptr2;
		rec->size = d.size;
		break;
	case 5:                           /* memalign: size2 = alignment */
		rec->size = d.size;
		rec->arg2 = d.size2;
		rec->result = d.ptr2;
		break;
	case 8:                           /* posix_memalign: ptr1 = return value */
		rec->size = d.size;
		rec->arg2 = d.size2;
		rec->err = (uint16_t)d.ptr1;
		rec->result = d.ptr1 ? 0 : d.ptr2;
		if (d.ptr1)
			rec->flags |= MTRACE_RF_FAILED;
		break;
	default:
		*bad = "unknown dj record type";
		return -1;
	}
	rec->call = (uint8_t)type;
	if (type != 3 && type != 8 && rec->result == 0 && !(type == 4 && d.size == 0 && d.ptr1))
		rec->flags |= MTRACE_RF_FAILED;
	return 1;
}

/* ---------------------------------------------------------------------------------------------
   Header
   ------------------------------------------------------------------------------------------- */

const char *trace_stop_text(const struct mtrace_file_header *h, char *buf, size_t cap)
{
	static const char *const why[] = {
		[MTRACE_STOP_NONE] = "it failed",
		[MTRACE_STOP_NO_SPACE] = "no disk space could be reserved",
		[MTRACE_STOP_FSIZE] = "the file size limit (RLIMIT_FSIZE) was reached",
		[MTRACE_STOP_MAX_SIZE] = "the size cap (MTRACE_CTL_MAX_SIZE) was reached",
		[MTRACE_STOP_CLOSED] = "the file was removed or replaced while the program ran, and could not be opened again",
		[MTRACE_STOP_MAP] = "the file could not be mapped",
		[MTRACE_STOP_TOO_LARGE] = "the largest trace the tracer can address was reached",
		[MTRACE_STOP_SANDBOX] = "the program installed a seccomp filter (a sandbox), which the trace was finished before",
		[MTRACE_STOP_OVERLAP] = "the program unmapped, protected or mapped over the trace's own memory",
	};
	const char *what = h->stop_reason <= MTRACE_STOP_MAX ? why[h->stop_reason] : "of a failure this reader does not know";
	/* the error, where it says more than the reason (strerror of a number from Linux) */
	if (h->stop_errno > 0 && h->stop_reason != MTRACE_STOP_FSIZE && h->stop_reason != MTRACE_STOP_MAX_SIZE &&
	    h->stop_reason != MTRACE_STOP_TOO_LARGE)
		snprintf(buf, cap, "%s (%s)", what, strerror(h->stop_errno));
	else
		snprintf(buf, cap, "%s", what);
	return buf;
}

const char *trace_clock_name(unsigned clock)
{
	switch (clock) {
	case MTRACE_CLOCK_TSC: return "x86 TSC";
	case MTRACE_CLOCK_MONOTONIC: return "CLOCK_MONOTONIC";
	case MTRACE_CLOCK_CNTVCT: return "aarch64 CNTVCT";
	default: return "none";
	}
}

/* Does a header string (off, len) lie outside the header's string area?  (The sum is taken in
   64 bits: hostile values near 2^32 must not wrap past the check.) */
static int string_outside(const struct mtrace_file_header *h, uint32_t off, uint32_t len)
{
	return (uint64_t)off + len > h->header_size || (len && off < sizeof *h);
}

int trace_header_check(const struct mtrace_file_header *h, uint64_t *at, char *err, size_t cap)
{
	/* each test first notes the offset of the field it looks at, for the message */
#define AT(field) (*at = offsetof(struct mtrace_file_header, field))
	const char *what = NULL;
	*at = 0;
	if (memcmp(h->magic, MTRACE_MAGIC, MTRACE_MAGIC_LEN) != 0)
		what = "not an mtrace trace (bad magic)";
	else if (AT(byte_order_mark), h->byte_order_mark != MTRACE_BYTE_ORDER_MARK)
		what = "bad byte-order mark";
	else if (AT(version), h->version < MTRACE_FORMAT_OLDEST || h->version > MTRACE_FORMAT_VERSION)
		snprintf(err, cap, "unsupported format version %u (this reader knows %u to %u)",
			 (unsigned)h->version, MTRACE_FORMAT_OLDEST, MTRACE_FORMAT_VERSION);
	else if (AT(header_size), h->header_size < sizeof *h || h->header_size % 8)
		snprintf(err, cap, "bad header size %u", (unsigned)h->header_size);
	else if (AT(record_size), h->version >= 3 ? h->record_size != MTRACE_SLOT_SIZE :
		 h->record_size < MTRACE_RECORD_SIZE || h->record_size % 8)
		snprintf(err, cap, "bad record size %u (version %u)", (unsigned)h->record_size,
			 (unsigned)h->version);
	else if (AT(pointer_size), h->pointer_size != 4 && h->pointer_size != 8)
		snprintf(err, cap, "bad pointer size %u", (unsigned)h->pointer_size);
	else if (AT(clock), h->clock == MTRACE_CLOCK_NONE || h->clock > MTRACE_CLOCK_MAX)
		snprintf(err, cap, "unknown clock %u", (unsigned)h->clock);
	else if (AT(ticks_per_sec), h->ticks_per_sec == 0)
		what = "clock rate is zero";
	else if (AT(flags), h->flags & ~MTRACE_HF_KNOWN)
		snprintf(err, cap, "unknown header flags 0x%x", (unsigned)h->flags);
	else if (AT(exe_offset), string_outside(h, h->exe_offset, h->exe_len))
		what = "executable path lies outside the header";
	else if (AT(cmdline_offset), string_outside(h, h->cmdline_offset, h->cmdline_len))
		what = "command line lies outside the header";
	else if (AT(settings_offset), string_outside(h, h->settings_offset, h->settings_len))
		what = "allocator settings lie outside the header";
	else if (AT(allocator_offset), string_outside(h, h->allocator_offset, h->allocator_len))
		what = "allocator path lies outside the header";
	else
		return 0;
#undef AT
	if (what)
		snprintf(err, cap, "%s", what);
	return -1;
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

int trace_open(struct trace_reader *r, const char *path)
{
	memset(r, 0, sizeof *r);
	r->name = tool_display_name(path);
	if (strcmp(path, "-") == 0)
		r->fd = 0;
	else {
		r->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (r->fd < 0) {
			snprintf(r->err, sizeof r->err, "%s: %s", path, strerror(errno));
			return -1;
		}
		r->own_fd = 1;
	}
	r->buf = r->rbuf = malloc(READ_BUF);
	if (r->buf == NULL) {
		snprintf(r->err, sizeof r->err, "%s: out of memory", r->name);
		return -1;
	}
	ssize_t have = fill(r, sizeof r->hdr);
	if (have < 0) {
		snprintf(r->err, sizeof r->err, "%s: %s", r->name, strerror(errno));
		return -1;
	}
	if (have == 0)
		return fail(r, 0, "empty file, not a trace");
	const char *comp = input_compression(r->buf, (size_t)have);
	if (comp) {
		if (!trace_reader_decompress)
			return fail(r, 0, "%s-compressed (decompression is off)", comp);
		if (start_decompressor(r, comp, (size_t)have) < 0)
			return -1;
		have = fill(r, sizeof r->hdr);
		if (have < 0) {
			snprintf(r->err, sizeof r->err, "%s: %s", r->name, strerror(errno));
			return -1;
		}
		if (have == 0)
			return fail(r, 0, "%s-compressed file holds nothing%s", comp, child_failed(r) ? " (or is corrupt)" : "");
	}
	if (is_dj(r->buf, (size_t)have))
		return open_dj(r);
	if (is_workload(r->buf, (size_t)have)) {
		r->format = TRACE_FMT_WORKLOAD;
		return fail(r, 0, WORKLOAD_NOT_TRACE);
	}
	char hint[600];   /* a text file, a glibc mtrace() log: said so, not "bad magic" */
	if (hint_text(r->buf, (size_t)have, r->name, trace_reader_wants, hint, sizeof hint))
		return fail(r, 0, "%s", hint);
	if ((size_t)have < sizeof r->hdr)
		return fail(r, (uint64_t)have, "truncated header (%zd bytes, a header has at least %zu)",
			    have, sizeof r->hdr);
	memcpy(&r->hdr, r->buf, sizeof r->hdr);
	if (memcmp(r->hdr.magic, MTRACE_MAGIC, MTRACE_MAGIC_LEN) == 0 &&
	    r->hdr.byte_order_mark == __builtin_bswap32(MTRACE_BYTE_ORDER_MARK)) {
		r->swap = 1;
		trace_swap_header(&r->hdr);
	}
	char what[200];
	uint64_t at;
	if (trace_header_check(&r->hdr, &at, what, sizeof what) < 0)
		return fail(r, at, "%s", what);
	have = fill(r, r->hdr.header_size);
	if (have < 0) {
		snprintf(r->err, sizeof r->err, "%s: %s", r->name, strerror(errno));
		return -1;
	}
	if ((size_t)have < r->hdr.header_size)
		return fail(r, (uint64_t)have, "truncated header (%zd of %u bytes)", have,
			    (unsigned)r->hdr.header_size);
	copy_string(r->exe, sizeof r->exe, r->buf + r->hdr.exe_offset, r->hdr.exe_len, 0);
	copy_string(r->cmdline, sizeof r->cmdline, r->buf + r->hdr.cmdline_offset, r->hdr.cmdline_len, 1);
	copy_string(r->settings, sizeof r->settings, r->buf + r->hdr.settings_offset, r->hdr.settings_len, 1);
	/* and the program's mallopt calls, as a --compare column takes them */
	for (int i = 0; i < MTRACE_MALLOPT_PARAMS; i++)
		if (r->hdr.mallopt_set & (1u << i)) {
			size_t n = strlen(r->settings);
			snprintf(r->settings + n, sizeof r->settings - n, "%s%s=%d", n ? " " : "",
				 mtrace_mallopt_params[i].name, (int)r->hdr.mallopt_value[i]);
		}
	copy_string(r->allocator, sizeof r->allocator, r->buf + r->hdr.allocator_offset, r->hdr.allocator_len, 0);
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
			return fail(r, 0, "out of memory");
	}
	map_start(r);
	return 0;
}

/* ---------------------------------------------------------------------------------------------
   Records
   ------------------------------------------------------------------------------------------- */

/* Largest page size Linux uses (some aarch64 and ppc64 kernels): a munmap's resident bytes are
   of whole pages, so at most its length rounded up to one */
#define PAGE_MAX (64u * 1024)

/* What is wrong with a version-2 record kind (mapping call, memory sample) or flag, or NULL */
static const char *v2_check(const struct trace_reader *r, const struct mtrace_record *rec, char *msg, size_t cap)
{
	const struct mtrace_file_header *h = &r->hdr;
	unsigned call = rec->call;
	int mapping = call > MTRACE_CALL_LAST_API && call <= MTRACE_CALL_LAST_MAP;
	if (mapping && (h->version < 2 || !(h->flags & MTRACE_HF_MAPPINGS))) {
		snprintf(msg, cap, "a %s record in a trace that does not record mappings (version %u, "
			 "no mappings flag)", mtrace_call_name(call), (unsigned)h->version);
		return msg;
	}
	if (call == MTRACE_CALL_MEMORY) {
		if (h->version < 2 || !(h->flags & MTRACE_HF_MEMORY))
			return "a memory sample in a trace that does not sample memory (no memory flag)";
		if (rec->flags || rec->ptr || rec->result)
			return "a memory sample with flags or pointers";
		if (rec->size > rec->arg2)
			return "a memory sample whose anonymous resident bytes exceed its resident bytes";
		return NULL;
	}
	if ((rec->flags & MTRACE_RF_OWN) && !mapping)
		return "the allocator's-own flag on a call that is not a mapping call";
	if (rec->flags & MTRACE_RF_RESIDENT) {
		if (call != MTRACE_CALL_FREE && call != MTRACE_CALL_REALLOC && call != MTRACE_CALL_MUNMAP)
			return "resident bytes on a call other than free, realloc or munmap";
		if (h->version < 2 || !(h->flags & MTRACE_HF_RESIDENT))
			return "resident bytes in a trace that does not record them (no resident flag)";
		if (call == MTRACE_CALL_MUNMAP && rec->arg2 > rec->size + PAGE_MAX - 1)
			return "a munmap with more bytes resident than it unmaps";
	}
	if (call == MTRACE_CALL_MUNMAP && rec->result != 0)
		return "munmap with a result";
	return NULL;
}

const char *trace_record_check(const struct trace_reader *r, const struct mtrace_record *rec)
{
	static char msg[200];
	if (mtrace_call_name(rec->call) == NULL || rec->call == MTRACE_CALL_UNWRITTEN) {
		snprintf(msg, sizeof msg, "unknown call type %u", rec->call);
		return msg;
	}
	if (rec->tid == 0)
		return "thread id 0";
	if (rec->flags & ~MTRACE_RF_KNOWN) {
		snprintf(msg, sizeof msg, "unknown record flags 0x%x", rec->flags);
		return msg;
	}
	if (r->hdr.pointer_size == 4 && ((rec->ptr | rec->result) >> 32))
		return "pointer wider than the trace's 4-byte pointers";
	if (rec->call == MTRACE_CALL_CHUNK) {
		unsigned unit = r->slots ? MTRACE_SLOT_SIZE : MTRACE_RECORD_SIZE;
		if (rec->size < unit || rec->size % unit)
			return "chunk record with a bad length";
		if ((r->hdr.flags & MTRACE_HF_CHUNK_PID) && rec->arg2 != (uint32_t)r->hdr.pid) {
			snprintf(msg, sizeof msg, "a chunk written by process %llu in the trace of process %d: "
				 "two processes wrote this file", (unsigned long long)rec->arg2, (int)r->hdr.pid);
			return msg;
		}
		return NULL;
	}
	if (rec->call == MTRACE_CALL_FREE && rec->result != 0)
		return "free with a result";
	if ((rec->flags & MTRACE_RF_FAILED) && rec->result != 0)
		return "failed call with a non-null result";
	if (rec->call > MTRACE_CALL_LAST_API || (rec->flags & (MTRACE_RF_OWN | MTRACE_RF_RESIDENT)))
		return v2_check(r, rec, msg, sizeof msg);
	return NULL;
}

/* ---------------------------------------------------------------------------------------------
   Version 3: 32-byte slots, decoded a run at a time.  A record's thread is its chunk's: chunks
   lie end to end, each from its chunk record on, so a reader that meets a chunk record knows
   the thread of every record up to the chunk's end.
   ------------------------------------------------------------------------------------------- */

static void swap_slot(struct mtrace_slot *s)
{
	MTRACE_SWAP(s->aux);
	MTRACE_SWAP(s->x);
	MTRACE_SWAP(s->ts);
	MTRACE_SWAP(s->a);
	MTRACE_SWAP(s->b);
}

/* Every byte of the n bytes at p zero? */
static int all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* The common records of a native-order trace, decoded without branches on the call: malloc,
   valloc, pvalloc and free in their compact form, inside their chunk.  A trace of mallocs and
   frees in random order would mispredict a branch on the call half the time.  The slots at
   [p, end) it decoded (into r->dec); it stops at the first it leaves to the general path. */
static size_t fast_slots(struct trace_reader *r, const unsigned char *p, const unsigned char *end)
{
	/* calls 1 (malloc), 3 (free), 6 (valloc), 7 (pvalloc) */
	enum { FAST_CALLS = 1u << MTRACE_CALL_MALLOC | 1u << MTRACE_CALL_FREE |
			    1u << MTRACE_CALL_VALLOC | 1u << MTRACE_CALL_PVALLOC };
	size_t room = TRACE_DEC - r->dec_n, n = (size_t)(end - p) / MTRACE_SLOT_SIZE, k = 0;
	if (n > room)
		n = room;
	uint64_t at = r->offset;
	if (at < r->hdr.reset_off || at >= r->chunk_end)
		return 0;
	if (n > (r->chunk_end - at) / MTRACE_SLOT_SIZE)
		n = (size_t)((r->chunk_end - at) / MTRACE_SLOT_SIZE);
	struct mtrace_record *rec = r->dec + r->dec_n;
	uint64_t *offs = r->dec_offs + r->dec_n;
	for (; k < n; k++, rec++) {
		const struct mtrace_slot *sp = (const struct mtrace_slot *)(const void *)(p + k * MTRACE_SLOT_SIZE);
		__builtin_prefetch(sp + TRACE_PREFETCH_AHEAD);
		unsigned call = sp->call, flags = sp->flags;
		if (!(call < 8 && (FAST_CALLS >> call & 1)) || (flags & ~TRACE_FAST_FLAGS))
			break;
		uint64_t is_free = -(uint64_t)(call == MTRACE_CALL_FREE), x = sp->x;
		rec->tid = r->chunk_tid;
		rec->call = (uint8_t)call;
		rec->flags = (uint8_t)flags;
		rec->err = (uint16_t)(sp->aux & ~is_free);   /* (a free has no errno: as mtrace_decode) */
		rec->ts = sp->ts;
		rec->ptr = sp->a & is_free;
		rec->result = sp->a & ~is_free;
		rec->size = sp->b & ~is_free;
		rec->arg2 = sp->b & is_free;
		rec->usable = x == MTRACE_X_NO_USABLE ? 0 : (sp->b + x) & ~is_free;
		rec->duration = 0;
		if (!trace_call_ok(rec))
			break;   /* (the general path says what is wrong with it) */
		offs[k] = at + k * MTRACE_SLOT_SIZE;
	}
	r->dec_n += k;
	r->n_written += k;
	r->buf_pos += k * MTRACE_SLOT_SIZE;
	r->offset += k * MTRACE_SLOT_SIZE;
	return k;
}

int trace_decode_run(struct trace_reader *r)
{
	r->dec_n = r->dec_i = 0;
	for (;;) {
		if (r->shrunk)
			return fail(r, r->offset, "the file shrank while it was read (another process truncated it)");
		ssize_t have = fill(r, MTRACE_SLOT_SIZE);
		if (have < 0) {
			snprintf(r->err, sizeof r->err, "%s: offset %llu: %s", r->name,
				 (unsigned long long)r->offset, strerror(errno));
			return -1;
		}
		if ((size_t)have < MTRACE_SLOT_SIZE) {
			if (child_failed(r))
				return fail(r, r->offset, "%s -dc failed: the compressed data is corrupt or truncated",
					    r->compression);
			if (have == 0)
				return (int)r->dec_n;
			return fail(r, r->offset, "truncated record (%zd of %u bytes)", have, MTRACE_SLOT_SIZE);
		}
		/* the slots at hand, without a call to fill for each */
		const unsigned char *p = r->buf + r->buf_pos, *end = p + (size_t)have / MTRACE_SLOT_SIZE * MTRACE_SLOT_SIZE;
		if (!r->swap) {
			size_t k = fast_slots(r, p, end);
			p += k * MTRACE_SLOT_SIZE;
			if (r->dec_n == TRACE_DEC)
				return (int)r->dec_n;
		}
		while (p < end) {
			struct mtrace_slot s[2];
			memcpy(&s[0], p, MTRACE_SLOT_SIZE);
			uint64_t at = r->offset;
			/* below reset_off, what mtrace_reset discarded: a record there is a call that
			   was being written at the reset (its chunk record is gone) */
			if (s[0].call == MTRACE_CALL_UNWRITTEN || at < r->hdr.reset_off) {
				r->n_unwritten++;
				r->n_torn += !all_zero(p, MTRACE_SLOT_SIZE);
				p += MTRACE_SLOT_SIZE;
				r->buf_pos += MTRACE_SLOT_SIZE;
				r->offset += MTRACE_SLOT_SIZE;
				if (r->dec_n)
					return (int)r->dec_n;   /* (a run is of consecutive records) */
				continue;
			}
			if (r->swap)
				swap_slot(&s[0]);
			unsigned need = 1;
			if (s[0].flags & MTRACE_RF_WIDE) {
				need = 2;
				if ((size_t)(end - p) < 2 * MTRACE_SLOT_SIZE)
					break;   /* its second slot: after a refill */
				memcpy(&s[1], p + MTRACE_SLOT_SIZE, MTRACE_SLOT_SIZE);
				if (r->swap)
					swap_slot(&s[1]);
				if (s[1].call || s[1].flags || s[1].aux)
					return fail(r, at + MTRACE_SLOT_SIZE, "a wide record's second slot that is not one");
			}
			int chunk = s[0].call == MTRACE_CALL_CHUNK;
			if (chunk && r->dec_n)
				return (int)r->dec_n;   /* a chunk record comes alone */
			if (!chunk && (r->chunk_end == 0 || at + need * MTRACE_SLOT_SIZE > r->chunk_end))
				return fail(r, at, r->chunk_end == 0 || at >= r->chunk_end ? "a record outside any chunk" :
					    "a wide record across its chunk's end");
			struct mtrace_record *rec = &r->dec[r->dec_n];
			mtrace_decode(s, need, r->chunk_tid, rec);
			if (!trace_fast_ok(rec)) {
				const char *bad = trace_record_check(r, rec);
				if (bad)
					return fail(r, at, "%s", bad);
			}
			if (chunk) {
				r->chunk_tid = rec->tid;
				r->chunk_end = at + rec->size;
			}
			r->dec_offs[r->dec_n++] = at;
			r->n_written++;
			p += need * MTRACE_SLOT_SIZE;
			r->buf_pos += need * MTRACE_SLOT_SIZE;
			r->offset += need * MTRACE_SLOT_SIZE;
			if (chunk || r->dec_n == TRACE_DEC)
				return (int)r->dec_n;
		}
		if (p < end) {
			/* a wide record's first slot is the last at hand: its second, or the end */
			have = fill(r, 2 * MTRACE_SLOT_SIZE);   /* (fewer only at the end of the file) */
			if (have >= 0 && (size_t)have < 2 * MTRACE_SLOT_SIZE)
				return fail(r, r->offset, "truncated record (%zd of %u bytes)", have,
					    2 * MTRACE_SLOT_SIZE);
		}
	}
}

int trace_next_slow(struct trace_reader *r, const struct mtrace_record **out, uint64_t *off)
{
	if (r->slots)
		return trace_next_ref(r, out, off);
	size_t rs = r->hdr.record_size;
	struct mtrace_record *rec = &r->scratch;
	for (;;) {
		if (r->shrunk)
			return fail(r, r->offset, "the file shrank while it was read (another process truncated it)");
		ssize_t have = fill(r, rs);
		if (have < 0) {
			snprintf(r->err, sizeof r->err, "%s: offset %llu: %s", r->name,
				 (unsigned long long)r->offset, strerror(errno));
			return -1;
		}
		if (have == 0) {
			if (child_failed(r))
				return fail(r, r->offset, "%s -dc failed: the compressed data is corrupt or truncated",
					    r->compression);
			return 0;
		}
		if ((size_t)have < rs) {
			if (child_failed(r))
				return fail(r, r->offset, "%s -dc failed: the compressed data is corrupt or truncated",
					    r->compression);
			return fail(r, r->offset, "truncated record (%zd of %zu bytes)", have, rs);
		}
		const unsigned char *p = r->buf + r->buf_pos;
		uint64_t at = r->offset;
		r->buf_pos += rs;
		r->offset += rs;
		if (r->format == TRACE_FMT_DJ) {
			const char *bad = NULL;
			int k = dj_convert(r, p, rec, &bad);
			if (k < 0)
				return fail(r, at, "%s %u", bad, (unsigned)(p[4]));
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
		const char *bad = trace_record_check(r, rec);
		if (bad)
			return fail(r, at, "%s", bad);
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
	if ((r->own_fd || r->child) && r->fd >= 0)
		close(r->fd);
	if (r->child) {   /* (we may stop reading early) */
		pid_t child = r->child, feeder = r->feeder;
		input_reap(&child, &feeder, 1);
		r->child = r->feeder = 0;
	}
	map_end(r);
	free(r->rbuf);
	free(r->dec);
	free(r->dec_offs);
	r->dec = NULL;
	r->dec_offs = NULL;
	r->buf = r->rbuf = NULL;
	r->fd = -1;
}

double trace_seconds(const struct trace_reader *r, uint64_t ticks)
{
	return (double)(int64_t)(ticks - r->hdr.start_ticks) / (double)r->hdr.ticks_per_sec;
}
