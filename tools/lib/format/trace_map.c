/* trace_map.c - the trace reader's mapped input: a plain file's records read in place, a window
 * at a time, and the SIGBUS handler that keeps a file shrinking under a window from killing the
 * reader. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "trace_reader_int.h"

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
		unsigned char *page =
			(unsigned char *)((uintptr_t)at & ~(uintptr_t)(getpagesize() - 1));
		size_t len = (size_t)(r->map + r->map_len - page);
		if (mmap(page, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
		    MAP_FAILED)
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

void trace_map_end(struct trace_reader *r)
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

/* (a window is handed out as it is: its records need no conversion) */
void trace_map_start(struct trace_reader *r)
{
	struct stat st;
	if (!(r->fast || r->slots) || r->decomp.child || fstat(r->fd, &st) < 0 ||
	    !S_ISREG(st.st_mode) || (uint64_t)st.st_size < trace_reader_map_min ||
	    map_register(r) < 0)
		return;
	r->buf_len = r->buf_pos;   /* the next fill maps from offset on */
}

/* trace_fill() of a mapped file: a window from the page that holds offset.  -2: mapping failed,
   read from here on. */
ssize_t trace_map_fill(struct trace_reader *r, size_t want)
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
	uint64_t maplen =
		size - start - len < TRACE_MAP_AHEAD ? size - start : len + TRACE_MAP_AHEAD;
	unmap_window(r);
	/* populated: the scan's prefetches are dropped where no page is mapped yet */
	void *m = mmap(NULL, (size_t)maplen, PROT_READ, MAP_SHARED | MAP_POPULATE, r->fd,
		       (off_t)start);
	if (m == MAP_FAILED) {
		trace_map_end(r);
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
