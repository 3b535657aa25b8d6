/* send_link.c - the sender's connection to its collector: a TCP connection to HOST:PORT, or a
 * command run by sh -c with a socket as its standard input and output ('|ssh ... trace_recv -').
 * Either way one socket, non-blocking, that send.c writes frames to and reads ACKs from. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "send.h"

int link_dest_ok(const char *dest)
{
	if (dest[0] == '|')
		return dest[1] != 0;
	const char *colon = strrchr(dest, ':');
	if (!colon || colon == dest || !colon[1])
		return 0;
	for (const char *p = colon + 1; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return atoi(colon + 1) > 0 && atoi(colon + 1) < 65536;
}

static int connect_tcp(const char *dest, char *why, size_t cap)
{
	char host[256];
	const char *colon = strrchr(dest, ':');
	size_t n = (size_t)(colon - dest);
	if (n >= sizeof host)
		n = sizeof host - 1;
	memcpy(host, dest, n);
	host[n] = 0;
	if (n > 2 && host[0] == '[' && host[n - 1] == ']')   /* [::1]:PORT */
		memmove(host, host + 1, n - 2), host[n - 2] = 0;
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV }, *ai, *a;
	int r = getaddrinfo(host, colon + 1, &hints, &ai);
	if (r) {
		snprintf(why, cap, "%s: %s", host, gai_strerror(r));
		return -1;
	}
	int fd = -1;
	for (a = ai; a && fd < 0; a = a->ai_next) {
		fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) < 0) {
			snprintf(why, cap, "%s: %s", dest, strerror(errno));
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(ai);
	return fd;
}

/* '|COMMAND': sh -c COMMAND in its own process group, killed with it when the link closes */
static int spawn(struct link *l, const char *cmd, char *why, size_t cap)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		snprintf(why, cap, "socketpair: %s", strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(why, cap, "fork: %s", strerror(errno));
		close(sv[0]), close(sv[1]);
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGPIPE, SIG_DFL);
		if (dup2(sv[1], 0) < 0 || dup2(sv[1], 1) < 0)
			_exit(127);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	close(sv[1]);
	l->child = pid;
	return sv[0];
}

int link_open(struct link *l, char *why, size_t cap)
{
	l->fd = l->dest[0] == '|' ? spawn(l, l->dest + 1, why, cap) : connect_tcp(l->dest, why, cap);
	if (l->fd < 0)
		return -1;
	fcntl(l->fd, F_SETFL, fcntl(l->fd, F_GETFL) | O_NONBLOCK);
	l->nin = 0;
	return 0;
}

void link_close(struct link *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
	if (l->child > 0) {
		/* the command had its stream's end: a moment to finish, then its group goes */
		int st;
		for (int i = 0; i < 500 && waitpid(l->child, &st, WNOHANG) == 0; i++)
			usleep(10000);
		kill(-l->child, SIGKILL);
		waitpid(l->child, &st, 0);
		l->child = 0;
	}
}
