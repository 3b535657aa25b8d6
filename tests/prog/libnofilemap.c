/* libnofilemap - preloaded into a tool, makes every read-only shared mapping of a file fail
 * with ENODEV (as on a filesystem that cannot map), after NOFILEMAP_AFTER=N of them succeeded
 * (default 0): the trace reader must then go on reading the same records with read().
 * NOFILEMAP_LOG=FILE: a line is appended to FILE for each mapping refused. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdlib.h>
#include <sys/mman.h>

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static void *(*real)(void *, size_t, int, int, int, off_t);
	static long left = -1;
	if (!real)
		real = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
	if (left < 0)
		left = getenv("NOFILEMAP_AFTER") ? atol(getenv("NOFILEMAP_AFTER")) : 0;
	if (fd >= 0 && prot == PROT_READ && (flags & MAP_SHARED) && left-- <= 0) {
		const char *log = getenv("NOFILEMAP_LOG");
		int l = log ? open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600) : -1;
		if (l >= 0) {
			(void)!write(l, "refused\n", 8);
			close(l);
		}
		errno = ENODEV;
		return MAP_FAILED;
	}
	return real(addr, len, prot, flags, fd, off);
}
