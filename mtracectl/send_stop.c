/* send_stop.c - --backlog: the tracers asked to stop by mtracectl itself, not by the sender.
 *
 * A request reaches a tracer through process_vm_writev, which the kernel allows to whoever may
 * ptrace the process.  Where Yama's ptrace_scope is 1 that is an ancestor only: the sender, a
 * sibling of the program, is refused, while mtracectl, the program's parent, is not.  So the
 * sender writes the pid to a pipe, and a thread of mtracectl (every signal blocked in it: the
 * signals are the main thread's to pass on) makes the request.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "send.h"
#include "switch.h"

static pthread_t stopper;
static int stopper_running, ask_fd = -1;

static void *stop_asked(void *arg)
{
	int fd = (int)(intptr_t)arg;
	int32_t pid;
	for (;;) {
		ssize_t n = read(fd, &pid, sizeof pid);   /* (written whole: less than PIPE_BUF) */
		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof pid)
			break;
		char err[4096];
		if (switch_stop_backlog((pid_t)pid, err, sizeof err) < 0)
			fprintf(stderr, "mtracectl: cannot stop the trace of process %d: %s\n",
				(int)pid, err);
	}
	close(fd);
	return NULL;
}

int send_stopper_start(int *sender_end)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int e = pthread_create(&stopper, NULL, stop_asked, (void *)(intptr_t)p[0]);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e) {
		close(p[0]), close(p[1]);
		errno = e;
		return -1;
	}
	stopper_running = 1;
	*sender_end = p[1];
	return 0;
}

void send_stopper_join(void)
{
	if (stopper_running)
		pthread_join(stopper, NULL);   /* (its pipe ends with the sender) */
	stopper_running = 0;
}

void send_stop_through(int fd)
{
	ask_fd = fd;
}

int send_ask_stop(pid_t pid, char *err, size_t cap)
{
	if (ask_fd < 0)
		return switch_stop_backlog(pid, err, cap);
	int32_t p = (int32_t)pid;
	if (write(ask_fd, &p, sizeof p) != (ssize_t)sizeof p) {
		snprintf(err, cap, "asking mtracectl: %s", strerror(errno));
		return -1;
	}
	return 0;
}
