/* retitle.c - a program that writes a title over its arguments, as redis-server and
 * setproctitle do ("retitle *:7392"), then forks a child that makes more calls than it.
 * Usage: retitle PADDING (an argument long enough to hold the title) */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static const char title[] = "retitle *:7392";
	if (argc < 2)
		return 2;
	char *end = argv[argc - 1] + strlen(argv[argc - 1]);
	if ((size_t)(end - argv[0]) < sizeof title)
		return 2;
	memset(argv[0], 0, (size_t)(end - argv[0]));
	memcpy(argv[0], title, sizeof title);
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	int calls = pid == 0 ? 200 : 10;
	for (int i = 0; i < calls; i++)
		free(malloc(64 + (size_t)i));
	if (pid == 0)
		return 0;
	int st;
	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
