/* libstk_keep: a library t_stacks.sh's program dlopens and keeps: stk_keep_alloc allocates 8888 */
#include <stdlib.h>

__attribute__((noinline)) void *stk_keep_alloc(void)
{
	void *p = malloc(8888);
	__asm__ volatile("");
	return p;
}
