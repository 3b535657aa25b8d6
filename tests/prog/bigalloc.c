/* bigalloc - N rounds of malloc/realloc/free of assorted sizes; prints a checksum that does not
 * depend on addresses, so traced and untraced runs must print the same.  bigalloc [N] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
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
		sum += size;
	}
	for (int i = 0; i < 256; i++)
		free(live[i]);
	printf("checksum %lu\n", sum);
	return 0;
}
