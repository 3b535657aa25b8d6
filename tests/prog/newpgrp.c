/* newpgrp - run a command in a process group of its own, in this session, and wait for it, as
 * a shell with job control runs a job: while newpgrp lives the group is not orphaned, so a stop
 * signal stops it (the kernel drops SIGTSTP, SIGTTIN and SIGTTOU in an orphaned group).
 * Exits with the command's status (128+N if signal N killed it).
 *   newpgrp COMMAND [ARGUMENT]... */
#include <errno.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	pid_t pid = fork();
	if (pid < 0)
		return 125;
	if (pid == 0) {
		setpgid(0, 0);
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	setpgid(pid, pid);   /* (whichever runs first) */
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 125;
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}
