/* Preloaded ahead of the tracer: read() of a /proc file returns at most 5 bytes at a time, as a
 * /proc read may stop short of the end (t_proc_read). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

ssize_t read(int fd, void *buf, size_t n)
{
	static ssize_t (*next)(int, void *, size_t);
	char link[64], target[64];
	if (next == NULL)
		next = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t l = readlink(link, target, sizeof target - 1);
	if (l > 6 && memcmp(target, "/proc/", 6) == 0 && n > 5)
		n = 5;
	return next(fd, buf, n);
}
