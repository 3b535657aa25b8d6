/* send.c - the sender: a process that follows each trace file of the traced tree behind its
 * writers and sends what is committed to a collector (include/mtrace-stream.h).
 *
 * The tracer never waits for it: it reads the files as any reader does.  A slot whose call byte
 * is 0 is not written yet (or is a continuation of a record whose head is not): committed
 * records are sent with the extents mtrace_decode gives them, and runs of unwritten slots before
 * a committed one are kept as holes, read again each pass until their records are committed (a
 * thread's chunk tail).  Once a file is final (its process ended or finished it, or the tree
 * ended) what remains in its holes is sent as it is, then its header and its size: the
 * collector's file is then the same bytes.  Every frame is kept until acknowledged and sent
 * again on the next connection. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "mtrace-stream.h"
#include "mtrace-trace.h"
#include "send.h"
#include "send_int.h"
#include "stream_pack.h"
#include "units.h"

#define SLOT MTRACE_SLOT_SIZE
#define SCAN_MAX (1u << 20)    /* bytes of a file read at once */
#define PACK_CAP MTS_PACK_BOUND(MTS_DATA_MAX)   /* a DATA range packed, at most */

static struct sfile *files;
static size_t nfiles, capfiles;
static unsigned char *scan_buf, *frame_buf, *pack_buf;
static size_t frame_len, frame_pos;     /* the frame being written */
static const struct send_opts *opt;
static unsigned version;                /* the connection's (HELLO): 2 packs DATA */
static int raw_only;                    /* the collector reads version 1 only */
static int refused;                     /* ... and --send-compress=slots: nothing is sent */
static uint64_t sent_raw, sent_wire;    /* DATA bytes, and what they took on the wire */

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	size_t c = *cap ? *cap * 2 : 16;
	void *q = realloc(p, c * size);
	if (!q) {
		fprintf(stderr, "mtracectl: sender: out of memory\n");
		_exit(3);
	}
	*cap = c;
	return q;
}

static void queue(struct sfile *f, int type, uint64_t off, uint64_t len)
{
	f->q = grow(f->q, &f->qcap, f->qn, sizeof *f->q);
	f->q[f->qn++] = (struct qent){ ++f->seq, off, len, type };
	f->unacked_bytes += len;
}

static void queue_data(struct sfile *f, uint64_t a, uint64_t b)
{
	for (; a < b; a += MTS_DATA_MAX)
		queue(f, Q_DATA, a, b - a < MTS_DATA_MAX ? b - a : MTS_DATA_MAX);
}

static void add_hole(struct range **h, size_t *n, size_t *cap, uint64_t a, uint64_t b)
{
	*h = grow(*h, cap, *n, sizeof **h);
	(*h)[(*n)++] = (struct range){ a, b };
}

/* Slots of the record whose head is s (n at hand): 0 when they are not all at hand */
static unsigned extent(const struct mtrace_slot *s, uint64_t n)
{
	struct mtrace_record r;
	if (mtrace_call_is_ext(s->call) && s->aux > MTRACE_EXT_SLOTS_MAX)
		return 1;   /* (not a record of this format: sent as one slot) */
	return mtrace_decode(s, n, 0, &r);
}

/* Queue what is committed in [a, b) of f; runs of unwritten slots go to holes (those at the end
   too when `bounded`, a hole read again); raw: every slot not all zero is sent (the file is
   final).  Returns the end of the last record queued, or a where none was. */
static uint64_t scan(struct sfile *f, uint64_t a, uint64_t b, int bounded, int raw,
		     struct range **h, size_t *nh, size_t *caph)
{
	uint64_t o = a, last = a, run = UINT64_MAX, zero = UINT64_MAX;
	while (o + SLOT <= b) {
		size_t n = (size_t)((b - o < SCAN_MAX ? b - o : SCAN_MAX) / SLOT * SLOT);
		ssize_t got = pread(f->fd, scan_buf, n, (off_t)o);
		if (got < (ssize_t)SLOT)
			break;
		uint64_t ns = (uint64_t)got / SLOT, i = 0;
		const struct mtrace_slot *s = (const struct mtrace_slot *)scan_buf;
		while (i < ns) {
			unsigned e = 1;
			static const struct mtrace_slot zero_slot;
			int written = raw ? memcmp(&s[i], &zero_slot, SLOT) != 0 : s[i].call != 0;
			if (!written) {
				if (run != UINT64_MAX)
					queue_data(f, run, o + i * SLOT), run = UINT64_MAX;
				if (zero == UINT64_MAX)
					zero = o + i * SLOT;
				i++;
				continue;
			}
			if (!raw && !(e = extent(&s[i], ns - i))) {
				if (i > 0 || o + got < b)
					break;          /* read again from this head */
				e = (unsigned)(ns - i);  /* (past the region: not a record) */
			}
			if (zero != UINT64_MAX)
				add_hole(h, nh, caph, zero, o + i * SLOT), zero = UINT64_MAX;
			if (run == UINT64_MAX)
				run = o + i * SLOT;
			i += e < ns - i ? e : ns - i;
			last = o + i * SLOT;
		}
		if (i == 0)
			break;
		o += i * SLOT;
	}
	if (run != UINT64_MAX)
		queue_data(f, run, last);
	if (bounded && zero != UINT64_MAX)
		add_hole(h, nh, caph, zero, b);
	return bounded ? b : last;
}

/* The writer of f has ended or finished it */
static int writer_gone(struct sfile *f, const struct mtrace_file_header *hd)
{
	return (hd->flags & MTRACE_HF_FINISHED) || (kill(f->pid, 0) < 0 && errno == ESRCH);
}

/* One pass over f: what was committed since the last, its header if it changed; everything,
   then END, once final */
static void follow(struct sfile *f, int tree_ended)
{
	struct mtrace_file_header hd;
	struct stat st;
	if (f->ended || fstat(f->fd, &st) < 0)
		return;
	if (pread(f->fd, &hd, sizeof hd, 0) != (ssize_t)sizeof hd ||
	    memcmp(hd.magic, MTRACE_MAGIC, MTRACE_MAGIC_LEN) || hd.version < 3 ||
	    hd.byte_order_mark != MTRACE_BYTE_ORDER_MARK || hd.header_size < sizeof hd) {
		if (tree_ended) {   /* never a trace of ours: its bytes as they are */
			f->scanned = 0;
			goto final;
		}
		return;
	}
	int final = tree_ended || (f->hsize && writer_gone(f, &hd));
	if (!f->hsize) {
		f->hsize = hd.header_size;
		f->pid = hd.pid;
		f->scanned = f->hsize;
		f->hdr = calloc(1, f->hsize);
		if (!f->hdr)
			_exit(3);
	}
	unsigned char h[MTRACE_HEADER_MAX];
	if (pread(f->fd, h, f->hsize, 0) == (ssize_t)f->hsize && memcmp(h, f->hdr, f->hsize)) {
		memcpy(f->hdr, h, f->hsize);
		queue(f, Q_HEADER, 0, f->hsize);
	}
	/* the holes read again, then what is new */
	struct range *nh = NULL;
	size_t nn = 0, capn = 0;
	for (size_t i = 0; i < f->nholes; i++)
		scan(f, f->holes[i].a, f->holes[i].b, 1, 0, &nh, &nn, &capn);
	free(f->holes);
	f->holes = nh, f->nholes = nn, f->capholes = capn;
	f->scanned = scan(f, f->scanned, (uint64_t)st.st_size, 0, 0, &f->holes, &f->nholes,
			  &f->capholes);
	if (!final)
		return;
final:;
	struct range *none = NULL;
	size_t n0 = 0, c0 = 0;
	for (size_t i = 0; i < f->nholes; i++)
		scan(f, f->holes[i].a, f->holes[i].b, 0, 1, &none, &n0, &c0);
	if (fstat(f->fd, &st) == 0)
		scan(f, f->scanned, (uint64_t)st.st_size, 0, 1, &none, &n0, &c0);
	free(none);
	free(f->holes);
	f->holes = NULL, f->nholes = f->capholes = 0;
	if (f->hsize)
		queue(f, Q_HEADER, 0, f->hsize);
	queue(f, Q_END, 0, 0);
	f->ended = 1;
}

/* Follow path, open as fd (-1: open it here) */
static void add_file(const char *path, int fd)
{
	for (size_t i = 0; i < nfiles; i++)
		if (!strcmp(files[i].path, path))
			return;
	if (fd < 0)
		fd = open(path, (opt->no_keep ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return;   /* (gone already: nothing of it to send) */
	files = grow(files, &capfiles, nfiles, sizeof *files);
	struct sfile *f = &files[nfiles++];
	memset(f, 0, sizeof *f);
	snprintf(f->path, sizeof f->path, "%s", path);
	f->fd = fd;
	f->id = (uint32_t)nfiles;
}

/* New lines of the manifest */
static void read_manifest(int mfd, char *line, size_t cap, size_t *nline)
{
	char buf[4096];
	ssize_t n;
	while ((n = read(mfd, buf, sizeof buf)) > 0)
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				if (*nline < cap - 1)
					line[(*nline)++] = buf[i];
				continue;
			}
			line[*nline] = 0;
			if (*nline)
				add_file(line, -1);
			*nline = 0;
		}
}

/* ---------------------------------------------------------------------------------------------
   The connection
   ------------------------------------------------------------------------------------------- */

static char hostname[MTS_NAME_MAX + 1];

/* name with every character a collector refuses in a file name made '_' */
static void plain_name(char *out, size_t cap, const char *name)
{
	size_t n = 0;
	for (; name[n] && n < cap - 1 && n < MTS_NAME_MAX; n++)
		out[n] = name[n] > 0x20 && name[n] < 0x7f && name[n] != '/' && name[n] != '\\'
			 ? name[n] : '_';
	out[n] = 0;
	if (n == 0)
		out[n++] = '_', out[n] = 0;
	if (out[0] == '.')
		out[0] = '_';
}

/* Put a frame (small: HELLO, FILE, RESUME) in the frame buffer after what is there */
static void put_frame(unsigned type, uint32_t id, const void *p, uint32_t len)
{
	mts_put_head(frame_buf + frame_len, type, id, len);
	memcpy(frame_buf + frame_len + MTS_HEAD_SIZE, p, len);
	frame_len += MTS_HEAD_SIZE + len;
}

/* A new connection: HELLO, then each file not done named again and its unacknowledged
   frames from the first */
static void greet(void)
{
	unsigned char p[12 + MTS_NAME_MAX + 16];
	size_t hl = strlen(hostname);
	frame_len = frame_pos = 0;
	version = opt->compress == SEND_COMPRESS_NONE || raw_only ? 1 : MTS_VERSION;
	memcpy(p, MTS_MAGIC, MTS_MAGIC_LEN);
	mts_put16(p + 8, (uint16_t)version);
	mts_put16(p + 10, (uint16_t)hl);
	memcpy(p + 12, hostname, hl);
	put_frame(MTS_HELLO, 0, p, (uint32_t)(12 + hl));
	for (size_t i = 0; i < nfiles; i++)
		files[i].qsend = files[i].qhead, files[i].named = 0;
}

/* The next frame to send into frame_buf: 1, or 0 when there is none */
static int next_frame(void)
{
	static size_t turn;
	for (size_t k = 0; k < nfiles; k++) {
		struct sfile *f = &files[(turn + k) % nfiles];
		if (f->done || f->qsend == f->qn)
			continue;
		turn = (turn + k + 1) % nfiles;
		frame_len = frame_pos = 0;
		if (!f->named) {   /* the first of this connection: name the file */
			f->named = 1;
			unsigned char p[10 + MTS_NAME_MAX + 1], o[8];
			char name[MTS_NAME_MAX + 1];
			const char *slash = strrchr(f->path, '/');
			plain_name(name, sizeof name, slash ? slash + 1 : f->path);
			size_t nl = strlen(name);
			mts_put32(p, f->acked ? MTS_FILE_RESUME : 0);
			mts_put32(p + 4, (uint32_t)f->pid);
			mts_put16(p + 8, (uint16_t)nl);
			memcpy(p + 10, name, nl);
			put_frame(MTS_FILE, f->id, p, (uint32_t)(10 + nl));
			mts_put64(o, f->q[f->qhead].off);
			put_frame(MTS_RESUME, f->id, o, 8);
		}
		struct qent *e = &f->q[f->qsend++];
		unsigned char *h = frame_buf + frame_len, *p = h + MTS_HEAD_SIZE;
		struct stat st;
		uint64_t size = fstat(f->fd, &st) == 0 ? (uint64_t)st.st_size : 0;
		size_t len = 16;
		mts_put64(p + 8, e->seq);
		if (e->type == Q_END) {
			mts_put64(p, size);
			mts_put_head(h, MTS_END, f->id, 16);
		} else {
			ssize_t got = pread(f->fd, p + 16, e->len, (off_t)e->off);
			if (got < 0)
				got = 0;
			memset(p + 16 + got, 0, e->len - (size_t)got);
			/* (packed, smaller by more than ZDATA's 8 bytes more: within the bound) */
			size_t packed = e->type != Q_DATA || version < 2 || e->len <= 8 ? 0 :
				mts_pack(p + 16, e->len, pack_buf, e->len - 8);
			unsigned type = e->type == Q_HEADER ? MTS_HEADER : MTS_DATA;
			if (packed) {
				mts_put32(p + 16, (uint32_t)e->len);
				mts_put32(p + 20, MTS_CODEC_SLOTS);
				memcpy(p + 24, pack_buf, packed);
				len += 8 + packed;
				type = MTS_ZDATA;
			} else
				len += e->len;
			if (e->type == Q_DATA)
				sent_raw += e->len, sent_wire += MTS_HEAD_SIZE + len;
			mts_put64(p, e->type == Q_HEADER ? size : e->off);
			mts_put_head(h, type, f->id, (uint32_t)len);
		}
		frame_len += MTS_HEAD_SIZE + len;
		return 1;
	}
	return 0;
}

static void acked(uint32_t id, uint64_t seq)
{
	if (id == 0 || id > nfiles)
		return;
	struct sfile *f = &files[id - 1];
	if (seq > f->acked)
		f->acked = seq;
	while (f->qhead < f->qn && f->q[f->qhead].seq <= f->acked) {
		f->unacked_bytes -= f->q[f->qhead].len;
		if (f->q[f->qhead++].type == Q_END)
			f->done = 1;
	}
	if (f->qsend < f->qhead)
		f->qsend = f->qhead;
	if (f->qhead == f->qn)
		f->qhead = f->qn = f->qsend = 0;
}

/* The collector refused a version-2 HELLO: it reads no compressed frames.  The next
   connection is uncompressed, or, compression required, there is none.  -1 (dropped) */
static int older_collector(const struct link *l)
{
	raw_only = 1;
	refused = opt->compress == SEND_COMPRESS_SLOTS;
	fprintf(stderr, "mtracectl: the collector %s reads no compressed frames (an older "
		"trace_recv): %s\n", l->dest, refused ? "--send-compress=slots sends nothing to "
		"it, the local files keep the traces" : "sending uncompressed");
	return -1;
}

/* What the collector said: 0, or -1 (the connection is to be dropped) */
static int read_link(struct link *l)
{
	for (;;) {
		ssize_t n = recv(l->fd, l->in + l->nin, sizeof l->in - l->nin, 0);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n <= 0)
			return -1;
		l->nin += (size_t)n;
		size_t o = 0;
		while (l->nin - o >= MTS_HEAD_SIZE) {
			const unsigned char *h = l->in + o;
			uint32_t len = mts_get32(h + 8);
			if (len > sizeof l->in - MTS_HEAD_SIZE)
				return -1;
			if (l->nin - o < MTS_HEAD_SIZE + len)
				break;
			if (h[0] == MTS_ACK && len == 8)
				acked(mts_get32(h + 4), mts_get64(h + MTS_HEAD_SIZE));
			else if (h[0] == MTS_ERROR) {
				const char *t = (const char *)h + MTS_HEAD_SIZE;
				if (version >= 2 && len >= 15 && !memcmp(t, "stream version ", 15))
					return older_collector(l);
				fprintf(stderr, "mtracectl: the collector %s says: %.*s\n", l->dest,
					(int)len, t);
				return -1;
			}
			o += MTS_HEAD_SIZE + len;
		}
		memmove(l->in, l->in + o, l->nin - o);
		l->nin -= o;
	}
}

/* Write frames while the link takes them: 0, or -1 (dropped) */
static int write_link(struct link *l)
{
	for (;;) {
		if (frame_pos == frame_len && !next_frame())
			return 0;
		ssize_t w = send(l->fd, frame_buf + frame_pos, frame_len - frame_pos,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		frame_pos += (size_t)w;
	}
}

static uint64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static int all_done(void)
{
	for (size_t i = 0; i < nfiles; i++)
		if (!files[i].done)
			return 0;
	return 1;
}

#define PASS_MS 20             /* between passes over the files */
#define BACKOFF_MAX_MS 5000    /* between attempts to reconnect, doubling from 100 ms */

/* Follow manifest's files (or file, of process pid) until the tree ended (done_fd closed, or
   pid gone) and the collector acknowledged all of them: 0, or 1 when it never did */
static int sender(const char *manifest, const char *file, int file_fd, pid_t pid, int done_fd)
{
	struct link l = { .dest = opt->dest, .fd = -1 };
	int mfd = manifest ? open(manifest, O_RDONLY | O_CLOEXEC) : -1, tree_ended = 0;
	static char line[PATH_MAX];
	size_t nline = 0;
	uint64_t retry_at = 0, backoff = 100, ended_at = 0;
	char why[512] = "", lastwhy[512] = "";
	scan_buf = malloc(SCAN_MAX);
	frame_buf = malloc(2 * (MTS_HEAD_SIZE + MTS_PAYLOAD_MAX));
	pack_buf = malloc(PACK_CAP);
	if (!scan_buf || !frame_buf || !pack_buf)
		return 3;
	if (gethostname(line, 256) < 0)
		snprintf(line, sizeof line, "localhost");
	line[255] = 0;
	plain_name(hostname, sizeof hostname, line);
	if (file)
		add_file(file, file_fd);
	for (;;) {
		if (mfd >= 0)
			read_manifest(mfd, line, sizeof line, &nline);
		for (size_t i = 0; i < nfiles; i++) {
			follow(&files[i], tree_ended);
			if (opt->no_keep)
				send_give_back(&files[i]);
		}
		send_check_backlog(files, nfiles, opt);
		if ((tree_ended || (file && nfiles && files[0].ended)) && all_done())
			break;
		if (file && !tree_ended && kill(pid, 0) < 0 && errno == ESRCH)
			tree_ended = 1, ended_at = now_ms();
		if (l.fd < 0 && !refused && now_ms() >= retry_at) {
			if (link_open(&l, why, sizeof why) == 0) {
				greet();
				backoff = 100;
			} else {
				if (!opt->quiet && strcmp(why, lastwhy))
					fprintf(stderr, "mtracectl: cannot send to %s: %s (trying "
						"again)\n", opt->dest, why);
				snprintf(lastwhy, sizeof lastwhy, "%s", why);
				retry_at = now_ms() + backoff;
				backoff = backoff * 2 < BACKOFF_MAX_MS ? backoff * 2 : BACKOFF_MAX_MS;
			}
		}
		/* (read even when a write failed: the collector's ERROR says why it closed) */
		if (l.fd >= 0 && (write_link(&l) < 0) + (read_link(&l) < 0)) {
			link_close(&l);
			retry_at = now_ms() + backoff;
		}
		if (tree_ended && (refused || now_ms() - ended_at > opt->give_up_s * 1000ull)) {
			uint64_t left = 0;
			for (size_t i = 0; i < nfiles; i++)
				left += files[i].unacked_bytes;
			if (!refused)   /* (else said already) */
				fprintf(stderr, "mtracectl: %s never acknowledged %llu bytes of "
					"the traces in %u s: the local files keep them\n",
					opt->dest, (unsigned long long)left, opt->give_up_s);
			link_close(&l);
			return 1;
		}
		struct pollfd p[2] = { { .fd = done_fd, .events = POLLIN },
				       { .fd = l.fd, .events = POLLIN |
						(frame_pos < frame_len ? POLLOUT : 0) } };
		if (poll(p, 2, PASS_MS) > 0 && p[0].revents && !tree_ended) {
			char c;
			if (read(done_fd, &c, 1) <= 0) {
				tree_ended = 1;
				ended_at = now_ms();
				if (mfd >= 0)   /* (the last lines, before the final pass) */
					read_manifest(mfd, line, sizeof line, &nline);
			}
		}
		if (tree_ended)
			done_fd = -1;
	}
	/* shut our side: the collector sees the stream end between frames */
	link_close(&l);
	if (!opt->quiet && sent_wire) {
		char raw[32], wire[32];
		fprintf(stderr, "mtracectl: sent %s bytes of traces as %s on the wire (%.2fx)\n",
			fmt_commas(raw, sent_raw), fmt_commas(wire, sent_wire),
			(double)sent_raw / (double)sent_wire);
	}
	return 0;
}

pid_t send_start(const struct send_opts *o, const char *manifest, const char *file, int file_fd,
		 pid_t pid, int *done_fd)
{
	int p[2], ask = -1;
	if (pipe2(p, O_CLOEXEC) < 0 || (manifest && o->backlog && send_stopper_start(&ask) < 0))
		return -1;
	pid_t s = fork();
	if (s < 0)
		return -1;
	if (s == 0) {
		close(p[1]);
		send_stop_through(ask);
		/* the terminal's ^C is for the program: the sender ends when the tree has */
		signal(SIGINT, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
		signal(SIGTSTP, SIG_IGN);
		signal(SIGPIPE, SIG_IGN);
		opt = o;
		_exit(sender(manifest, file, file_fd, pid, p[0]));
	}
	close(p[0]);
	if (ask >= 0)
		close(ask);
	*done_fd = p[1];
	return s;
}

int send_wait(pid_t sender_pid)
{
	int st;
	while (waitpid(sender_pid, &st, 0) < 0)
		if (errno != EINTR)
			return 3;
	send_stopper_join();
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
