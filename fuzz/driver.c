/* driver.c - runs a fuzz harness on files, without libFuzzer: how the kept crashing inputs in
 * fuzz/regressions/ become ordinary regression tests on machines without clang's runtime. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			perror(argv[i]);
			return 2;
		}
		static uint8_t buf[1 << 22];
		size_t n = fread(buf, 1, sizeof buf, f);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, n);
	}
	printf("%d inputs ran\n", argc - 1);
	return 0;
}
