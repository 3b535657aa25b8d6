/* cutproxy - a TCP proxy on loopback that cuts its first CUTS connections after BYTES bytes
 * from the client, and forwards the later ones whole: a link that drops mid-stream.
 *   cutproxy TARGET_PORT BYTES CUTS
 * Prints "port N" once listening; then, at each cut, "cut K" (K: the cuts so far).  One
 * connection at a time; ends when killed. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

static int dial(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	int target = atoi(argv[1]), cuts = atoi(argv[3]), done = 0;
	long long budget = atoll(argv[2]);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof a;
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(lfd, 4) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&a, &sl) < 0)
		return 3;
	printf("port %d\n", ntohs(a.sin_port));
	fflush(stdout);
	static char buf[65536];
	for (;;) {
		int c = accept(lfd, NULL, NULL), s = c < 0 ? -1 : dial(target);
		if (s < 0) {
			if (c >= 0)
				close(c);
			continue;
		}
		long long passed = 0;
		for (;;) {
			struct pollfd p[2] = { { .fd = c, .events = POLLIN }, { .fd = s, .events = POLLIN } };
			if (poll(p, 2, -1) < 0)
				break;
			if (p[0].revents) {
				size_t want = sizeof buf;
				if (done < cuts && budget - passed < (long long)want)
					want = (size_t)(budget - passed);
				ssize_t n = want ? read(c, buf, want) : 0;
				if (n <= 0 || write(s, buf, (size_t)n) != n)
					break;
				passed += n;
			}
			if (p[1].revents) {
				ssize_t n = read(s, buf, sizeof buf);
				if (n <= 0 || write(c, buf, (size_t)n) != n)
					break;
			}
		}
		if (done < cuts && passed >= budget) {
			printf("cut %d\n", ++done);
			fflush(stdout);
		}
		close(c);
		close(s);
	}
}
