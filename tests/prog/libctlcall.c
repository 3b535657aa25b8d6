/* libctlcall.c - a library opened by dlopen that writes a jemalloc setting itself: its call of
 * mallctl goes through its own offset table (ctlset dl). */
#include <stddef.h>
#include <sys/types.h>

int mallctl(const char *, void *, size_t *, void *, size_t) __attribute__((weak));

int ctlcall_set(void)
{
	size_t n = 2;
	return mallctl ? mallctl("max_background_threads", NULL, NULL, &n, sizeof n) : -1;
}
