/* preload.c - what makes libmtracectl.so trace a whole program: start in the constructor,
 * stop after the last library's destructor.  Everything else (environment, fork, exec) lives in
 * malloc/control.c, shared with libmtrace.so, which has no constructor and records only between
 * mtrace_start() and mtrace_stop().
 *
 * exec needs nothing here: the new image inherits LD_PRELOAD and its own constructor opens a
 * new file (BASE.<pid>.1, since the pre-exec image already took BASE.<pid>).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mtrace.h"

extern char **environ;
void mtrace_init_dormant(void);   /* malloc/remote.c */

/* Does the file name in path begin with one of the names of the list (NAME[,NAME...])? */
static int named(const char *path, const char *list)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	while (*list) {
		size_t len = strcspn(list, ",");
		if (len && strncmp(base, list, len) == 0)
			return 1;
		list += len + (list[len] == ',');
	}
	return 0;
}

/* MTRACE_CTL_ONLY=NAME[,NAME...]: is this program one to trace?  The file name of its
   executable, or of the name it was run by (a link's: redis-server, where the executable is
   redis-check-rdb), begins with one of the names.  Unset: every program is. */
static int wanted(const char *only, const char *argv0)
{
	if (only == NULL)
		return 1;
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = 0;
		if (named(exe, only))
			return 1;
	}
	return argv0 && named(argv0, only);
}

__attribute__((constructor)) static void mtracectl_start(int argc, char **argv, char **envp)
{
	int saved = errno;   /* the program must see the errno it would have seen without us */
	/* run first (-z initfirst): before libc's own initialisation sets it */
	if (environ == NULL)
		environ = envp;
	/* MTRACE_CTL_START=0: dormant, until switched on from outside (mtracectl --start PID);
	   under secure execution the invoking user's environment cannot switch tracing off */
	const char *start = secure_getenv("MTRACE_CTL_START");
	if ((start && strcmp(start, "0") == 0) ||
	    !wanted(secure_getenv("MTRACE_CTL_ONLY"), argc > 0 ? argv[0] : NULL))
		mtrace_init_dormant();
	else
		mtrace_start();
	errno = saved;
}

static void stop(void *unused)
{
	int saved = errno;
	mtrace_stop();
	errno = saved;
}

int __cxa_atexit(void (*fn)(void *), void *arg, void *dso);

/* The loader finalises the libraries in an order of its own, ours among the first (nothing
   depends on us), and their destructors free what their constructors allocated.  exit()
   runs its handlers until none is left, also those registered while it runs them (glibc
   starts its list over), and the loader's finalisation is one of them: registered from here,
   the stop comes after every library's destructor.  Registered with no DSO handle: atexit()
   would pass ours, and our own finalisation would run the stop at once. */
__attribute__((destructor)) static void mtracectl_stop(void)
{
	if (__cxa_atexit(stop, NULL, NULL) != 0)
		stop(NULL);
}
