/* addrhash - N malloc/realloc/free calls of assorted sizes (none large enough to be mmap'd);
 * prints a hash of every address the allocator returned.  Run with address randomisation off,
 * traced and untraced must print the same: the tracer leaves the program's heap alone.
 *   addrhash N */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	void *live[256] = { 0 };
	unsigned long h = 0, seed = 1;
	for (long i = 0; i < n; i++) {
		seed = seed * 6364136223846793005ul + 1442695040888963407ul;
		unsigned s = (unsigned)(seed >> 56);
		size_t size = 8 + (seed >> 20) % 3000;
		if (live[s] && (seed & 0x100)) {
			free(live[s]);
			live[s] = NULL;
			continue;
		}
		live[s] = live[s] ? realloc(live[s], size) : malloc(size);
		h = h * 31 + (unsigned long)live[s];
	}
	printf("%lx\n", h);
	return 0;
}
