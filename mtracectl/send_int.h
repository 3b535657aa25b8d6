/* send_int.h - the sender's state of one trace file, shared by send.c (following and sending
 * it) and send_keep.c (what of it the local disk keeps). */
#ifndef SEND_INT_H
#define SEND_INT_H
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "send.h"

enum { Q_DATA, Q_HEADER, Q_END };
struct qent {
	uint64_t seq, off, len;
	int type;
};
struct range {
	uint64_t a, b;
};

struct sfile {
	char path[PATH_MAX];
	uint32_t id;
	int fd;
	pid_t pid;              /* the writer's, from the header */
	uint32_t hsize;         /* 0: the header is not readable yet */
	unsigned char *hdr;     /* the header as last queued */
	uint64_t scanned;       /* every slot below is sent or in a hole */
	struct range *holes;
	size_t nholes, capholes;
	struct qent *q;         /* frames not acknowledged: q[qhead..qn) */
	size_t qhead, qn, qcap, qsend;   /* qsend: the next to send on this connection */
	uint64_t seq, acked, unacked_bytes;
	uint64_t punched;       /* --no-keep: blocks below were given back (or kept for good) */
	int named;              /* FILE sent on this connection */
	int stop_asked;         /* --backlog: its tracer was asked to stop */
	int ended;              /* END queued */
	int done;               /* END acknowledged */
};

/* --no-keep: punch out of f's local file what the collector acknowledged (send_keep.c) */
void send_give_back(struct sfile *f);
/* --backlog: past it, every tracer still writing is asked to stop (once each) */
void send_check_backlog(struct sfile *files, size_t n, const struct send_opts *opt);
#endif
