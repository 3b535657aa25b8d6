/* ptyrun - run a command with its standard output and error on a pseudo-terminal COLS columns
 * wide, and copy what it writes there to our standard output, byte for byte (no "\n" -> "\r\n":
 * a carriage return in the copy is one the command wrote).  Its standard input is /dev/null.
 * Exits with the command's status.
 *
 *   ptyrun COLS COMMAND [ARGUMENT]...
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: ptyrun COLS COMMAND [ARGUMENT]...\n");
		return 2;
	}
	int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0) {
		perror("ptyrun: posix_openpt");
		return 2;
	}
	const char *name = ptsname(master);
	int slave = name ? open(name, O_RDWR | O_NOCTTY) : -1;
	if (slave < 0) {
		perror("ptyrun: the terminal's other end");
		return 2;
	}
	struct winsize ws = { .ws_row = 24, .ws_col = (unsigned short)atoi(argv[1]) };
	struct termios t;
	if (ioctl(slave, TIOCSWINSZ, &ws) < 0 || tcgetattr(slave, &t) < 0) {
		perror("ptyrun: the terminal's size");
		return 2;
	}
	t.c_oflag &= ~(tcflag_t)OPOST;   /* the bytes as written */
	tcsetattr(slave, TCSANOW, &t);
	pid_t pid = fork();
	if (pid == 0) {
		setsid();
		ioctl(slave, TIOCSCTTY, 0);
		int null = open("/dev/null", O_RDONLY);
		dup2(null, 0);
		dup2(slave, 1);
		dup2(slave, 2);
		close(slave);
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	close(slave);
	char buf[4096];
	for (;;) {
		ssize_t n = read(master, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;   /* EIO: every holder of the terminal's other end has closed it */
		fwrite(buf, 1, (size_t)n, stdout);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
