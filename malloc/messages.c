/* messages.c - what the tracer says on the stderr the process started with, and decimal
 * numbers for it, without stdio (which may allocate, and takes locks a program in the middle
 * of a printf may hold).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "mt_int.h"

/* ---------------------------------------------------------------------------------------------
   Messages
   ------------------------------------------------------------------------------------------- */

size_t mt_fmt_u64(char *buf, unsigned long long v)
{
	char tmp[24];
	size_t n = 0, i;
	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	return n;
}

static const char *err_text(int err)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 32)
	const char *s = strerrordesc_np(err);   /* no locale, no allocation, unlike strerror */
	if (s)
		return s;
#endif
	return "error";
}

/* Messages go to the stderr the process started with, and only there: descriptor 2 while it
   is still that file (a daemon's fd 2 may be a data file of its own by now: then nothing is
   said).  One write each (so that lines of processes do not mix), of any length.
   Informational lines ("writing to", "N entries recorded") only when asked:
   MTRACE_CTL_VERBOSE, or stderr a terminal and MTRACE_CTL_QUIET unset (a user trying the
   preload by hand sees them; programs whose stderr is read, test suites, never do).  Warnings
   that tracing stopped always print. */
static struct { int known; uint64_t dev, ino; } stderr_at_start;
static int msg_quiet;   /* no informational lines */   /* known: 1, -1 closed */

static void stderr_init(void)
{
	struct stat st;
	stderr_at_start.known = fstat(2, &st) == 0 ? 1 : -1;
	stderr_at_start.dev = stderr_at_start.known > 0 ? (uint64_t)st.st_dev : 0;
	stderr_at_start.ino = stderr_at_start.known > 0 ? (uint64_t)st.st_ino : 0;
}

void mt_msg_init(void)
{
	const char *v = secure_getenv("MTRACE_CTL_VERBOSE"), *q = secure_getenv("MTRACE_CTL_QUIET");
	int verbose = v && *v && strcmp(v, "0") != 0, quiet = q && *q && strcmp(q, "0") != 0;
	msg_quiet = !verbose && (quiet || !isatty(2));
	stderr_init();
}

/* A message, in one write.  A stderr nobody reads any more must not kill the program with
   SIGPIPE: it is blocked for the write, and the one the write raised is taken back unless one
   was pending already.  (writev and sigtimedwait are cancellation points: not for us.) */
static void write_stderr(const struct iovec *iov, int n)
{
	int e = errno, cancel;
	if (stderr_at_start.known == 0)
		stderr_init();   /* (a message before initialisation: fd 2 is still the first) */
	if (stderr_at_start.known < 0 || !mt_fds_is(2, stderr_at_start.dev, stderr_at_start.ino)) {
		errno = e;
		return;
	}
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	sigset_t pipe_only, old, pending;
	sigemptyset(&pipe_only);
	sigaddset(&pipe_only, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
	int had = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1;
	if (writev(2, iov, n) < 0 && errno == EPIPE && !had) {
		struct timespec none = { 0, 0 };
		sigtimedwait(&pipe_only, NULL, &none);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_setcancelstate(cancel, NULL);
	errno = e;
}

static void say(const char *msg1, const char *msg2, int err)
{
	struct iovec iov[6];
	int n = 0;
#define PIECE(s) (iov[n].iov_base = (void *)(s), iov[n].iov_len = strlen(s), n++)
	PIECE("mtracectl: ");
	PIECE(msg1);
	if (msg2) {
		PIECE(" ");
		PIECE(msg2);
	}
	if (err) {
		PIECE(": ");
		PIECE(err_text(err));
	}
	PIECE("\n");
#undef PIECE
	write_stderr(iov, n);
}

void mt_msg_warn(const char *msg1, const char *msg2, int err)
{
	say(msg1, msg2, err);
}

void mt_msg_info(const char *msg1, const char *msg2)
{
	if (!msg_quiet)
		say(msg1, msg2, 0);
}

/* The warning that tracing stopped (mt_file_fail), always said */
void mt_msg_stopped(const char *what, int err)
{
	static const char tail[] = "; tracing stopped, the program goes on";
	struct iovec iov[6] = { { "mtracectl: ", 11 }, { (void *)what, strlen(what) } };
	int n = 2;
	if (err) {
		iov[n++] = (struct iovec){ ": ", 2 };
		iov[n].iov_base = (void *)err_text(err);
		iov[n].iov_len = strlen(iov[n].iov_base);
		n++;
	}
	iov[n++] = (struct iovec){ (void *)tail, sizeof tail - 1 };
	iov[n++] = (struct iovec){ "\n", 1 };
	write_stderr(iov, n);
}
