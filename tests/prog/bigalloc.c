/* bigalloc - N rounds of malloc/realloc/free of assorted sizes (none large enough to be mmap'd);
 * prints a checksum that does not depend on addresses, so traced and untraced runs must print
 * the same.  With "addresses", prints a hash of every address the allocator returned instead:
 * with address randomisation off, traced and untraced must print the same too (the tracer
 * leaves the program's heap alone).  bigalloc [N [addresses]] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	int addresses = argc > 2 && strcmp(argv[2], "addresses") == 0;
	void *live[256] = { 0 };
	unsigned long sum = 0, seed = 12345;
	for (long i = 0; i < n; i++) {
		seed = seed * 6364136223846793005ul + 1442695040888963407ul;
		unsigned slot = (unsigned)(seed >> 56);
		size_t size = 8 + (seed >> 20) % 2000;
		if (live[slot]) {
			if (seed & 0x100) {
				free(live[slot]);
				live[slot] = NULL;
				continue;
			}
			live[slot] = realloc(live[slot], size);
		} else
			live[slot] = malloc(size);
		memset(live[slot], (int)(i & 0xff), size);
		sum = addresses ? sum * 31 + (unsigned long)live[slot] : sum + size;
	}
	for (int i = 0; i < 256; i++)
		free(live[i]);
	printf(addresses ? "addresses %lx\n" : "checksum %lu\n", sum);
	return 0;
}
