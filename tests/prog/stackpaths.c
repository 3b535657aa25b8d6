/* stackpaths - test helper: the same stack depth reached by different call paths in turn, for
 * the stacks a thread keeps from its last walk (malloc/walk.c).  Each allocation's size says
 * which path made it:
 *
 *   1001  path_b from path_a from main        1002  path_b from path_c from main (path_a and
 *         path_c alike: path_b's frame lies at the same sp, only its return address differs)
 *   1003, 1004  path_b from main, from two lines of main
 *   2000 + D  recurse D + 1 times from main (D = 3, 1, 4, 2, 9)
 *   3001  on_usr1, a SIGUSR1 handler raised inside path_d    3002  path_d from main, after it
 *
 * in ROUNDS rounds (default 3), in the main thread, then the same in a second thread.  Prints
 * nothing; exit 0.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

#define NOIPA __attribute__((noipa))
#define AFTER_CALL() __asm__ volatile("" ::: "memory")   /* (no tail call: the frame stays) */

static void *keep[4096];
static unsigned kept;

static NOIPA void take(size_t n)
{
	void *p = malloc(n);
	if (kept < sizeof keep / sizeof keep[0])
		keep[kept++] = p;
	AFTER_CALL();
}

static NOIPA void path_b(size_t n)
{
	take(n);
	AFTER_CALL();
}

static NOIPA void path_a(size_t n)
{
	path_b(n);
	AFTER_CALL();
}

static NOIPA void path_c(size_t n)
{
	path_b(n);
	AFTER_CALL();
}

static NOIPA void recurse(unsigned d, size_t n)
{
	if (d == 0)
		take(n);
	else
		recurse(d - 1, n);
	AFTER_CALL();
}

static NOIPA void on_usr1(int sig)
{
	(void)sig;
	take(3001);
	AFTER_CALL();
}

static NOIPA void path_d(void)
{
	raise(SIGUSR1);
	take(3002);
	AFTER_CALL();
}

static void *rounds(void *arg)
{
	static const unsigned depths[] = { 3, 1, 4, 2, 9 };
	int n = *(const int *)arg;
	for (int r = 0; r < n; r++) {
		path_a(1001);
		path_c(1002);
		path_b(1003);
		path_b(1004);
		for (unsigned i = 0; i < sizeof depths / sizeof depths[0]; i++)
			recurse(depths[i], 2000 + depths[i]);
		path_d();
		path_a(1001);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	signal(SIGUSR1, on_usr1);
	rounds(&n);
	pthread_t th;
	if (pthread_create(&th, NULL, rounds, &n) != 0 || pthread_join(th, NULL) != 0)
		return 1;
	for (unsigned i = 0; i < kept; i++)
		free(keep[i]);
	return 0;
}
