/* recv_conn.h - one sender's stream into trace files under DIR/HOST/ (include/mtrace-stream.h):
 * frames parsed as bytes arrive, files written at offsets, acknowledgements queued. */
#ifndef RECV_CONN_H
#define RECV_CONN_H
#include <stddef.h>
#include <stdint.h>
#include "mtrace-stream.h"

#define RC_FILES_OPEN 256   /* files of one connection open at once */

struct rc_file {
	uint32_t id;            /* 0: a free entry */
	int fd;
	uint64_t seq;           /* the last frame's, written, not yet synced */
	uint64_t acked;         /* the last acknowledged (synced) */
	int dirty;
};

struct rconn {
	int dirfd;              /* DIR */
	const char *peer;       /* "ADDR:PORT" or "<stdin>", for messages */
	char host[MTS_NAME_MAX + 1];   /* HELLO's, sanitized; "" before it */
	unsigned version;       /* HELLO's */
	uint64_t off;           /* stream bytes taken so far */
	size_t have;            /* bytes of the current frame in buf */
	unsigned char *buf;     /* MTS_HEAD_SIZE + MTS_PAYLOAD_MAX */
	struct rc_file files[RC_FILES_OPEN];
	unsigned nfiles_done;   /* ENDed */
	unsigned char out[64 * 1024];  /* frames for the sender (ACK, ERROR) */
	size_t nout;
	char err[MTS_TEXT_MAX + 512];  /* why the stream was refused */
};

/* Set c up for a sender (peer names it); -1 on no memory. */
int rc_init(struct rconn *c, int dirfd, const char *peer);
/* Take n bytes of the stream: 0, or -1 with c->err said (the connection is to be closed after
   c->out, with its ERROR, is sent). */
int rc_feed(struct rconn *c, const unsigned char *p, size_t n);
/* fsync what was written and queue ACKs in c->out: 0, or -1 (c->err; a full disk) */
int rc_sync(struct rconn *c);
/* The stream ended: 0 if it ended between frames, else -1 (c->err: truncated) */
int rc_eof(struct rconn *c);
/* Close c's files, free its buffer */
void rc_free(struct rconn *c);
/* 1 if name is usable as one path component written by a stranger: no "/", no leading '.',
   printable ASCII, 1..MTS_NAME_MAX bytes */
int rc_name_ok(const char *name, size_t len);
#endif
