/* next.c - the functions of the objects after the preload in the symbol search order that it
 * calls: the one table of them (mt_int.h, MT_NEXT_FNS) and the one place that looks them
 * up, dlsym(RTLD_NEXT).
 *
 * A versioned entry (the allocator's) may be exported by a library under the base version
 * programs bind to as a non-default version only (glibc's libc_malloc_debug.so does): plain
 * dlsym looks for the default version and would skip it, taking a different malloc than the
 * program itself would.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#include <unistd.h>
#include "mt_int.h"

struct next_fn {
	const char *name;
	const char *alias;              /* glibc's exported alias, if a strange search order hides
	                                   the name, or NULL */
	unsigned flags;                 /* MT_NEXT_* */
};

static const struct next_fn next_fns[MT_NEXT_COUNT] = {
#define MT_NEXT_ENTRY(id, name, alias, flags) { name, alias, flags },
	MT_NEXT_FNS(MT_NEXT_ENTRY)
#undef MT_NEXT_ENTRY
};

/* The version programs bind the allocator functions to on this architecture. */
#if defined(__x86_64__)
#define BASE_VERSION "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define BASE_VERSION "GLIBC_2.17"
#elif defined(__i386__)
#define BASE_VERSION "GLIBC_2.0"
#elif defined(__s390x__)
#define BASE_VERSION "GLIBC_2.2"
#endif

#if defined(BASE_VERSION) && defined(__GLIBC__)
static int in_libc(void *f)
{
	Dl_info info;
	if (!dladdr(f, &info) || !info.dli_fname)
		return 0;
	const char *slash = strrchr(info.dli_fname, '/');
	return strncmp(slash ? slash + 1 : info.dli_fname, "libc.so", 7) == 0;
}
#endif

static void die_unresolved(const char *name)
{
	static const char msg[] = "mtracectl: fatal: no allocator after the tracer defines ";
	ssize_t r = write(2, msg, sizeof msg - 1);
	r = write(2, name, strlen(name));
	r = write(2, "\n", 1);
	(void)r;
	mt_exit_now(127);
}

void *mt_next(enum mt_next_id id)
{
	const struct next_fn *e = &next_fns[id];
	uint8_t busy = mt_tls.busy;
	if (!busy)
		mt_tls.busy = 1;   /* dlsym may allocate: not the program's call */
	void *f = dlsym(RTLD_NEXT, e->name);
#if defined(BASE_VERSION) && defined(__GLIBC__)
	/* the default version lands in libc itself while something before it exports only the
	   base version: that is the one the program binds to (an unversioned allocator such as
	   jemalloc is found by dlsym, and is not looked past) */
	if (f && (e->flags & MT_NEXT_VERSIONED) && in_libc(f)) {
		void *v = dlvsym(RTLD_NEXT, e->name, BASE_VERSION);
		if (v && v != f && !in_libc(v))
			f = v;
	}
#endif
	if (f == NULL && e->alias != NULL)
		f = dlsym(RTLD_NEXT, e->alias);
	mt_tls.busy = busy;
	if (f == NULL && (e->flags & MT_NEXT_REQUIRED))
		die_unresolved(e->name);
	return f;
}
