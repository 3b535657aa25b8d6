/* libc.c - the functions of libc the tracer calls for itself, past its own wrappers of them
 * (mt_libc): found once, at initialisation, or by the first wrapper called before it.
 */
#define _GNU_SOURCE
#include <unistd.h>
#include "mt_int.h"

struct mt_libc mt_libc;


/* Once, at initialisation (and by any wrapper called before it). */
void mt_libc_init(void)
{
	if (mt_libc.syscall)
		return;
	mt_mapping_init();
	mt_libc.mmap = mt_next(MT_NEXT_MMAP);
	mt_libc.munmap = mt_next(MT_NEXT_MUNMAP);
	mt_libc.mprotect = mt_next(MT_NEXT_MPROTECT);
	mt_libc.exit = mt_next(MT_NEXT_EXIT);
	mt_libc.pthread_exit = mt_next(MT_NEXT_PTHREAD_EXIT);
	mt_libc.prctl = mt_next(MT_NEXT_PRCTL);
	mt_libc.mlockall = mt_next(MT_NEXT_MLOCKALL);
	mt_libc.unshare = mt_next(MT_NEXT_UNSHARE);
	mt_libc.setns = mt_next(MT_NEXT_SETNS);
	mt_libc.munlockall = mt_next(MT_NEXT_MUNLOCKALL);
	__atomic_store_n(&mt_libc.syscall, (long (*)(long, ...))mt_next(MT_NEXT_SYSCALL),
			 __ATOMIC_RELEASE);
}

void mt_libc_ready(void)
{
	if (MT_UNLIKELY(__atomic_load_n(&mt_libc.syscall, __ATOMIC_ACQUIRE) == NULL))
		mt_libc_init();
}

/* prctl for the tracer's own questions and settings, past its wrapper (sandbox.c) */
int mt_real_prctl(int option, unsigned long a2, unsigned long a3, unsigned long a4,
		  unsigned long a5)
{
	mt_libc_ready();
	return mt_libc.prctl ? mt_libc.prctl(option, a2, a3, a4, a5) : -1;
}
