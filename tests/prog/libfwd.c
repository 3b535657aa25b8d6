/* libfwd - the smallest allocator a replay can be given by path: every call forwarded to glibc's
 * own entry points (__libc_*), so it defines malloc without being libc.so.
 * LIBFWD_CRASH_AT=N: the Nth malloc crashes (a store through NULL), as a broken allocator;
 * LIBFWD_ABORT_AT=N: the Nth malloc calls abort(), as glibc's does on a corrupted heap;
 * LIBFWD_KILL_AT=N: the Nth malloc kills the process (SIGKILL: no handler of the harness runs);
 * LIBFWD_HANG_AT=N: the Nth malloc never returns, as an allocator that deadlocked; =start: its
 * constructor never returns;
 * LIBFWD_SLOW=N: each malloc first counts to N, a slower allocator by a known amount. */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *__libc_malloc(size_t);
void __libc_free(void *);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void *__libc_memalign(size_t, size_t);
void *__libc_valloc(size_t);
void *__libc_pvalloc(size_t);

static unsigned long crash_at, abort_at, kill_at, hang_at, mallocs, slow;

__attribute__((constructor)) static void setup(void)
{
	const char *s = getenv("LIBFWD_CRASH_AT"), *k = getenv("LIBFWD_KILL_AT");
	crash_at = s ? strtoul(s, NULL, 10) : 0;
	const char *a = getenv("LIBFWD_ABORT_AT");
	abort_at = a ? strtoul(a, NULL, 10) : 0;
	kill_at = k ? strtoul(k, NULL, 10) : 0;
	const char *h = getenv("LIBFWD_HANG_AT");
	while (h && !strcmp(h, "start"))
		pause();
	hang_at = h ? strtoul(h, NULL, 10) : 0;
	const char *w = getenv("LIBFWD_SLOW");
	slow = w ? strtoul(w, NULL, 10) : 0;
}

void *malloc(size_t n)
{
	if (crash_at | abort_at | kill_at | hang_at) {
		unsigned long i = __atomic_add_fetch(&mallocs, 1, __ATOMIC_RELAXED);
		while (i == hang_at)
			pause();
		if (i == crash_at)
			*(volatile int *)NULL = 1;
		if (i == abort_at)
			abort();
		if (i == kill_at)
			raise(SIGKILL);
	}
	for (volatile unsigned long i = 0; i < slow; i++)
		;
	return __libc_malloc(n);
}
void free(void *p) { __libc_free(p); }
void *calloc(size_t n, size_t s) { return __libc_calloc(n, s); }
void *realloc(void *p, size_t n) { return __libc_realloc(p, n); }
void *memalign(size_t a, size_t n) { return __libc_memalign(a, n); }
void *aligned_alloc(size_t a, size_t n) { return __libc_memalign(a, n); }
void *valloc(size_t n) { return __libc_valloc(n); }
void *pvalloc(size_t n) { return __libc_pvalloc(n); }

int posix_memalign(void **out, size_t a, size_t n)
{
	if (a < sizeof(void *) || (a & (a - 1)))
		return EINVAL;
	void *p = __libc_memalign(a, n);
	if (p == NULL)
		return ENOMEM;
	*out = p;
	return 0;
}
