/* window.c - the trace file in the program's memory: disk reserved ahead of the writers, and
 * the windows of MT_WINDOW_SIZE bytes it is mapped in, MAP_SHARED.
 *
 * Disk blocks are reserved with fallocate before any chunk over them is handed out, so a full
 * disk is an error seen here rather than a SIGBUS later.  A window is unmapped once every byte
 * of it has been handed out and every chunk in it released (full, or its thread exited):
 * win_done counts released bytes.  The windows of an earlier file stay until their last chunk
 * is back.  Only the part of a window the file covers is accessible: the rest, past the file's
 * end, is PROT_NONE until the file grows over it, so that nothing that reads whatever memory it
 * may (valgrind's leak check, after a fatal signal) crawls through 256 MiB of SIGBUS, one word
 * at a time, every signal blocked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mt_int.h"

struct mt_window_state mt_wnd = { .win_shift = MT_WINDOW_SHIFT };
char *mt_win[MT_MAX_WINDOWS];   /* (zero-initialised: no file size, no memory until touched) */

/* A window's size: 256 MiB of address space, unless the process has a limit on its address
   space (RLIMIT_AS), which the windows count against: then a 64th of the limit, 4 MiB at least
   (a program that gets 600 MiB under a 683 MiB limit untraced must get it traced). */
static unsigned window_shift(void)
{
	struct rlimit rl;
	unsigned shift = MT_WINDOW_SHIFT;
	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		while (shift > MT_WINDOW_SHIFT_MIN && ((uint64_t)1 << shift) > rl.rlim_cur / 64)
			shift--;
	return shift;
}

/* Under lock, as a file is opened (after mt_window_keep_old): windows of an earlier file still
   held by its writers stay mapped until given back; only the range used before is cleared, so
   a first open touches none of the table. */
void mt_window_file_opened(void)
{
	MT_ASSERT_LOCKED();
	MT_ASSERT(mt_chunks.next_off == MTRACE_HEADER_SIZE);   /* the writers' part came first */
	for (uint32_t w = mt_wnd.win_lo; w < mt_wnd.win_hi; w++)
		mt_win[w] = NULL;
	mt_wnd.win_lo = mt_wnd.win_hi = mt_wnd.win_live = 0;
	mt_wnd.win_shift = window_shift();
	mt_wnd.reserved_end = MTRACE_HEADER_SIZE;
}

/* ---------------------------------------------------------------------------------------------
   Disk reservation
   ------------------------------------------------------------------------------------------- */

/* Filesystems without fallocate: allocate the blocks by writing zeros. */
int mt_window_zero_fill(uint64_t from, uint64_t to)
{
	MT_ASSERT_LOCKED();
	static const char zeros[65536];
	while (from < to) {
		size_t n = to - from < sizeof zeros ? (size_t)(to - from) : sizeof zeros;
		ssize_t w = mt_fds_pwrite(zeros, n, from);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (w == 0) {
			errno = ENOSPC;
			return -1;
		}
		from += (uint64_t)w;
	}
	return 0;
}

static int reserve(uint64_t from, uint64_t to)
{
	int r;
	do
		r = mt_fds_fallocate(0, from, to - from);
	while (r < 0 && errno == EINTR);
	if (r < 0 && (errno == EOPNOTSUPP || errno == ENOSYS))
		r = mt_window_zero_fill(from, to);
	return r;
}

/* Under lock: the file's bytes [from, to) made accessible in window w (prot read and write),
   or inaccessible (PROT_NONE), if it is mapped.  Whole pages: the page the file ends in is
   accessible (it reads zeros past the end, never a SIGBUS), so opening starts at from's page
   and closing after it.  0, or -1 with errno. */
static int protect_window(uint32_t w, uint64_t from, uint64_t to, int prot)
{
	uint64_t lo = (uint64_t)w << mt_wnd.win_shift, hi = lo + MT_WINDOW_SIZE;
	uint64_t ps = (uint64_t)getpagesize();
	from = from <= lo ? lo : prot == PROT_NONE ? (from + ps - 1) & ~(ps - 1) : from & ~(ps - 1);
	to = to < hi ? (to + ps - 1) & ~(ps - 1) : hi;
	if (mt_win[w] == NULL || from >= to)
		return 0;
	return mt_libc.mprotect(mt_win[w] + (from - lo), (size_t)(to - from), prot);
}

/* Under lock: the same in every window over the file's bytes [from, to) */
static int protect_windows(uint64_t from, uint64_t to, int prot)
{
	unsigned shift = mt_wnd.win_shift;
	for (uint64_t w = from >> shift; w < MT_MAX_WINDOWS && w << shift < to; w++)
		if (protect_window((uint32_t)w, from, to, prot) < 0)
			return -1;
	return 0;
}

void mt_window_close_range(uint64_t from, uint64_t to)
{
	MT_ASSERT_LOCKED();
	protect_windows(from, to, PROT_NONE);   /* (failing, they stay as they were) */
}

/* Make the file at least need_end bytes long with its blocks allocated.  Grows by an eighth of
   its size (2 to 64 MiB) so reservations stay rare, and by doubling from MT_FIRST_RESERVE up to
   the first 2 MiB: a process that ends by _exit (as dash, Debian's /bin/sh, always does) or by
   a signal never trims its file, which keeps all that was reserved.  Never goes past
   RLIMIT_FSIZE: the kernel would send SIGXFSZ, a signal the program did not ask for.  quiet
   (the populating thread working ahead): a failure only returns -1; the writer that really
   needs the space reports it.  Under lock. */
#define MT_RESERVE_STEP_MAX ((uint64_t)64 << 20)
/* what is reserved and never written (a killed process's file keeps it) is a run of unwritten
   records readers accept: the largest step, the populating thread's lead and a chunk's tail
   must stay within the format's bound */
_Static_assert(MT_RESERVE_STEP_MAX + ((uint64_t)4 << 20) + MT_CHUNK + MT_HUGE <=
	       MTRACE_UNWRITTEN_RUN_MAX, "reservations ahead exceed what readers accept unwritten");

int mt_window_reserve(uint64_t need_end, int quiet)
{
	MT_ASSERT_LOCKED();
	uint64_t cur = mt_wnd.reserved_end;
	uint64_t step = cur / 8;
	if (step < MT_HUGE)
		step = MT_HUGE;
	if (step > MT_RESERVE_STEP_MAX)
		step = MT_RESERVE_STEP_MAX;
	if (cur < MT_HUGE)   /* to 64 KiB, then twice the size */
		step = cur < MT_FIRST_RESERVE ? MT_FIRST_RESERVE - cur : cur;
	uint64_t target = cur + step > need_end ? cur + step : need_end;
	/* beyond the first 2 MiB, whole 2 MiB units: the page cache can then hold the file in
	   huge folios */
	uint64_t unit = target > MT_HUGE ? MT_HUGE : MT_FIRST_RESERVE;
	target = (target + unit - 1) & ~(unit - 1);

	/* the lower of the file size limit and the cap asked for */
	uint64_t lim = UINT64_MAX;
	unsigned why = MTRACE_STOP_NONE;
	struct rlimit rl;
	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		lim = (uint64_t)rl.rlim_cur & ~(uint64_t)4095, why = MTRACE_STOP_FSIZE;
	if (mt_file.max_size && (mt_file.max_size & ~(uint64_t)4095) < lim)
		lim = mt_file.max_size & ~(uint64_t)4095, why = MTRACE_STOP_MAX_SIZE;
	if (why != MTRACE_STOP_NONE) {
		if (target > lim)
			target = lim;
		if (target < need_end) {
			if (!quiet)
				mt_file_fail(why, why == MTRACE_STOP_FSIZE ?
					"the file size limit (RLIMIT_FSIZE) is reached" :
					"the size cap (MTRACE_CTL_MAX_SIZE) is reached", EFBIG);
			return -1;
		}
	}
	if (reserve(cur, target) < 0) {
		/* maybe there is room for what is needed now, if not for the step */
		if (errno == ESTALE || target == need_end || reserve(cur, need_end) < 0) {
			if (quiet)
				return -1;
			if (errno == ESTALE)
				mt_fds_lost();
			else
				mt_file_fail(MTRACE_STOP_NO_SPACE, "cannot reserve space for the trace",
					errno);
			return -1;
		}
		target = need_end;
	}
	if (protect_windows(cur, target, PROT_READ | PROT_WRITE) < 0) {
		if (!quiet)
			mt_file_fail(MTRACE_STOP_MAP, "cannot map the trace file", errno);
		return -1;
	}
	mt_wnd.reserved_end = target;
	mt_file_header_update(0);   /* a good moment to refine the clock calibration */
	return 0;
}

/* ---------------------------------------------------------------------------------------------
   Windows
   ------------------------------------------------------------------------------------------- */

/* Map window w at a 2 MiB-aligned address (file offset and address congruent modulo 2 MiB), so
   that where the filesystem keeps large folios in the page cache (ext4, xfs, tmpfs on recent
   kernels) the kernel can map them whole: one fault per many records instead of one per 64.
   No MADV_HUGEPAGE: with THP defrag at its default ("madvise") that advice makes faults compact
   memory synchronously, which cost more than it saved (python benchmark 2.37 s -> 2.11 s
   without it). */
static void *map_window(uint32_t w)
{
	char *area = mt_libc.mmap(NULL, MT_WINDOW_SIZE + MT_HUGE, PROT_NONE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (area == MAP_FAILED)
		return MAP_FAILED;
	char *at = (char *)(((uintptr_t)area + (uintptr_t)MT_HUGE - 1) & ~(uintptr_t)(MT_HUGE - 1));
	/* mapped inaccessible, then opened up as far as the file goes (protect_window).  After the
	   program's mlockall(MCL_FUTURE) a new mapping is locked, and populated whole when it is
	   opened up: unlocked first */
	void *m = mt_fds_map(at, MT_WINDOW_SIZE, PROT_NONE, MAP_SHARED | MAP_FIXED,
			      (uint64_t)w << mt_wnd.win_shift);
	if (m != MAP_FAILED && mt_mlock.mlock_future && munlock(m, MT_WINDOW_SIZE) != 0)
		m = MAP_FAILED;
	if (m == MAP_FAILED) {
		int e = errno;
		mt_libc.munmap(area, MT_WINDOW_SIZE + MT_HUGE);
		errno = e;
		return MAP_FAILED;
	}
	if (at > area)
		mt_libc.munmap(area, (size_t)(at - area));
	if (at + MT_WINDOW_SIZE < area + MT_WINDOW_SIZE + MT_HUGE)
		mt_libc.munmap(at + MT_WINDOW_SIZE,
			       (size_t)(area + MT_WINDOW_SIZE + MT_HUGE - (at + MT_WINDOW_SIZE)));
	return m;
}

/* ---------------------------------------------------------------------------------------------
   Which windows are mapped
   ------------------------------------------------------------------------------------------- */

/* Under lock: map window w unless it is mapped.  0, or -1 with errno. */
int mt_window_map(uint32_t w)
{
	MT_ASSERT_LOCKED();
	if (mt_win[w] != NULL)
		return 0;
	void *m = map_window(w);
	if (m == MAP_FAILED)
		return -1;
	mt_win[w] = m;
	if (protect_window(w, 0, mt_wnd.reserved_end, PROT_READ | PROT_WRITE) < 0) {
		int e = errno;
		mt_libc.munmap(m, MT_WINDOW_SIZE);
		mt_win[w] = NULL;
		errno = e;
		return -1;
	}
	if (w < mt_wnd.win_lo || mt_wnd.win_lo == mt_wnd.win_hi)
		mt_wnd.win_lo = w;
	if (w < mt_wnd.win_live || mt_wnd.win_live >= mt_wnd.win_hi)
		__atomic_store_n(&mt_wnd.win_live, w, __ATOMIC_RELAXED);
	if (w + 1 > mt_wnd.win_hi)
		mt_wnd.win_hi = w + 1;
	return 0;
}

/* Under lock: the bytes of window w handed out to writers. */
uint64_t mt_window_handed(uint32_t w)
{
	MT_ASSERT_LOCKED();
	uint64_t lo = (uint64_t)w << mt_wnd.win_shift, hi = lo + MT_WINDOW_SIZE;
	if (mt_chunks.next_off <= lo)
		return 0;   /* mapped ahead by the populating thread */
	return mt_chunks.next_off >= hi ? MT_WINDOW_SIZE : mt_chunks.next_off - lo;
}

/* Under lock: win_live past the windows that are no longer mapped. */
static void live_advance(void)
{
	uint32_t w = mt_wnd.win_live;
	while (w < mt_wnd.win_hi && mt_win[w] == NULL)
		w++;
	__atomic_store_n(&mt_wnd.win_live, w, __ATOMIC_RELAXED);
}

/* Under lock: unmap window w if nothing in it is handed out and still held, and the populating
   thread is not working in it (the populating thread does the unmapping when it can). */
void mt_window_maybe_unmap(uint32_t w)
{
	MT_ASSERT_LOCKED();
	if (mt_win[w] != NULL && mt_win_done[w] == mt_window_handed(w) && w != mt_pop.pop_win &&
	    !mt_populate_drop_pinned(w)) {
		if (!mt_populate_unmap(mt_win[w]))
			mt_libc.munmap(mt_win[w], MT_WINDOW_SIZE);
		mt_win[w] = NULL;
		live_advance();
	}
}

/* Under lock: the program took the windows meeting [lo, lo + len) over (unmapped, protected or
   mapped over them): they are not ours to unmap any more. */
void mt_window_forget(void *lo, size_t len)
{
	MT_ASSERT_LOCKED();
	uintptr_t a = (uintptr_t)lo, b = a + len;
	mt_file_header_forget(lo, len);
	for (uint32_t w = mt_wnd.win_lo; w < mt_wnd.win_hi; w++) {
		uintptr_t base = (uintptr_t)mt_win[w];
		if (base && a < base + MT_WINDOW_SIZE && base < b)
			mt_win[w] = NULL;
	}
	live_advance();
}

/* Under lock: account for the thread's chunk and forget it.  A chunk of an earlier file, or of
   the time before a reset, is just forgotten. */
/* ---------------------------------------------------------------------------------------------
   Windows of earlier files: a stop (or a new file) leaves the windows where other threads
   still hold chunks mapped; each goes once the last of those chunks is given back.
   ------------------------------------------------------------------------------------------- */

#define MT_OLD_WINDOWS 64
static struct { char *base; uint64_t size, held; } old_win[MT_OLD_WINDOWS];
static int n_old_win;

/* Under lock, as a file is opened: the windows of the one before it that are still mapped.
   (Beyond MT_OLD_WINDOWS they stay mapped, forgotten.) */
void mt_window_keep_old(void)
{
	MT_ASSERT_LOCKED();
	for (uint32_t w = mt_wnd.win_lo; w < mt_wnd.win_hi; w++) {
		uint64_t held = mt_window_handed(w) - mt_win_done[w];
		if (mt_win[w] == NULL || n_old_win == MT_OLD_WINDOWS)
			continue;
		if (held == 0) {
			mt_libc.munmap(mt_win[w], MT_WINDOW_SIZE);
			continue;
		}
		old_win[n_old_win].base = mt_win[w];
		old_win[n_old_win].size = MT_WINDOW_SIZE;
		old_win[n_old_win++].held = held;
	}
}

/* Under lock: t gives back a chunk of an earlier file; unmap what nobody holds any more,
   unless a record of t's is still to be written in it (MT_BUSY_NESTED). */
void mt_window_old_chunk_released(const struct mt_thread *t)
{
	MT_ASSERT_LOCKED();
	if (MT_LIKELY(n_old_win == 0))
		return;
	uint64_t len = (uint64_t)(t->last - t->start) * MTRACE_SLOT_SIZE;
	for (int i = 0; i < n_old_win; i++) {
		if (!t->exiting && (char *)t->start >= old_win[i].base &&
		    (char *)t->start < old_win[i].base + old_win[i].size)
			old_win[i].held -= len <= old_win[i].held ? len : old_win[i].held;
		if (old_win[i].held == 0 && t->busy != MT_BUSY_NESTED) {
			mt_libc.munmap(old_win[i].base, old_win[i].size);
			old_win[i--] = old_win[--n_old_win];
		}
	}
}

/* In a fork child: each window mapped, of this file or an earlier one, to the caller (it is not
   unmapped here), and forgotten. */
void mt_window_hand_over(void (*take)(char *base, size_t size))
{
	for (uint32_t w = mt_wnd.win_lo; w < mt_wnd.win_hi; w++)
		if (mt_win[w] != NULL) {
			take(mt_win[w], MT_WINDOW_SIZE);
			mt_win[w] = NULL;
		}
	for (int i = 0; i < n_old_win; i++)
		take(old_win[i].base, (size_t)old_win[i].size);
	n_old_win = 0;
}

/* Under lock at stop: unmap every window nobody holds a chunk in.  Windows with chunks still
   held by running threads stay mapped: they may still be written. */
void mt_window_unmap_idle(void)
{
	MT_ASSERT_LOCKED();
	for (uint32_t w = mt_wnd.win_lo; w < mt_wnd.win_hi; w++)
		mt_window_maybe_unmap(w);
}

/* ---------------------------------------------------------------------------------------------
   The trace's own windows
   ------------------------------------------------------------------------------------------- */

/* Does [addr, addr + len) meet a window of the trace?  Read without the lock, so it may miss
   a window being mapped this instant (the program cannot know of that one yet).  A few loads:
   the windows mapped now lie between win_live and win_hi. */
int mt_window_overlaps(const void *addr, size_t len)
{
	if (!mt_file.have_file || len == 0)
		return 0;
	uintptr_t lo = (uintptr_t)addr, hi = lo + len;
	uintptr_t h = (uintptr_t)__atomic_load_n(&mt_file.hdr_map, __ATOMIC_RELAXED);
	if (h && lo < h + MTRACE_HEADER_SIZE && h < hi)
		return 1;
	uint32_t wlo = __atomic_load_n(&mt_wnd.win_live, __ATOMIC_RELAXED);
	uint32_t whi = __atomic_load_n(&mt_wnd.win_hi, __ATOMIC_RELAXED);
	uint64_t size = MT_WINDOW_SIZE;
	for (uint32_t w = wlo; w < whi && w < MT_MAX_WINDOWS; w++) {
		uintptr_t b = (uintptr_t)__atomic_load_n(&mt_win[w], __ATOMIC_RELAXED);
		if (b && lo < b + size && b < hi)
			return 1;
	}
	return 0;
}

/* The program is about to unmap, protect or map over a window: stop tracing (one warning, the
   header says why) and forget those windows, which are the program's from now on. */
void mt_window_overlapped(const void *addr, size_t len, const char *what)
{
	uint8_t busy = mt_tls.busy;
	mt_tls.busy = 1;
	struct mt_lock_state ls;
	mt_lock(&ls);
	if (mt_window_overlaps(addr, len)) {
		mt_file_fail(MTRACE_STOP_OVERLAP, what, 0);
		mt_window_forget((void *)addr, len);
	}
	mt_unlock(&ls);
	mt_tls.busy = busy;
}
