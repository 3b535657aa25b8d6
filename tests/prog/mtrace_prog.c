/* mtrace_prog - calls glibc's mtrace() around a known set of 15 calls (run with
 * MALLOC_TRACE=FILE and LD_PRELOAD=libc_malloc_debug.so, which glibc 2.34+ needs for mtrace). */
#include <mcheck.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	void *p[5];
	mtrace();
	for (int i = 0; i < 5; i++)
		p[i] = malloc(3001);
	for (int i = 0; i < 3; i++)
		p[i] = realloc(p[i], 3002);
	for (int i = 0; i < 5; i++)
		free(p[i]);
	free(calloc(3003, 1));
	muntrace();
	printf("15 calls\n");
	return 0;
}
