/* send_keep.c - what the local disk keeps of the traces being sent: --no-keep gives back the
 * blocks the collector acknowledged, --backlog stops the traces when too much is not. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include "send_int.h"

/* A thread's chunk is 64 KiB at most, and holds its unwritten tail: below a hole (or the scanned
   end) by more than that, no chunk is still held, which the tracer may read again (to count a
   stopping thread's records).  What lies within it of a hole is kept for good. */
#define HELD_CHUNK_MAX (64u * 1024)

static void punch(struct sfile *f, uint64_t a, uint64_t b)
{
	a = (a + 4095) & ~(uint64_t)4095;
	b &= ~(uint64_t)4095;
	if (a < b)
		fallocate(f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)a, (off_t)(b - a));
}

void send_give_back(struct sfile *f)
{
	if (!f->hsize)
		return;
	if (!f->punched)
		f->punched = f->hsize;   /* (the header's page stays) */
	uint64_t lim = f->scanned;
	for (size_t i = f->qhead; i < f->qn; i++)
		if (f->q[i].type == Q_DATA && f->q[i].off < lim)
			lim = f->q[i].off;
	if (f->done) {   /* all of it acknowledged, the writer gone */
		struct stat st;
		lim = fstat(f->fd, &st) == 0 ? (uint64_t)st.st_size : f->punched;
	} else
		lim = lim > HELD_CHUNK_MAX ? lim - HELD_CHUNK_MAX : 0;
	uint64_t p = f->punched;
	if (lim <= p)
		return;
	for (size_t i = 0; i < f->nholes && !f->done; i++) {
		const struct range *h = &f->holes[i];
		uint64_t zone = h->a > HELD_CHUNK_MAX ? h->a - HELD_CHUNK_MAX : 0;
		if (h->b <= p)
			continue;
		if (zone >= lim)
			break;
		if (zone > p)
			punch(f, p, zone);
		p = h->b > p ? h->b : p;
	}
	if (lim > p)
		punch(f, p, lim);
	f->punched = lim;
}

void send_check_backlog(struct sfile *files, size_t nfiles, const struct send_opts *opt)
{
	static int said;
	uint64_t left = 0;
	for (size_t i = 0; i < nfiles; i++)
		left += files[i].unacked_bytes;
	if (!opt->backlog || left <= opt->backlog)
		return;
	for (size_t i = 0; i < nfiles; i++) {
		struct sfile *f = &files[i];
		char err[4096];
		if (f->stop_asked || f->ended || !f->hsize)
			continue;
		f->stop_asked = 1;
		if (send_ask_stop(f->pid, err, sizeof err) < 0)
			fprintf(stderr, "mtracectl: cannot stop the trace of process %d: %s\n",
				(int)f->pid, err);
		else if (!said++)
			fprintf(stderr, "mtracectl: %llu bytes of the traces not acknowledged by %s "
				"passed --backlog: the traces stop (their headers say why)\n",
				(unsigned long long)left, opt->dest);
	}
}
