/* trace_follow.c - a trace still being written: its chunks walked as they come, each chunk's
 * committed prefix read as it grows (trace_follow.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include "trace_follow.h"
#include "trace_reader_int.h"

#define CHUNK_LEN_MAX ((uint64_t)16 << 20)   /* a writer's chunks are 64 KiB at most */

struct open_chunk {
	uint64_t start, end;    /* the chunk's bytes */
	uint64_t fill;          /* its first slot not committed yet */
	uint32_t tid;
};

struct trace_follow {
	int fd, swap;
	struct mtrace_file_header hdr;
	dev_t dev;
	ino_t ino;
	uint64_t next_chunk;            /* where the next chunk record is due */
	struct open_chunk *open;
	unsigned n_open, cap_open;
	int local;                      /* the writer's process was seen mapping the file */
	int done;
	uint64_t size;                  /* the file's size at the last look */
	unsigned idle_ms;
	struct timespec last_growth;
	struct mtrace_slot slots[1 + MTRACE_EXT_SLOTS_MAX];
};

struct trace_follow *trace_follow_new(int fd, const struct mtrace_file_header *h, int swap,
				      unsigned idle_ms)
{
	struct trace_follow *f = calloc(1, sizeof *f);
	struct stat st;
	if (!f)
		return NULL;
	f->fd = fd;
	f->swap = swap;
	f->hdr = *h;
	f->idle_ms = idle_ms;
	if (fstat(fd, &st) == 0) {
		f->dev = st.st_dev;
		f->ino = st.st_ino;
	}
	f->next_chunk = h->reset_off > h->header_size ? h->reset_off : h->header_size;
	clock_gettime(CLOCK_MONOTONIC, &f->last_growth);
	return f;
}

void trace_follow_free(struct trace_follow *f)
{
	if (f)
		free(f->open);
	free(f);
}

uint64_t trace_follow_stable(const struct trace_follow *f)
{
	if (f->done)
		return f->size;
	uint64_t s = f->next_chunk;
	for (unsigned i = 0; i < f->n_open; i++)
		if (f->open[i].fill < s)
			s = f->open[i].fill;
	return s;
}

const struct mtrace_file_header *trace_follow_header(const struct trace_follow *f)
{
	return &f->hdr;
}

unsigned trace_follow_open_chunks(const struct trace_follow *f)
{
	return f->n_open;
}

uint64_t trace_follow_size(const struct trace_follow *f)
{
	return f->size;
}

/* ---------------------------------------------------------------------------------------------
   The writer: its header, its process and threads
   ------------------------------------------------------------------------------------------- */

/* Does process pid map the file (dev, ino)?  1, 0, or -1 when its maps cannot be read */
static int maps_file(pid_t pid, dev_t dev, ino_t ino)
{
	char path[64], line[512];
	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	FILE *m = fopen(path, "re");
	if (!m)
		return -1;
	int found = 0;
	while (!found && fgets(line, sizeof line, m)) {
		unsigned maj, mn;
		unsigned long long inode;
		/* start-end perms offset major:minor inode path */
		if (sscanf(line, "%*s %*s %*s %x:%x %llu", &maj, &mn, &inode) == 3)
			found = inode == (unsigned long long)ino && makedev(maj, mn) == dev;
	}
	fclose(m);
	return found;
}

/* Is process pid on this machine the trace's writer?  It maps the file (seen once), or it
   started in the seconds before the trace did (a writer that exec'd since, or exited: the
   trace of a process on another machine with the same pid would have to have started in the
   same seconds).  A trace switched on midway has no such start. */
static int same_start(const struct mtrace_file_header *h)
{
	char path[64], buf[1024];
	if (h->pid <= 0 || (h->flags & MTRACE_HF_MIDWAY))
		return 0;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)h->pid);
	FILE *st = fopen(path, "re");
	if (!st)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, st);
	fclose(st);
	buf[n] = 0;
	char *p = strrchr(buf, ')');   /* (the command in parentheses may hold spaces) */
	unsigned long long start = 0, btime = 0;
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &start) != 1)
		return 0;
	FILE *ps = fopen("/proc/stat", "re");
	while (ps && fgets(buf, sizeof buf, ps))
		if (sscanf(buf, "btime %llu", &btime) == 1)
			break;
	if (ps)
		fclose(ps);
	long hz = sysconf(_SC_CLK_TCK);
	if (!btime || hz <= 0)
		return 0;
	double began = (double)btime + (double)start / (double)hz;
	double traced = (double)h->start_time_ns / 1e9;
	return began <= traced + 1 && traced - began < 5;
}

static int thread_gone(pid_t pid, uint32_t tid)
{
	char path[64];
	struct stat st;
	snprintf(path, sizeof path, "/proc/%d/task/%u", (int)pid, tid);
	return stat(path, &st) < 0 && errno == ENOENT;
}

static int read_header(struct trace_follow *f)
{
	struct mtrace_file_header h;
	if (pread(f->fd, &h, sizeof h, 0) != (ssize_t)sizeof h)
		return -1;
	if (f->swap)
		trace_swap_header(&h);
	if (memcmp(h.magic, MTRACE_MAGIC, MTRACE_MAGIC_LEN) || h.version != f->hdr.version ||
	    h.header_size != f->hdr.header_size)
		return -1;
	f->hdr = h;
	return 0;
}

static long ms_since(const struct timespec *t)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t->tv_sec) * 1000 + (now.tv_nsec - t->tv_nsec) / 1000000;
}

/* Has the writer stopped for good? */
static int writer_done(struct trace_follow *f, int grew)
{
	if (f->hdr.flags & (MTRACE_HF_FINISHED | MTRACE_HF_STOPPED_EARLY))
		return 1;
	pid_t pid = f->hdr.pid;
	int maps = pid > 0 ? maps_file(pid, f->dev, f->ino) : -1;
	if (maps == 1) {
		f->local = 1;
		return 0;
	}
	if (!f->local && maps == 0 && same_start(&f->hdr))
		return 1;   /* (it exec'd or unmapped the file before we looked) */
	if (f->local)   /* (it exited, exec'd, or unmapped the file: it cannot write any more) */
		return maps == 0 || (pid > 0 && kill(pid, 0) < 0 && errno == ESRCH);
	if (grew)
		clock_gettime(CLOCK_MONOTONIC, &f->last_growth);
	return ms_since(&f->last_growth) >= (long)f->idle_ms;
}

/* ---------------------------------------------------------------------------------------------
   Records
   ------------------------------------------------------------------------------------------- */

/* The record at off (in chunk c, or the chunk record itself when c is NULL) read into f->slots:
   the slots it takes, 0 if it is not committed yet, -1 if it is not a record (*why) */
static int read_record(struct trace_follow *f, uint64_t off, uint64_t end, const char **why)
{
	if (off + MTRACE_SLOT_SIZE > f->size ||
	    pread(f->fd, f->slots, MTRACE_SLOT_SIZE, (off_t)off) != MTRACE_SLOT_SIZE)
		return 0;
	struct mtrace_slot *s = f->slots;
	if (s->call == MTRACE_CALL_UNWRITTEN)
		return 0;
	if (f->swap)
		trace_swap_slot(s);
	unsigned n = s->flags & MTRACE_RF_WIDE ? 2 : mtrace_call_is_ext(s->call) ? 1u + s->aux : 1;
	if (n > 1 + MTRACE_EXT_SLOTS_MAX) {
		*why = "an extended record longer than a record can be";
		return -1;
	}
	if (off + (uint64_t)n * MTRACE_SLOT_SIZE > end) {
		*why = "a record across its chunk's end";
		return -1;
	}
	if (n > 1) {
		size_t len = (size_t)(n - 1) * MTRACE_SLOT_SIZE;
		if (pread(f->fd, s + 1, len, (off_t)(off + MTRACE_SLOT_SIZE)) != (ssize_t)len)
			return 0;
		if (f->swap)
			for (unsigned i = 1; i < n; i++)
				trace_swap_slot(&s[i]);
	}
	return (int)n;
}

/* Give chunk c's records committed since the last look to each; 1 once the chunk is full */
static int advance(struct trace_follow *f, struct open_chunk *c, trace_follow_fn *each,
		   void *arg, const char **why, uint64_t *at)
{
	while (c->fill < c->end) {
		int n = read_record(f, c->fill, c->end, why);
		if (n < 0) {
			*at = c->fill;
			return -1;
		}
		if (n == 0)
			return 0;
		/* version 6's stack id, handed on as version 5's CALLER slot before the call */
		uint32_t stack = (f->hdr.flags & MTRACE_HF_STACK_IDS) &&
				 mtrace_call_has_stack(f->slots[0].call)
				 ? mtrace_take_stack(f->slots) : 0;
		if (n == 2 && !trace_second_slot_ok(f->slots)) {
			*why = "a wide record's second slot that is not one";
			*at = c->fill + MTRACE_SLOT_SIZE;
			return -1;
		}
		struct mtrace_record rec = trace_caller_record(c->tid, stack);
		if (stack && each && each(arg, &rec, NULL, c->fill - MTRACE_SLOT_SIZE) < 0) {
			*why = NULL;
			*at = c->fill;
			return -1;
		}
		if (!mtrace_decode(f->slots, (uint64_t)n, c->tid, &rec)) {
			*why = "a record cut short";
			*at = c->fill;
			return -1;
		}
		if (each && each(arg, &rec, f->slots, c->fill) < 0) {
			*why = NULL;
			*at = c->fill;
			return -1;
		}
		c->fill += (uint64_t)n * MTRACE_SLOT_SIZE;
	}
	return 1;
}

static void drop_open(struct trace_follow *f, unsigned i)
{
	f->open[i] = f->open[--f->n_open];
}

/* The chunk records written since the last look, each chunk opened */
static int new_chunks(struct trace_follow *f, trace_follow_fn *each, void *arg,
		      const char **why, uint64_t *at)
{
	for (;;) {
		int n = read_record(f, f->next_chunk, f->size, why);
		if (n <= 0) {
			*at = f->next_chunk;
			return n;
		}
		struct mtrace_record rec;
		mtrace_decode(f->slots, 1, 0, &rec);
		if (rec.call != MTRACE_CALL_CHUNK || rec.size < MTRACE_SLOT_SIZE ||
		    rec.size % MTRACE_SLOT_SIZE || rec.size > CHUNK_LEN_MAX) {
			*why = rec.call != MTRACE_CALL_CHUNK ? "a record outside any chunk"
							     : "a chunk of an impossible length";
			*at = f->next_chunk;
			return -1;
		}
		/* the thread's chunk before this one is complete: what it did not fill, it never
		   will */
		for (unsigned i = 0; rec.ptr && i < f->n_open; i++)
			if (f->open[i].start == rec.ptr && f->open[i].tid == rec.tid) {
				if (advance(f, &f->open[i], each, arg, why, at) < 0)
					return -1;
				drop_open(f, i);
				break;
			}
		if (each && each(arg, &rec, f->slots, f->next_chunk) < 0) {
			*why = NULL;
			*at = f->next_chunk;
			return -1;
		}
		if (f->n_open == f->cap_open) {
			unsigned cap = f->cap_open ? 2 * f->cap_open : 64;
			struct open_chunk *o = realloc(f->open, cap * sizeof *o);
			if (!o) {
				*why = "out of memory";
				*at = f->next_chunk;
				return -1;
			}
			f->open = o;
			f->cap_open = cap;
		}
		f->open[f->n_open++] = (struct open_chunk){ f->next_chunk, f->next_chunk + rec.size,
							    f->next_chunk + MTRACE_SLOT_SIZE,
							    rec.tid };
		f->next_chunk += rec.size;
	}
}

int trace_follow_poll(struct trace_follow *f, trace_follow_fn *each, void *arg,
		      const char **why, uint64_t *at)
{
	*why = NULL;
	*at = 0;
	if (f->done)
		return 1;
	/* the header first: a writer that says it stopped wrote every record before it */
	if (read_header(f) < 0) {
		*why = "its header changed into something else";
		return -1;
	}
	struct stat st;
	if (fstat(f->fd, &st) < 0) {
		*why = strerror(errno);
		return -1;
	}
	uint64_t before = f->size;
	f->size = (uint64_t)st.st_size;
	int done = writer_done(f, f->size != before);
	if (f->hdr.reset_off > f->next_chunk) {   /* mtrace_reset: the records below are gone */
		f->next_chunk = f->hdr.reset_off;
		f->n_open = 0;
	}
	for (int more = 1; more;) {
		more = 0;
		for (unsigned i = 0; i < f->n_open; i++) {
			struct open_chunk *c = &f->open[i];
			uint64_t fill = c->fill;
			int full = advance(f, c, each, arg, why, at);
			if (full < 0)
				return -1;
			if (full || (!done && f->local && c->fill == fill &&
				     thread_gone(f->hdr.pid, c->tid))) {
				if (!full && advance(f, c, each, arg, why, at) < 0)
					return -1;   /* (its last records, written as it went) */
				drop_open(f, i--);
			}
		}
		uint64_t next = f->next_chunk;
		if (new_chunks(f, each, arg, why, at) < 0)
			return -1;
		more = f->next_chunk != next;
	}
	if (done) {
		f->done = 1;
		f->n_open = 0;
		return 1;
	}
	return 0;
}
