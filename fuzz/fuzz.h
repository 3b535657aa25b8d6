/* fuzz.h - what the harnesses share: the input as a file (the readers take paths), and a
 * property check that aborts, so libFuzzer keeps the input. */
#ifndef FUZZ_H
#define FUZZ_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* The input in a memory file; its /proc path in path (>= 64 bytes).  Returns the fd. */
static inline int fuzz_file(const uint8_t *data, size_t size, char *path)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	snprintf(path, 64, "/proc/self/fd/%d", fd);
	return fd;
}

#define PROPERTY(cond, ...)                                                                        \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "property violated: " __VA_ARGS__);                        \
			fputc('\n', stderr);                                                       \
			abort();                                                                   \
		}                                                                                  \
	} while (0)
#endif
