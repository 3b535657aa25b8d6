/* send_pid.c - mtracectl --start --send=DEST PID: the one trace a running process starts,
 * found as that process names it, followed and sent until it is stopped or the process ends. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mtrace-trace.h"
#include "send.h"
#include "switch.h"
#include "tool.h"

/* The trace process pid says it writes to (name), opened as reached from here: its name is
   from its root (and its working directory), which may not be ours (a container).  The file
   must be the trace of pid: its descriptor, or -1 said. */
static int trace_of(pid_t pid, const char *name, int writable)
{
	char path[PATH_MAX + 300];
	snprintf(path, sizeof path, "/proc/%d/%s/%s", (int)pid, name[0] == '/' ? "root" : "cwd",
		 name);
	struct mtrace_file_header h;
	int fd = open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (fd >= 0 && pread(fd, &h, sizeof h, 0) == (ssize_t)sizeof h &&
	    !memcmp(h.magic, MTRACE_MAGIC, MTRACE_MAGIC_LEN) && h.pid == (int32_t)pid)
		return fd;
	fprintf(stderr, "mtracectl: process %d: %s: %s\n", (int)pid, path,
		fd < 0 ? strerror(errno) : "not its trace");
	if (fd >= 0)
		close(fd);
	return -1;
}

/* mtracectl --start --send=DEST PID: start recording, then send the trace until PID ends or the
   trace is stopped, and the collector has it all */
int send_started(const struct send_opts *so, const char *pid_arg, const char *base,
		 unsigned wait_ms, int quiet)
{
	char file[PATH_MAX + 256] = "";
	int r = switch_main('s', pid_arg, base, 0, wait_ms, quiet, file, sizeof file);
	if (r || !file[0])
		return r;
	pid_t pid = (pid_t)atoi(pid_arg);
	int fd = trace_of(pid, file, so->no_keep), done_fd;
	if (fd < 0)
		return EXIT_TOOL;
	pid_t s = send_start(so, NULL, file, fd, pid, &done_fd);
	if (s < 0)
		tool_die(EXIT_TOOL, "cannot start the sender: %s", strerror(errno));
	close(fd);
	r = send_wait(s);
	close(done_fd);
	return r ? EXIT_TOOL : EXIT_OK;
}
