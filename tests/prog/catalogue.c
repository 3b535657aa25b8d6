/* catalogue - hostile programs for the capture tests, one mode each; every mode prints what it
 * did so traced and untraced runs can be compared.
 *   catalogue dlopen LIB | deepbind LIB | signal | longjmp | spawn | envchurn | mallopt
 *             | pretrace DIR */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static volatile sig_atomic_t hits, jumpable;
static sigjmp_buf jb;

static void alloc_handler(int sig)
{
	(void)sig;
	/* not async-signal-safe by the book; programs do it anyway.  A size class of its own, so
	   that glibc itself stays consistent (the main loop's class is never touched here): what
	   is tested is the tracer, interrupted anywhere in its own entry points. */
	free(malloc(1000));
	hits++;
}

static void jump_handler(int sig)
{
	(void)sig;
	hits++;
	/* only from between allocator calls: jumping out of glibc's own malloc corrupts it, traced
	   or not (what is tested is the tracer's state across such jumps) */
	if (jumpable)
		siglongjmp(jb, 1);
}

static void ticker(void (*h)(int))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = h;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	setitimer(ITIMER_REAL, &it, NULL);
}

static void stop_ticker(void)
{
	struct itimerval it = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &it, NULL);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "dlopen") || !strcmp(mode, "deepbind")) {
		void *h =
			dlopen(argv[2], RTLD_NOW | (!strcmp(mode, "deepbind") ? RTLD_DEEPBIND : 0));
		if (!h) {
			printf("dlopen failed: %s\n", dlerror());
			return 1;
		}
		void *(*la)(size_t) = (void *(*)(size_t))dlsym(h, "lib_alloc");
		void (*lf)(void *) = (void (*)(void *))dlsym(h, "lib_free");
		void *p = la(2003);      /* allocated by the library, freed by us */
		free(p);
		lf(malloc(2004));       /* allocated by us, freed by the library */
		dlclose(h);
		printf("%s ok\n", mode);
		return 0;
	}
	if (!strcmp(mode, "signal")) {
		/* both size classes once before the first tick: glibc sets up its per-thread cache
		   and takes its arena lock on a class's first call, and a handler interrupting that
		   would wait for the lock its own thread holds (untraced too, on a loaded machine) */
		free(malloc(1000));
		free(malloc(16));
		ticker(alloc_handler);
		unsigned long sum = 0;
		while (hits < 200) {   /* as many handler runs however fast the machine */
			char *p = malloc(16);
			p[0] = 1;
			sum += p[0];
			free(p);
		}
		stop_ticker();
		printf("signal ok (handler ran %d times)\n", (int)hits >= 200 ? 200 : (int)hits);
		return 0;
	}
	if (!strcmp(mode, "longjmp")) {
		ticker(jump_handler);
		volatile long done = 0;
		while (hits < 100) {
			sigsetjmp(jb, 1);
			jumpable = 0;
			for (int i = 0; i < 1000; i++)
				free(malloc(32));
			jumpable = 1;
			for (volatile int spin = 0; spin < 20000; spin++)
				;
			done++;
		}
		jumpable = 0;
		stop_ticker();
		/* the program still allocates normally afterwards */
		void *p = malloc(2006);
		free(p);
		printf("longjmp ok (%s)\n", done > 0 ? "looped" : "no loop");
		return 0;
	}
	if (!strcmp(mode, "spawn")) {
		pid_t pid;
		char *args[] = { "/bin/sh", "-c", "exit 7", NULL };
		int st, rc = posix_spawn(&pid, "/bin/sh", NULL, NULL, args, environ);
		waitpid(pid, &st, 0);
		printf("posix_spawn: rc %d, exit %d\n", rc, WEXITSTATUS(st));
		pid = vfork();
		if (pid == 0) {
			execl("/bin/sh", "sh", "-c", "exit 9", (char *)NULL);
			_exit(127);
		}
		waitpid(pid, &st, 0);
		printf("vfork: exit %d\n", WEXITSTATUS(st));
		return 0;
	}
	if (!strcmp(mode, "mallopt")) {
		/* the program tunes its allocator: results and errno as untraced; what succeeded is
		   the trace's to keep (the second M_TOP_PAD replaces the first) */
		errno = 0;
		int a = mallopt(M_TOP_PAD, 4096), b = mallopt(M_ARENA_MAX, 1),
		    c = mallopt(M_TOP_PAD, 65536);
		/* unknown to the header (glibc says 1, and ignores it) */
		int d = mallopt(12345, 1);
		printf("mallopt: %d %d %d %d, errno %d\n", a, b, c, d, errno);
		for (int i = 0; i < 100; i++)
			free(malloc(100));
		return 0;
	}
	if (!strcmp(mode, "envchurn")) {
		char name[32], val[64];
		for (int i = 0; i < 3000; i++) {
			snprintf(name, sizeof name, "CHURN_%d", i % 50);
			snprintf(val, sizeof val, "value-%d", i);
			setenv(name, val, 1);
			if (i % 7 == 0)
				unsetenv(name);
			if (i % 1000 == 999)
				clearenv();
			free(malloc(2007));
		}
		printf("envchurn ok\n");
		return 0;
	}
	return 2;
}
