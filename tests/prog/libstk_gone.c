/* libstk_gone: a library t_stacks.sh's program dlopens, calls and dlcloses before it ends:
   stk_gone_alloc allocates 9999 */
#include <stdlib.h>

__attribute__((noinline)) void *stk_gone_alloc(void)
{
	void *p = malloc(9999);
	__asm__ volatile("");
	return p;
}
