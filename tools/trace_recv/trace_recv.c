/* trace_recv - the collector: receive traces from mtracectl --send, each process's as
 * DIR/HOST/NAME, written as it arrives.  One process, poll(): a connection costs one frame's
 * buffer; a stream that breaks the format is refused alone. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "recv_conn.h"
#include "tool.h"

static const char usage_text[] =
	"Usage: trace_recv -o DIR [--listen [ADDR:]PORT] [--max-conn=N]\n"
	"  or:  trace_recv -o DIR -\n"
	"Receive traces sent by mtracectl --send and write each process's trace as\n"
	"DIR/HOST/NAME, the same bytes as the sender's file, readable while it arrives.\n"
	"With -, one stream is read on standard input and acknowledged on standard\n"
	"output (for ssh: mtracectl --send='|ssh HOST trace_recv -o DIR -').\n"
	"\n"
	"  -o, --output=DIR     where the traces go (created if missing)\n"
	"  -l, --listen=[ADDR:]PORT  accept senders over TCP (no encryption, no\n"
	"                       authentication: trusted networks only; default ADDR\n"
	"                       127.0.0.1; PORT 0: any free port); prints\n"
	"                       \"listening on ADDR:PORT\" once ready\n"
	"      --max-conn=N     senders at once (default 64); more wait\n"
	"  -q, --quiet          print nothing but errors\n"
	"  -h, --help           show this help and exit\n"
	"  -V, --version        show the version and exit\n"
	"\n"
	"Exit status: 0 (with -: every file of the stream was complete); 1 a stream\n"
	"was refused or cut (with -); 2 bad command line; 3 system failure.\n";

struct slot {
	int fd;                 /* -1: free */
	struct rconn c;
	char peer[80];
	int closing;            /* refused or ended: send c.out, then close */
};

static volatile sig_atomic_t stop;
static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static int quiet;

static int open_listener(const char *spec)
{
	char host[256] = "127.0.0.1";
	const char *port = spec, *colon = strrchr(spec, ':');
	if (colon) {
		size_t n = (size_t)(colon - spec);
		if (n >= sizeof host)
			tool_die(EXIT_USAGE, "--listen: too long an address");
		if (n) {
			memcpy(host, spec, n);
			host[n] = 0;
		}
		port = colon + 1;
	}
	uint64_t pn;
	if (parse_u64(port, &pn) < 0 || pn > 65535)
		tool_die(EXIT_USAGE, "--listen wants [ADDR:]PORT, not '%s'", spec);
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV }, *ai;
	int r = getaddrinfo(host, port, &hints, &ai);
	if (r)
		tool_die(EXIT_USAGE, "--listen %s: %s", spec, gai_strerror(r));
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), one = 1;
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 64) < 0)
		tool_die(EXIT_SYSTEM, "--listen %s: %s", spec, strerror(errno));
	freeaddrinfo(ai);
	struct sockaddr_storage sa;
	socklen_t sl = sizeof sa;
	char h[NI_MAXHOST], p[NI_MAXSERV];
	if (getsockname(fd, (struct sockaddr *)&sa, &sl) == 0 &&
	    getnameinfo((struct sockaddr *)&sa, sl, h, sizeof h, p, sizeof p,
			NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
		printf("listening on %s:%s\n", h, p);
		fflush(stdout);
	}
	return fd;
}

/* Send what c holds for its sender; -1 when the connection is gone */
static int flush_out(int fd, struct rconn *c)
{
	while (c->nout) {
		ssize_t w = send(fd, c->out, c->nout, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && errno == ENOTSOCK)
			w = write(fd, c->out, c->nout);
		if (w < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		memmove(c->out, c->out + w, c->nout - (size_t)w);
		c->nout -= (size_t)w;
	}
	return 0;
}

/* One stream on standard input, ACKs on standard output */
static int recv_stdin(int dirfd)
{
	static struct rconn c;
	static unsigned char buf[64 * 1024];
	if (rc_init(&c, dirfd, "<stdin>") < 0)
		tool_die(EXIT_SYSTEM, "out of memory");
	for (;;) {
		ssize_t n = read(0, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			tool_die(EXIT_SYSTEM, "reading standard input: %s", strerror(errno));
		int r = n == 0 ? rc_eof(&c) : rc_feed(&c, buf, (size_t)n);
		if (r == 0)
			r = rc_sync(&c);
		/* (blocking output: the sender reads its ACKs as it sends) */
		for (size_t o = 0; o < c.nout;) {
			ssize_t w = write(1, c.out + o, c.nout - o);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break;
			o += (size_t)w;
		}
		c.nout = 0;
		if (r < 0) {
			tool_warn("%s", c.err);
			rc_free(&c);
			return EXIT_BADFILE;
		}
		if (n == 0)
			break;
	}
	if (!quiet)
		fprintf(stderr, "trace_recv: <stdin> %s: %u trace%s received\n", c.host,
			c.nfiles_done, c.nfiles_done == 1 ? "" : "s");
	rc_free(&c);
	return EXIT_OK;
}

static void drop(struct slot *s)
{
	close(s->fd);
	rc_free(&s->c);
	s->fd = -1;
}

static int serve(int dirfd, int lfd, unsigned max_conn)
{
	struct slot *s = calloc(max_conn, sizeof *s);
	struct pollfd *pf = calloc(max_conn + 1, sizeof *pf);
	static unsigned char buf[256 * 1024];
	if (!s || !pf)
		tool_die(EXIT_SYSTEM, "out of memory");
	for (unsigned i = 0; i < max_conn; i++)
		s[i].fd = -1;
	while (!stop) {
		unsigned used = 0;
		for (unsigned i = 0; i < max_conn; i++) {
			pf[i].fd = s[i].fd;
			/* read only while the ACKs are sent: a sender that reads none is not
			   given more room */
			pf[i].events = (s[i].c.nout ? POLLOUT : 0) |
				       (!s[i].closing && s[i].c.nout < sizeof s[i].c.out / 2 ?
					POLLIN : 0);
			used += s[i].fd >= 0;
		}
		pf[max_conn].fd = used < max_conn ? lfd : -1;
		pf[max_conn].events = POLLIN;
		if (poll(pf, max_conn + 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			tool_die(EXIT_SYSTEM, "poll: %s", strerror(errno));
		}
		if (pf[max_conn].revents & POLLIN) {
			struct sockaddr_storage sa;
			socklen_t sl = sizeof sa;
			int fd = accept4(lfd, (struct sockaddr *)&sa, &sl,
					 SOCK_NONBLOCK | SOCK_CLOEXEC);
			unsigned i = 0;
			while (fd >= 0 && s[i].fd >= 0)
				i++;
			if (fd >= 0) {
				char h[NI_MAXHOST] = "?", p[NI_MAXSERV] = "?";
				getnameinfo((struct sockaddr *)&sa, sl, h, sizeof h, p, sizeof p,
					    NI_NUMERICHOST | NI_NUMERICSERV);
				snprintf(s[i].peer, sizeof s[i].peer, "%s:%s", h, p);
				if (rc_init(&s[i].c, dirfd, s[i].peer) < 0) {
					close(fd);
					tool_warn("%s: out of memory: refused", s[i].peer);
				} else
					s[i].fd = fd, s[i].closing = 0;
			}
		}
		for (unsigned i = 0; i < max_conn; i++) {
			struct slot *t = &s[i];
			if (t->fd < 0 || !pf[i].revents)
				continue;
			int r = 0, gone = 0;
			if (pf[i].revents & (POLLIN | POLLHUP | POLLERR) && !t->closing) {
				ssize_t n = recv(t->fd, buf, sizeof buf, 0);
				if (n < 0 && (errno == EAGAIN || errno == EINTR))
					n = -2;
				if (n == 0 || n == -1) {
					gone = 1;
					if (rc_eof(&t->c) < 0 && !quiet)
						tool_warn("%s", t->c.err);
				} else if (n > 0)
					r = rc_feed(&t->c, buf, (size_t)n);
				if (r == 0 && !gone)
					r = rc_sync(&t->c);
				if (r < 0) {
					tool_warn("%s", t->c.err);
					t->closing = 1;
				}
			}
			if (!gone && flush_out(t->fd, &t->c) < 0)
				gone = 1;
			if (gone || (t->closing && !t->c.nout))
				drop(t);
		}
	}
	for (unsigned i = 0; i < max_conn; i++)
		if (s[i].fd >= 0)
			drop(&s[i]);
	free(s);
	free(pf);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	tool_set_name("trace_recv", argv);
	static const struct option longopts[] = {
		{ "output", required_argument, 0, 'o' }, { "listen", required_argument, 0, 'l' },
		{ "max-conn", required_argument, 0, 'm' }, { "quiet", no_argument, 0, 'q' },
		{ "help", no_argument, 0, 'h' }, { "version", no_argument, 0, 'V' },
		{ 0, 0, 0, 0 },
	};
	const char *dir = NULL, *listen_spec = NULL;
	uint64_t max_conn = 64;
	int c;
	while ((c = getopt_long(argc, argv, "o:l:qhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': dir = optarg; break;
		case 'l': listen_spec = optarg; break;
		case 'm':
			if (parse_u64(optarg, &max_conn) < 0 || max_conn < 1 || max_conn > 4096)
				tool_die(EXIT_USAGE, "--max-conn wants 1 to 4096, not '%s'", optarg);
			break;
		case 'q': quiet = 1; break;
		case 'h': tool_help(usage_text);
		case 'V': tool_version();
		default: fputs("Try 'trace_recv --help'.\n", stderr); return EXIT_USAGE;
		}
	}
	int from_stdin = optind == argc - 1 && !strcmp(argv[optind], "-");
	if (!dir || (optind != argc && !from_stdin) || (from_stdin && listen_spec) ||
	    (!from_stdin && !listen_spec)) {
		fputs("trace_recv: -o DIR and either --listen [ADDR:]PORT or -\n"
		      "Try 'trace_recv --help'.\n", stderr);
		return EXIT_USAGE;
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		tool_die(EXIT_SYSTEM, "%s: %s", dir, strerror(errno));
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		tool_die(EXIT_SYSTEM, "%s: %s", dir, strerror(errno));
	signal(SIGPIPE, SIG_IGN);
	if (from_stdin)
		return recv_stdin(dirfd);
	struct sigaction sa = { .sa_handler = on_stop };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	int lfd = open_listener(listen_spec);
	return serve(dirfd, lfd, (unsigned)max_conn);
}
