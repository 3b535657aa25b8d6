/* signals.c - mtracectl's signals.  Running a program, mtracectl is the process a user (kill)
 * or a service manager sees, so every signal it can catch goes on to the program, and the
 * program's job control is mtracectl's as a shell's child's would be: stopped (^Z, or a
 * SIGTSTP sent to mtracectl), the program stops, then mtracectl; continued, both go on.
 * mtracectl waits for the program to end, reports, removes its manifest and exits as the
 * program did.  --for waits for the ones that would end it (sig_ending_set), to stop the
 * recording first.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "signals.h"
#include "tool.h"

static sigset_t ignored_at_start;   /* (nohup's SIGHUP; a non-interactive shell's & job's SIGINT) */

/* Before any other constructor: the tools' own (msg.c) ignores SIGXFSZ, which the program must
   not inherit */
__attribute__((constructor(101))) static void note_ignored(void)
{
	sigemptyset(&ignored_at_start);
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction sa;
		if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
			sigaddset(&ignored_at_start, sig);
	}
}

/* What a process can catch, less SIGCHLD (mtracectl's own news of the program) and the C
   library's reserved real-time signals */
static int catchable(int sig)
{
	return sig != SIGKILL && sig != SIGSTOP && sig != SIGCHLD &&
	       (sig < 32 || (sig >= SIGRTMIN && sig <= SIGRTMAX));
}

static int ignored_by_default(int sig)
{
	return sig == SIGCHLD || sig == SIGCONT || sig == SIGURG || sig == SIGWINCH;
}

static int stops(int sig)
{
	return sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* the signals the processor raises for a bug, which are also sent by kill */
static int is_fault(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE ||
	       sig == SIGTRAP || sig == SIGSYS;
}

void sig_ending_set(sigset_t *set)
{
	sigemptyset(set);
	for (int sig = 1; sig < NSIG; sig++)
		if (catchable(sig) && !sigismember(&ignored_at_start, sig) &&
		    !ignored_by_default(sig) && !stops(sig) && !is_fault(sig))
			sigaddset(set, sig);
}

/* ---------------------------------------------------------------------------------------------
   The program's signals
   ------------------------------------------------------------------------------------------- */

static volatile sig_atomic_t program_pid;   /* 0 once it is reaped: its pid may be reused */
static volatile sig_atomic_t stop_asked;    /* a SIGTSTP, SIGTTIN or SIGTTOU reached us */
static volatile sig_atomic_t program_stopped;   /* as the last news of it said */
static pid_t self;
static sigset_t caught;

/* sig's own effect on mtracectl, whose temporary files go first if it ends it */
static void take_effect(int sig)
{
	if (ignored_by_default(sig))
		return;
	if (!stops(sig))
		tool_remove_temps();   /* async-signal-safe */
	signal(sig, SIG_DFL);
	raise(sig);   /* (blocked in the handler: taken as it returns) */
}

/* The program stopped and a stop signal reached mtracectl: mtracectl stops too, of the
   program's signal (SIGSTOP in a handler, where that one is blocked), so that its own parent
   (a shell) sees the job stopped; once continued, it continues the program (a SIGCONT it
   catches it passes on itself). */
static void stop_with(int sig, pid_t pid)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL }, was = dfl;
	if (!stops(sig))
		sig = SIGSTOP;
	sigemptyset(&dfl.sa_mask);
	if (sig != SIGSTOP)
		sigaction(sig, &dfl, &was);
	raise(sig);
	if (sig != SIGSTOP)
		sigaction(sig, &was, NULL);
	if (!sigismember(&caught, SIGCONT))
		kill(pid, SIGCONT);
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	int e = errno;
	pid_t pid = program_pid;
	int sent = si->si_code == SI_USER || si->si_code == SI_QUEUE || si->si_code == SI_TKILL;
	if (sig == SIGXFSZ && sent && si->si_pid == self)
		return;   /* a write of ours past the file size limit fails instead, as in any tool */
	if ((is_fault(sig) && si->si_code > 0) || pid <= 0) {
		take_effect(sig);   /* a bug of ours, or a signal after the program ended */
		errno = e;
		return;
	}
	/* not passed on: the kernel's (the terminal's ^C, ^\, ^Z, new size, hangup and
	   background reads and writes go to its whole foreground process group, the program
	   included; our own timers and limits are ours), nor what the program or mtracectl
	   sent itself (kill(0, sig) to the process group) */
	if (si->si_code != SI_KERNEL && !(sent && (si->si_pid == pid || si->si_pid == self))) {
		if (si->si_code == SI_QUEUE)
			sigqueue(pid, sig, si->si_value);   /* (the value with it) */
		else
			kill(pid, sig);
	}
	/* the program stops of it (wait_program stops us then), or stopped already: the terminal
	   signals the program first, and its news may come before this */
	if (stops(sig)) {
		if (program_stopped)
			stop_with(SIGSTOP, pid);
		else
			stop_asked = 1;
	}
	errno = e;
}

void forward_setup(sigset_t *old)
{
	self = getpid();
	sigemptyset(&caught);
	for (int sig = 1; sig < NSIG; sig++)
		if (catchable(sig) && !sigismember(&ignored_at_start, sig))
			sigaddset(&caught, sig);
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO | SA_RESTART };
	sa.sa_mask = caught;
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(&caught, sig))
			sigaction(sig, &sa, NULL);
	/* an ignored SIGCHLD would reap the program before we could wait for it */
	if (sigismember(&ignored_at_start, SIGCHLD))
		signal(SIGCHLD, SIG_DFL);
	sigprocmask(SIG_BLOCK, &caught, old);
}

void forward_undo(const sigset_t *old)
{
	/* (exec resets caught signals to their default; an ignored one it keeps) */
	for (int sig = 1; sig < NSIG; sig++)
		if (catchable(sig) || sig == SIGCHLD)
			signal(sig, sigismember(&ignored_at_start, sig) ? SIG_IGN : SIG_DFL);
	sigprocmask(SIG_SETMASK, old, NULL);
}

int wait_program(pid_t pid, const sigset_t *old)
{
	program_pid = pid;
	sigset_t blocked;
	sigprocmask(SIG_SETMASK, old, &blocked);   /* signals sent before now are passed on now */
	for (;;) {
		/* the program's end leaves it a zombie (WNOWAIT) until the signals are blocked
		   again, so that none can reach another process given its pid */
		siginfo_t si, taken;
		memset(&si, 0, sizeof si);
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WSTOPPED | WCONTINUED | WNOWAIT) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		int stopped = si.si_code == CLD_STOPPED;
		if (!stopped && si.si_code != CLD_CONTINUED)
			break;
		/* (taken, or reported again at once) */
		waitid(P_PID, (id_t)pid, &taken, (stopped ? WSTOPPED : WCONTINUED) | WNOHANG);
		program_stopped = stopped;
		if (stopped && stop_asked) {
			stop_asked = 0;
			stop_with(si.si_status, pid);
		}
	}
	sigprocmask(SIG_SETMASK, &blocked, NULL);
	program_pid = 0;
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	sigprocmask(SIG_SETMASK, old, NULL);   /* later ones act on mtracectl itself */
	return status;
}
