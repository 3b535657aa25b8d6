/* libctor - a library that allocates in its constructor and destructor (built as a .so by the
 * tests; catalogue dlopens it, plainly and with RTLD_DEEPBIND; ctor_dep links against it). */
#include <stdlib.h>

static void *kept[2];

__attribute__((constructor)) static void up(void)
{
	kept[0] = malloc(2001);
	kept[1] = malloc(2001);
}

__attribute__((destructor)) static void down(void)
{
	free(kept[0]);
	free(kept[1]);
	free(malloc(2002));
}

void *lib_alloc(size_t n) { return malloc(n); }
void lib_free(void *p) { free(p); }

/* the blocks the constructor allocated, and their release before the destructor */
void *lib_kept(int i) { return kept[i]; }
void lib_release(void)
{
	free(kept[0]);
	free(kept[1]);
	kept[0] = kept[1] = NULL;
}
