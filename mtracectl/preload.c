/* preload.c - what makes libmtracectl.so trace a whole program: start in the constructor,
 * stop in the destructor.  Everything else (environment, fork, exec) lives in malloc/control.c,
 * shared with libmtrace.so, which has no constructor and records only between mtrace_start()
 * and mtrace_stop().
 *
 * exec needs nothing here: the new image inherits LD_PRELOAD and its own constructor opens a
 * new file (BASE.<pid>.1, since the pre-exec image already took BASE.<pid>).
 */
#include <errno.h>
#include <stddef.h>
#include "mtrace.h"

extern char **environ;

__attribute__((constructor)) static void mtracectl_start(int argc, char **argv, char **envp)
{
	int saved = errno;   /* the program must see the errno it would have seen without us */
	if (environ == NULL)
		environ = envp;   /* run first (-z initfirst): before libc's own initialisation sets it */
	mtrace_start();
	errno = saved;
}

__attribute__((destructor)) static void mtracectl_stop(void)
{
	int saved = errno;
	mtrace_stop();
	errno = saved;
}
