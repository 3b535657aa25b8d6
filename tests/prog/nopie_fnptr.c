/* nopie_fnptr - a position-dependent executable that takes the address of malloc and free:
 * its PLT entries then stand for the functions (undefined symbols with a value), which the
 * tracer must not mistake for the program's own allocator (gcc's cc1 is built this way).
 * Built with -no-pie (Makefile). */
#include <stdio.h>
#include <stdlib.h>

void *(*volatile alloc_fn)(size_t);
void (*volatile free_fn)(void *);

int main(void)
{
	/* assigned in code, not initialised data: position-dependent code loads the address as
	   an immediate, which makes the linker give the PLT entry as the function's address */
	alloc_fn = malloc;
	free_fn = free;
	for (int i = 0; i < 100; i++)
		free_fn(alloc_fn(1000));
	puts("done");
	return 0;
}
