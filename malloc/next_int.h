/* next_int.h - the one table of the functions the preload calls past itself (next.c). */
#ifndef MT_NEXT_INT_H
#define MT_NEXT_INT_H

/* next.c: the functions of the next objects in the search order the preload calls, each
   X(id, name, glibc's alias or NULL, MT_NEXT_* flags).  A new wrapper's real function is one
   line here. */
#define MT_NEXT_REQUIRED  1u    /* no allocator defines it: the program cannot run traced */
#define MT_NEXT_VERSIONED 2u    /* looked for under the base version too (next.c) */
#define MT_NEXT_ALLOC (MT_NEXT_REQUIRED | MT_NEXT_VERSIONED)
#define MT_NEXT_FNS(X)                                                                  \
	/* the allocator (resolve.c); reallocarray and aligned_alloc came after the base  \
	   version: looking for it would fail, and the error message is allocated */     \
	X(MALLOC, "malloc", "__libc_malloc", MT_NEXT_ALLOC)                             \
	X(FREE, "free", "__libc_free", MT_NEXT_ALLOC)                                   \
	X(CALLOC, "calloc", "__libc_calloc", MT_NEXT_ALLOC)                             \
	X(REALLOC, "realloc", "__libc_realloc", MT_NEXT_ALLOC)                          \
	X(REALLOCARRAY, "reallocarray", NULL, 0)                                         \
	X(POSIX_MEMALIGN, "posix_memalign", NULL, MT_NEXT_VERSIONED)                     \
	X(ALIGNED_ALLOC, "aligned_alloc", NULL, 0)                                       \
	X(MEMALIGN, "memalign", "__libc_memalign", MT_NEXT_VERSIONED)                    \
	X(VALLOC, "valloc", "__libc_valloc", MT_NEXT_VERSIONED)                          \
	X(PVALLOC, "pvalloc", "__libc_pvalloc", MT_NEXT_VERSIONED)                       \
	X(USABLE, "malloc_usable_size", NULL, MT_NEXT_VERSIONED)                         \
	X(MALLOPT, "mallopt", NULL, 0)                  /* mallopt.c */                  \
	X(DLOPEN, "dlopen", NULL, 0)                    /* dlopen.c */                   \
	X(DLCLOSE, "dlclose", NULL, 0)                                                   \
	X(MREMAP, "mremap", NULL, 0)                    /* mapping.c */                  \
	X(BRK, "brk", NULL, 0)                                                           \
	X(SBRK, "sbrk", NULL, 0)                                                         \
	X(MMAP, "mmap64", NULL, 0)  /* libc.c: mt_libc; a 64-bit offset on every target */  \
	X(MUNMAP, "munmap", NULL, 0)                                                     \
	X(MPROTECT, "mprotect", NULL, 0)                                                 \
	X(EXIT, "_exit", NULL, 0)                                                        \
	X(PTHREAD_EXIT, "pthread_exit", NULL, 0)                                         \
	X(PRCTL, "prctl", NULL, 0)                                                       \
	X(MLOCKALL, "mlockall", NULL, 0)                                                 \
	X(MUNLOCKALL, "munlockall", NULL, 0)                                             \
	X(UNSHARE, "unshare", NULL, 0)                                                   \
	X(SETNS, "setns", NULL, 0)                                                       \
	X(SYSCALL, "syscall", NULL, 0)                                                   \
	X(CHROOT, "chroot", NULL, 0)                  /* sandbox.c: KEEP_ACCESS_BEFORE */ \
	X(SETUID, "setuid", NULL, 0)                                                     \
	X(SETGID, "setgid", NULL, 0)                                                     \
	X(SETEUID, "seteuid", NULL, 0)                                                   \
	X(SETEGID, "setegid", NULL, 0)                                                   \
	X(SETREUID, "setreuid", NULL, 0)                                                 \
	X(SETREGID, "setregid", NULL, 0)                                                 \
	X(SETRESUID, "setresuid", NULL, 0)                                               \
	X(SETRESGID, "setresgid", NULL, 0)                                               \
	X(SETGROUPS, "setgroups", NULL, 0)                                               \
	X(SETFSUID, "setfsuid", NULL, 0)                                                 \
	X(SETFSGID, "setfsgid", NULL, 0)
enum mt_next_id {
#define MT_NEXT_ID(id, name, alias, flags) MT_NEXT_##id,
	MT_NEXT_FNS(MT_NEXT_ID)
#undef MT_NEXT_ID
	MT_NEXT_COUNT
};
/* dlsym(RTLD_NEXT) of it (its allocations not the program's), or NULL; a required one missing
   ends the process with a message */
void *mt_next(enum mt_next_id id);

#endif
