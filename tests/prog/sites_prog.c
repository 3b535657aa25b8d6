/* sites_prog - test program: three functions allocate known bytes, one leaks known blocks
 * (expectations in t_sites.sh, traced with mtracectl --stacks).  No stdio: nothing else
 * allocates.
 *   cache_fill  40 x malloc(1000)      freed at the end
 *   parse       30 x calloc(10, 20)    freed at the end
 *   build       20 x malloc(300)       freed at the end
 *   leak_some   10 x malloc(100)       never freed
 * Every block is allocated before the first free: the ideal-RSS peak holds all 100.
 *   sites_prog mtrace   the same under glibc's mtrace() (with libc_malloc_debug.so preloaded
 *                       and MALLOC_TRACE set: a log whose callers name the functions, which
 *                       the build exports for dladdr)
 */
#include <mcheck.h>
#include <stdlib.h>
#include <string.h>

void *sink[100];

__attribute__((noinline)) void cache_fill(void **v)
{
	for (int i = 0; i < 40; i++)
		v[i] = malloc(1000);
}

__attribute__((noinline)) void parse(void **v)
{
	for (int i = 0; i < 30; i++)
		v[i] = calloc(10, 20);
}

__attribute__((noinline)) void build(void **v)
{
	for (int i = 0; i < 20; i++)
		v[i] = malloc(300);
}

__attribute__((noinline)) void leak_some(void **v)
{
	for (int i = 0; i < 10; i++)
		v[i] = malloc(100);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "mtrace"))
		mtrace();
	cache_fill(sink);
	parse(sink + 40);
	build(sink + 70);
	leak_some(sink + 90);
	for (int i = 0; i < 90; i++)
		free(sink[i]);
	return 0;
}
