/* ctor_dep - a program linked against libctor.so, whose constructor allocates two blocks of 2001
 * bytes before main (and, in the loader's usual order, before a preloaded tracer's constructor);
 * main prints their addresses and frees them. */
#include <stdio.h>

void *lib_kept(int i);
void lib_release(void);

int main(void)
{
	printf("%p %p\n", lib_kept(0), lib_kept(1));
	lib_release();
	return 0;
}
