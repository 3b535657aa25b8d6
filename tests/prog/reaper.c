/* reaper - runs one test with a time limit, then kills every process the test left behind.
 *
 *   reaper SECONDS COMMAND [ARG...]
 *
 * The command runs in a process group of its own.  The reaper is the child subreaper of
 * everything the command starts (PR_SET_CHILD_SUBREAPER), so a process that outlives its parent,
 * or that moved to another process group or session (as `timeout` and `setsid` do), comes back
 * to the reaper instead of init: once the command has ended, or has been killed for running
 * past SECONDS, every such process is killed with SIGKILL (also one that blocks every signal,
 * as a spinning valgrind does) until none is left.  Exits with the command's status, 124 when
 * it ran out of time (as timeout(1)), 128+N when a signal N ended it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t timed_out, asked_to_stop;

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
}

static void on_stop(int sig)
{
	asked_to_stop = sig;
}

/* The parent of process pid, from /proc/PID/stat (its 4th field, after the name in parens). */
static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	char *close_paren = strrchr(buf, ')');
	int ppid;
	if (!close_paren || sscanf(close_paren + 1, " %*c %d", &ppid) != 1)
		return -1;
	return ppid;
}

/* SIGKILL to every child of ours (the orphans the subreaper took in, whatever their group), then
   reap.  Returns how many were killed. */
static int kill_children(pid_t self, FILE *log)
{
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0 || parent_of((pid_t)pid) != self)
			continue;
		char path[64], comm[64] = "?";
		snprintf(path, sizeof path, "/proc/%ld/comm", pid);
		FILE *f = fopen(path, "r");
		if (f) {
			if (fgets(comm, sizeof comm, f))
				comm[strcspn(comm, "\n")] = 0;
			fclose(f);
		}
		if (kill((pid_t)pid, SIGKILL) == 0) {
			fprintf(log, "reaper: killed process %ld (%s), left running by the test\n", pid,
				comm);
			n++;
		}
	}
	closedir(d);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	return n;
}

int main(int argc, char **argv)
{
	if (argc < 3 || atoi(argv[1]) <= 0) {
		fprintf(stderr, "usage: reaper SECONDS COMMAND [ARG...]\n");
		return 125;
	}
	unsigned secs = (unsigned)atoi(argv[1]);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
		perror("reaper: PR_SET_CHILD_SUBREAPER");
		return 125;
	}
	pid_t self = getpid(), child = fork();
	if (child < 0) {
		perror("reaper: fork");
		return 125;
	}
	if (child == 0) {
		setpgid(0, 0);
		execvp(argv[2], argv + 2);
		fprintf(stderr, "reaper: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	setpgid(child, child);   /* (both sides: no race with the first kill) */
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	alarm(secs);

	int st = 0, status;
	for (;;) {
		pid_t w = waitpid(child, &st, 0);
		if (w == child)
			break;
		if (w < 0 && errno != EINTR)
			break;
		if (timed_out || asked_to_stop) {
			/* the group first, politely, then everything that is left */
			kill(-child, SIGTERM);
			struct timespec grace = { 2, 0 };
			nanosleep(&grace, NULL);
			kill(-child, SIGKILL);
			kill(child, SIGKILL);
		}
	}
	if (timed_out) {
		fprintf(stderr, "reaper: the test ran past %u s and was killed\n", secs);
		status = 124;
	} else if (WIFSIGNALED(st))
		status = 128 + WTERMSIG(st);
	else
		status = WEXITSTATUS(st);
	/* what the test left: its process group, then every orphan that came back to us, until
	   none is left (a killed parent's children come to us next round) */
	kill(-child, SIGKILL);
	for (int round = 0; round < 1000; round++) {
		int n = kill_children(self, stderr);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (n == 0) {
			struct timespec tick = { 0, 10000000 };
			nanosleep(&tick, NULL);
			if (kill_children(self, stderr) == 0 && waitpid(-1, NULL, WNOHANG) <= 0)
				break;
		}
	}
	if (asked_to_stop) {
		signal(asked_to_stop, SIG_DFL);
		raise(asked_to_stop);
	}
	return status;
}
