/* mmap_high FILE - maps one page of FILE at 2 GiB with mmap, whatever off_t's size (on 32-bit
 * x86 without _FILE_OFFSET_BITS=64, an off_t of 0x80000000, which libc reads as unsigned).
 * Prints "mapped" or the error. */
#define _GNU_SOURCE
#undef _FILE_OFFSET_BITS
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int fd = open(argv[1], O_RDWR | O_CREAT | O_LARGEFILE, 0600);
	if (fd < 0 || ftruncate64(fd, (off64_t)0x80001000) != 0) {
		perror(argv[1]);
		return 2;
	}
	off_t off = (off_t)(uint32_t)0x80000000u;
	void *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, off);
	printf("%s\n", p == MAP_FAILED ? strerror(errno) : "mapped");
	return 0;
}
