/* fdlist - prints the descriptors the process holds (as python's test_subprocess looks at them,
 * in /proc/self/fd) at its start, after enough calls for a trace to grow past 16 MiB (the
 * populating thread then runs), in a fork child, and in a program it execs: traced, each list
 * must be what it is untraced.  With an argument, only lists (the exec'd program). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void list(const char *when)
{
	DIR *d = opendir("/proc/self/fd");
	int self = d ? dirfd(d) : -1;
	printf("%s:", when);
	for (struct dirent *e; d && (e = readdir(d)) != NULL;)
		if (e->d_name[0] != '.' && atoi(e->d_name) != self)
			printf(" %s", e->d_name);
	printf("\n");
	fflush(stdout);
	if (d)
		closedir(d);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		list(argv[1]);
		return 0;
	}
	list("start");
	for (long i = 0; i < 300000; i++)
		free(malloc(16 + i % 100));
	list("after 600,000 calls");
	pid_t pid = fork();
	if (pid == 0) {
		free(malloc(100));
		list("fork child");
		execl("/proc/self/exe", "fdlist", "exec'd", (char *)NULL);
		_exit(127);
	}
	int st;
	waitpid(pid, &st, 0);
	return 0;
}
