/* mlock.c - mlockall and munlockall: the trace's pages are not the program's to lock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/mman.h>
#include "mt_int.h"

struct mt_mlock_state mt_mlock;

/* ---------------------------------------------------------------------------------------------
   mlockall
   ------------------------------------------------------------------------------------------- */

/* Under lock: unlock the trace's pages (mlockall locked them with the program's). */
static void unlock_windows(void)
{
	for (uint32_t w = mt_wnd.win_lo; w < mt_wnd.win_hi; w++)
		if (mt_win[w] != NULL)
			munlock(mt_win[w], MT_WINDOW_SIZE);
	if (mt_file.hdr_map)
		munlock(mt_file.hdr_map, MTRACE_HEADER_SIZE);
}

/* The kernel refuses MCL_CURRENT to an unprivileged process whose address space exceeds
   RLIMIT_MEMLOCK, the trace's windows counted: one that would have succeeded untraced ends its
   trace there (the windows are then given back) and asks again. */
MT_API int mlockall(int flags)
{
	mt_libc_ready();
	int r = mt_libc.mlockall(flags);
	int e = errno;
	if (r != 0 && e == ENOMEM && (flags & MCL_CURRENT) && !mt_sandbox.sandboxed) {
		struct mt_lock_state ls;
		mt_lock(&ls);
		int had = mt_file.have_file && mt_wnd.win_hi > mt_wnd.win_lo;
		if (had) {
			mt_file_fail(MTRACE_STOP_MAP, "the program locks its memory (mlockall) beyond "
				"what RLIMIT_MEMLOCK allows with the trace's windows: the trace "
				"ends here", ENOMEM);
			mt_file_finish(&mt_tls);
		}
		mt_unlock(&ls);
		if (had) {
			/* the windows are unmapped by the populating thread: once it has ended,
			   they are all gone (and it has nothing left to do) */
			mt_populate_quit();
			r = mt_libc.mlockall(flags);
			e = errno;
		}
	}
	if (r == 0 && !mt_sandbox.sandboxed) {
		struct mt_lock_state ls;
		mt_lock(&ls);
		if (flags & MCL_FUTURE)
			mt_mlock.mlock_future = 1;
		unlock_windows();
		mt_unlock(&ls);
	}
	errno = e;
	return r;
}

MT_API int munlockall(void)
{
	mt_libc_ready();
	int r = mt_libc.munlockall();
	if (r == 0)
		mt_mlock.mlock_future = 0;
	return r;
}
