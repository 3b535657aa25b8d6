/* proc.c - running a program with our descriptors, waiting for it, finding it (proc.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "proc.h"

pid_t tool_spawn(char *const args[], int in, int out, int quiet)
{
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	if (in != 0)
		dup2(in, 0);   /* (dup2 clears O_CLOEXEC on the copy) */
	if (out != 1)
		dup2(out, 1);
	int devnull = quiet ? open("/dev/null", O_WRONLY) : -1;
	if (devnull >= 0)
		dup2(devnull, 2);
	execvp(args[0], args);
	_exit(127);
}

int tool_wait_ok(pid_t pid)
{
	int st = 0;
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

const char *tool_package_of(const char *prog)
{
	return strcmp(prog, "xz") == 0 ? "xz-utils" : prog;
}

int tool_on_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];
	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t len = colon ? (size_t)(colon - path) : strlen(path);
		snprintf(buf, sizeof buf, "%.*s/%s", (int)len, path, prog);
		if (access(buf, X_OK) == 0)
			return 1;
		path += len + (colon != NULL);
	}
	return 0;
}
