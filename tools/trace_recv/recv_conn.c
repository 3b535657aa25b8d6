/* recv_conn.c - one sender's stream into its trace files: each frame checked whole before it
 * touches a file, files named only by sanitized components, and only this stream's files (each
 * locked while open, so two senders never write one file). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "recv_conn.h"
#include "stream_pack.h"

int rc_name_ok(const char *name, size_t len)
{
	if (len == 0 || len > MTS_NAME_MAX || name[0] == '.')
		return 0;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)name[i] < 0x21 || (unsigned char)name[i] > 0x7e ||
		    name[i] == '/' || name[i] == '\\')
			return 0;
	return 1;
}

/* ZDATA's range unpacked: one buffer for every connection (a frame is unpacked and written
   before the next is read) */
static unsigned char *unpacked;

int rc_init(struct rconn *c, int dirfd, const char *peer)
{
	if (!unpacked && !(unpacked = malloc(MTS_DATA_MAX)))
		return -1;
	memset(c, 0, sizeof *c);
	c->dirfd = dirfd;
	c->peer = peer;
	for (unsigned i = 0; i < RC_FILES_OPEN; i++)
		c->files[i].fd = -1;
	c->buf = malloc(MTS_HEAD_SIZE + MTS_PAYLOAD_MAX);
	return c->buf ? 0 : -1;
}

void rc_free(struct rconn *c)
{
	for (unsigned i = 0; i < RC_FILES_OPEN; i++)
		if (c->files[i].fd >= 0)
			close(c->files[i].fd);
	free(c->buf);
	c->buf = NULL;
}

static void queue(struct rconn *c, unsigned type, uint32_t id, const void *p, uint32_t len)
{
	if (c->nout + MTS_HEAD_SIZE + len > sizeof c->out)
		return;   /* (ACKs only ever grow: a later one says as much) */
	mts_put_head(c->out + c->nout, type, id, len);
	memcpy(c->out + c->nout + MTS_HEAD_SIZE, p, len);
	c->nout += MTS_HEAD_SIZE + len;
}

/* Refuse the stream: c->err = "PEER [HOST] offset N: what", and an ERROR frame to the sender */
__attribute__((format(printf, 2, 3)))
static int refuse(struct rconn *c, const char *fmt, ...)
{
	char what[MTS_TEXT_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	snprintf(c->err, sizeof c->err, "%s%s%s: offset %llu: %s", c->peer, c->host[0] ? " " : "",
		 c->host, (unsigned long long)c->off, what);
	queue(c, MTS_ERROR, 0, what, (uint32_t)strlen(what));
	return -1;
}

static struct rc_file *file_of(struct rconn *c, uint32_t id)
{
	for (unsigned i = 0; i < RC_FILES_OPEN; i++)
		if (c->files[i].id == id && c->files[i].fd >= 0)
			return &c->files[i];
	return NULL;
}

static int open_file(struct rconn *c, uint32_t id, const unsigned char *p, uint32_t len)
{
	if (len < 10 || len != 10u + mts_get16(p + 8))
		return refuse(c, "FILE frame of %u bytes", len);
	uint32_t flags = mts_get32(p);
	const char *name = (const char *)p + 10;
	size_t nlen = len - 10;
	if (!rc_name_ok(name, nlen))
		return refuse(c, "a trace name that is not one plain file name");
	if (file_of(c, id))
		return refuse(c, "file id %u opened twice", id);
	struct rc_file *f = NULL;
	for (unsigned i = 0; i < RC_FILES_OPEN && !f; i++)
		if (c->files[i].fd < 0)
			f = &c->files[i];
	if (!f)
		return refuse(c, "more than %u files open at once", RC_FILES_OPEN);
	char path[2 * MTS_NAME_MAX + 2];
	snprintf(path, sizeof path, "%s/%.*s", c->host, (int)nlen, name);
	if (mkdirat(c->dirfd, c->host, 0755) < 0 && errno != EEXIST)
		return refuse(c, "cannot create %s: %s", c->host, strerror(errno));
	int hfd = openat(c->dirfd, c->host, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int fd = hfd < 0 ? -1 : openat(hfd, path + strlen(c->host) + 1,
				       O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	int e = errno;
	if (hfd >= 0)
		close(hfd);
	if (fd < 0)
		return refuse(c, "cannot open %s: %s", path, strerror(e));
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return refuse(c, "%s is not a regular file", path);
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		return refuse(c, "%s is being received from another sender", path);
	}
	if (!(flags & MTS_FILE_RESUME) && ftruncate(fd, 0) < 0) {
		e = errno;
		close(fd);
		return refuse(c, "%s: %s", path, strerror(e));
	}
	*f = (struct rc_file){ .id = id, .fd = fd };
	return 0;
}

/* Write n bytes at off in f, or refuse (a full disk is said to the sender) */
static int put(struct rconn *c, struct rc_file *f, const unsigned char *p, size_t n, uint64_t off)
{
	while (n) {
		ssize_t w = pwrite(f->fd, p, n, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return refuse(c, "file %u: writing at %llu: %s", f->id,
				      (unsigned long long)off, strerror(w < 0 ? errno : ENOSPC));
		p += w, n -= (size_t)w, off += (uint64_t)w;
	}
	return 0;
}

#define OFF_MAX (1ull << 50)   /* no trace is a PiB: an offset past it is hostile */

static int frame(struct rconn *c, unsigned type, uint32_t id, const unsigned char *p, uint32_t len)
{
	if (type == MTS_HELLO) {
		if (c->host[0])
			return refuse(c, "a second HELLO");
		if (len < 12 || memcmp(p, MTS_MAGIC, MTS_MAGIC_LEN) || len != 12u + mts_get16(p + 10))
			return refuse(c, "not an mtrace stream");
		c->version = mts_get16(p + 8);
		if (c->version < MTS_VERSION_OLDEST || c->version > MTS_VERSION)
			return refuse(c, "stream version %u (this trace_recv reads %u to %u)",
				      c->version, MTS_VERSION_OLDEST, MTS_VERSION);
		if (!rc_name_ok((const char *)p + 12, len - 12u))
			return refuse(c, "a host name that is not one plain file name");
		memcpy(c->host, p + 12, len - 12u);
		c->host[len - 12u] = 0;
		return 0;
	}
	if (!c->host[0])
		return refuse(c, "no HELLO first");
	if (type == MTS_ERROR) {
		snprintf(c->err, sizeof c->err, "%s %s: the sender says: %.*s", c->peer, c->host,
			 (int)(len < MTS_TEXT_MAX ? len : MTS_TEXT_MAX), (const char *)p);
		return -1;
	}
	if (id == 0 || id > MTS_FILES_MAX)
		return refuse(c, "file id %u", id);
	if (type == MTS_FILE)
		return open_file(c, id, p, len);
	struct rc_file *f = file_of(c, id);
	if (!f)
		return refuse(c, "file id %u was never opened", id);
	if (type == MTS_RESUME)
		return len == 8 ? 0 : refuse(c, "RESUME frame of %u bytes", len);
	if (len < 16 || (type == MTS_END && len != 16) || (type == MTS_ZDATA && len < 24))
		return refuse(c, "frame of type %u, %u bytes", type, len);
	uint64_t off = mts_get64(p), seq = mts_get64(p + 8);
	if (seq <= f->seq)
		return refuse(c, "file %u: sequence %llu after %llu", id, (unsigned long long)seq,
			      (unsigned long long)f->seq);
	if (off > OFF_MAX || (type == MTS_HEADER && len - 16 > off))
		return refuse(c, "file %u: offset or size %llu", id, (unsigned long long)off);
	if (type == MTS_ZDATA) {
		uint32_t raw = mts_get32(p + 16), codec = mts_get32(p + 20);
		if (c->version < 2 || codec != MTS_CODEC_SLOTS)
			return refuse(c, "file %u: compressed DATA (codec %u) in a version %u "
				      "stream", id, codec, c->version);
		if (raw == 0 || raw > MTS_DATA_MAX)
			return refuse(c, "file %u: compressed DATA of %u bytes", id, raw);
		if (mts_unpack(p + 24, len - 24, unpacked, raw) < 0)
			return refuse(c, "file %u: compressed DATA that does not unpack to its %u "
				      "bytes", id, raw);
		if (put(c, f, unpacked, raw, off) < 0)
			return -1;
	} else if (type == MTS_DATA || type == MTS_HEADER) {
		if (type == MTS_DATA && len - 16 > MTS_DATA_MAX)
			return refuse(c, "DATA of %u bytes", len - 16);
		if (put(c, f, p + 16, len - 16, type == MTS_DATA ? off : 0) < 0)
			return -1;
		/* a HEADER says how large the file is so far: grow it (a hole) to there */
		struct stat st;
		if (type == MTS_HEADER && fstat(f->fd, &st) == 0 && (uint64_t)st.st_size < off &&
		    ftruncate(f->fd, (off_t)off) < 0)
			return refuse(c, "file %u: growing it: %s", id, strerror(errno));
	} else if (type == MTS_END) {
		if (ftruncate(f->fd, (off_t)off) < 0)
			return refuse(c, "file %u: its final size: %s", id, strerror(errno));
		c->nfiles_done++;
	} else
		return refuse(c, "frame type %u", type);
	f->seq = seq;
	f->dirty = 1;
	return 0;
}

int rc_feed(struct rconn *c, const unsigned char *p, size_t n)
{
	while (n) {
		size_t want = MTS_HEAD_SIZE;
		if (c->have >= MTS_HEAD_SIZE) {
			uint32_t len = mts_get32(c->buf + 8);
			want += len;
		}
		size_t take = want - c->have < n ? want - c->have : n;
		memcpy(c->buf + c->have, p, take);
		c->have += take, p += take, n -= take;
		if (c->have == MTS_HEAD_SIZE) {
			unsigned type = c->buf[0];
			uint32_t len = mts_get32(c->buf + 8);
			if (type == 0 || type > MTS_TYPE_MAX || type == MTS_ACK || c->buf[1] |
			    c->buf[2] | c->buf[3] || mts_get32(c->buf + 12) || len > MTS_PAYLOAD_MAX)
				return refuse(c, "not a frame head (type %u, %u bytes)", type, len);
		}
		if (c->have >= MTS_HEAD_SIZE && c->have == MTS_HEAD_SIZE + mts_get32(c->buf + 8)) {
			uint32_t len = mts_get32(c->buf + 8);
			if (frame(c, c->buf[0], mts_get32(c->buf + 4), c->buf + MTS_HEAD_SIZE, len) < 0)
				return -1;
			c->off += MTS_HEAD_SIZE + len;
			c->have = 0;
			if (c->buf[0] == MTS_END) {   /* done with it: the id may be opened again */
				struct rc_file *f = file_of(c, mts_get32(c->buf + 4));
				if (rc_sync(c) < 0)
					return -1;
				close(f->fd);
				*f = (struct rc_file){ .fd = -1 };
			}
		}
	}
	return 0;
}

int rc_sync(struct rconn *c)
{
	for (unsigned i = 0; i < RC_FILES_OPEN; i++) {
		struct rc_file *f = &c->files[i];
		if (f->fd < 0 || !f->dirty)
			continue;
		if (fsync(f->fd) < 0)
			return refuse(c, "file %u: fsync: %s", f->id, strerror(errno));
		f->dirty = 0;
		unsigned char a[8];
		mts_put64(a, f->seq);
		queue(c, MTS_ACK, f->id, a, 8);
		f->acked = f->seq;
	}
	return 0;
}

int rc_eof(struct rconn *c)
{
	if (c->have)
		return refuse(c, "the stream ends inside a frame (%zu of its bytes)", c->have);
	return 0;
}
