/* dlopen.c - one warning for RTLD_DEEPBIND, and the objects opened before looked at for calls
 * of the allocator's control interface (allocctl.c); after dlclose, the objects gone recorded
 * when stacks are.
 *
 * A library opened with RTLD_DEEPBIND binds to its own dependencies first, so its malloc and
 * free are libc's, not ours: its calls go untraced (and with another allocator preloaded, its
 * blocks come from glibc - as they would untraced).  We cannot trace it; we say so, once.
 *
 * The wrapper ends in a tail call.  glibc's dlopen identifies its caller by its return address
 * (whose RUNPATH is searched for a bare name, which namespace is used); a jump leaves that
 * address as the program's own.  t_catalogue opens a library through the program's $ORIGIN
 * RUNPATH to hold us to it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include "mt_int.h"

static void *(*real_dlopen)(const char *, int);
static int (*real_dlclose)(void *);

static MT_NOINLINE void deepbind_warning(const char *file)
{
	static int said;
	if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		return;
	mt_msg_warn(file ? file : "(the program)",
		"is opened with RTLD_DEEPBIND: its allocator calls bypass the tracer "
		"and are not recorded", 0);
}

MT_API void *dlopen(const char *file, int mode)
{
	if (MT_UNLIKELY(real_dlopen == NULL))
		real_dlopen = (void *(*)(const char *, int))mt_next(MT_NEXT_DLOPEN);
	if (MT_UNLIKELY(mode & RTLD_DEEPBIND))
		deepbind_warning(file);
	mt_ctl_hook(0);   /* the objects an earlier dlopen opened */
	return real_dlopen(file, mode);   /* a tail call: see above */
}

/* With stacks on, an object unloaded is recorded at once (stacks.c), so that a program that
   allocates from no new code after it still says where its earlier stacks' code went. */
MT_API int dlclose(void *handle)
{
	if (MT_UNLIKELY(real_dlclose == NULL))
		real_dlclose = (int (*)(void *))mt_next(MT_NEXT_DLCLOSE);
	int r = real_dlclose(handle);
	if (MT_UNLIKELY(mt_hot->stacks))
		mt_stacks_objects_changed();
	return r;
}
