/* manystacks - 16^4 = 65,536 distinct call stacks, more than the tracer's table of stacks
 * holds: four levels of functions, each calling the next from one of 16 call sites chosen by a
 * digit of n, the last allocating.  Built without optimisation, so every site stays apart. */
#include <stdlib.h>

static void *volatile sink;

static void leaf(void) { free(sink); sink = malloc(16); }

#define SITES16(next, d) \
	switch (d) { \
	case 0: next; break; case 1: next; break; case 2: next; break; case 3: next; break; \
	case 4: next; break; case 5: next; break; case 6: next; break; case 7: next; break; \
	case 8: next; break; case 9: next; break; case 10: next; break; case 11: next; break; \
	case 12: next; break; case 13: next; break; case 14: next; break; default: next; break; }

static void level3(unsigned n) { SITES16(leaf(), n & 15) }
static void level2(unsigned n) { SITES16(level3(n >> 4), n & 15) }
static void level1(unsigned n) { SITES16(level2(n >> 4), n & 15) }
static void level0(unsigned n) { SITES16(level1(n >> 4), n & 15) }

int main(void)
{
	for (unsigned n = 0; n < 65536; n++)
		level0(n);
	free(sink);
	return 0;
}
