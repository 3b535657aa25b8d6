/* stacks: three functions allocate known bytes (1111 three times by malloc, 2222 twice by
 * calloc, 3333 once by realloc), a signal handler allocates 4444, and with "fork" a child
 * allocates 5555 in a function of its own, and nest1 -> nest2 -> nest3 allocate 6666 ("wide":
 * alloc_wide's calls alone, too large for a compact record with a stack id); each
 * function's address is printed first ("NAME ADDRESS", the test finds its size with nm), for
 * t_stacks.sh to check that each call's CALLER names a stack whose frame 0 lies in the function
 * that made it.
 */
#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *volatile keep[16];

__attribute__((noinline)) void alloc_one(void)
{
	for (int i = 0; i < 3; i++)
		keep[i] = malloc(1111);
}

__attribute__((noinline)) void alloc_two(void)
{
	for (int i = 0; i < 2; i++)
		keep[3 + i] = calloc(2, 1111);
}

__attribute__((noinline)) void alloc_three(void)
{
	keep[5] = realloc(NULL, 3333);
}

__attribute__((noinline)) void on_signal(int sig)
{
	(void)sig;
	free(malloc(4444));   /* (glibc's malloc is safe here: the program is not inside it) */
}

/* a chain of calls down to malloc(6666), for a stack deeper than its first frame (built with
   the default flags: -O2, no frame pointers) */
__attribute__((noinline)) void nest3(void)
{
	keep[7] = malloc(6666);
	__asm__ volatile("");   /* (no tail call) */
}

__attribute__((noinline)) void nest2(void)
{
	nest3();
	__asm__ volatile("");
}

__attribute__((noinline)) void nest1(void)
{
	nest2();
	__asm__ volatile("");
}

__attribute__((noinline)) void child_alloc(void)
{
	keep[6] = malloc(5555);
}

/* The library NAME beside the program (argv0's directory), opened; NULL if it cannot be */
static void *open_beside(const char *argv0, const char *name)
{
	char path[PATH_MAX + 64];
	const char *slash = strrchr(argv0, '/');
	if (slash == NULL || slash - argv0 >= PATH_MAX)
		return NULL;
	snprintf(path, sizeof path, "%.*s/%s", (int)(slash - argv0), argv0, name);
	return dlopen(path, RTLD_NOW);
}

/* "dl": libstk_keep.so (kept) and libstk_gone.so (closed after its call), beside the program;
   each function's address printed as the others'.  "dlquiet": no allocation after the dlclose,
   so no later stack can be what notices the unload. */
static int libraries(const char *argv0, int quiet)
{
	void *keep_lib = open_beside(argv0, "libstk_keep.so");
	void *gone_lib = open_beside(argv0, "libstk_gone.so");
	if (keep_lib == NULL || gone_lib == NULL)
		return 1;
	void *(*k)(void) = (void *(*)(void))dlsym(keep_lib, "stk_keep_alloc");
	void *(*g)(void) = (void *(*)(void))dlsym(gone_lib, "stk_gone_alloc");
	if (k == NULL || g == NULL)
		return 1;
	printf("stk_keep_alloc %p\nstk_gone_alloc %p\n", (void *)k, (void *)g);
	fflush(stdout);
	keep[8] = k();
	keep[9] = g();
	dlclose(gone_lib);
	if (!quiet) {
		keep[10] = malloc(1234);   /* (after the dlclose: a later stack sees it too) */
		free(keep[10]);
	}
	free(keep[8]);
	free(keep[9]);
	return 0;
}

/* "dlswap": libstk_ra.so opened, called (its frame's rule learned), closed; libstk_rb.so then
   opened, where the loader puts it (said: "same place" when its function is where libstk_ra's
   was), and called: its stack must hold swap_libs and main */
__attribute__((noinline)) int swap_libs(const char *argv0)
{
	void *a = open_beside(argv0, "libstk_ra.so");
	void *(*fa)(void) = a ? (void *(*)(void))dlsym(a, "stk_r_alloc") : NULL;
	if (fa == NULL)
		return 1;
	keep[11] = fa();
	dlclose(a);
	void *b = open_beside(argv0, "libstk_rb.so");
	void *(*fb)(void) = b ? (void *(*)(void))dlsym(b, "stk_r_alloc") : NULL;
	if (fb == NULL)
		return 1;
	printf("stk_r_alloc %p\nswap_libs %p\n%s\n", (void *)fb, (void *)swap_libs,
	       fa == fb ? "same place" : "moved");
	fflush(stdout);
	keep[12] = fb();
	free(keep[11]);
	free(keep[12]);
	return 0;
}

/* calls whose arguments leave no room for a stack id in a compact record (a count over 20 bits,
   a size over 40: the second fails), and one that has room */
__attribute__((noinline)) void alloc_wide(void)
{
	keep[13] = calloc((size_t)1 << 21, 1);
	keep[14] = malloc((size_t)1 << 41);
	keep[15] = aligned_alloc(64, 192);
	__asm__ volatile("");
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "wide") == 0) {
		printf("alloc_wide %p\n", (void *)alloc_wide);
		fflush(stdout);
		alloc_wide();
		for (int i = 13; i < 16; i++)
			free(keep[i]);
		return 0;
	}
	printf("alloc_one %p\nalloc_two %p\nalloc_three %p\non_signal %p\nchild_alloc %p\n"
	       "nest1 %p\nnest2 %p\nnest3 %p\nmain %p\n",
	       (void *)alloc_one, (void *)alloc_two, (void *)alloc_three, (void *)on_signal,
	       (void *)child_alloc, (void *)nest1, (void *)nest2, (void *)nest3, (void *)main);
	fflush(stdout);
	alloc_one();
	alloc_two();
	alloc_three();
	nest1();
	signal(SIGUSR1, on_signal);
	raise(SIGUSR1);
	if (argc > 1 && (strcmp(argv[1], "dl") == 0 || strcmp(argv[1], "dlquiet") == 0) &&
	    libraries(argv[0], strcmp(argv[1], "dlquiet") == 0))
		return 1;
	if (argc > 1 && strcmp(argv[1], "dlswap") == 0 && swap_libs(argv[0]))
		return 1;
	if (argc > 1 && strcmp(argv[1], "fork") == 0) {
		pid_t pid = fork();
		if (pid == 0) {
			child_alloc();
			alloc_one();
			_exit(0);
		}
		int st;
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
	}
	free(keep[7]);
	for (int i = 0; i < 6; i++)
		free(keep[i]);
	puts("stacks ok");
	return 0;
}
