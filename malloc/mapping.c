/* mapping.c - the program's own mappings: mmap, munmap, mremap, brk and sbrk.
 *
 * Memory a program maps itself (gcc's garbage-collected pages, pymalloc's 256 KiB arenas) is
 * none of malloc's business, but it is the program's memory all the same: anonymous mmaps,
 * every munmap and mremap, and brk or sbrk called by the program are recorded (MTRACE_CALL_MMAP
 * .. MTRACE_CALL_BRK) so that a replay holds what the program held.  Those made inside a traced
 * call, or from the code of the object that defines malloc, are the allocator's own (jemalloc
 * and tcmalloc map through libc's functions, also from threads of their own and from entry
 * points we do not trace, such as jemalloc's mallocx; glibc's malloc calls the kernel directly
 * and is not seen): recorded with MTRACE_RF_OWN.  Each wrapper takes its caller's return address
 * itself: a call the allocator makes as its very last act (a tail call) comes from its caller's
 * address, and counts as its caller's.  An munmap by the program says how much of the range was
 * resident.
 *
 * Each wrapper also keeps the program off the trace's own windows (window.c) and passes the
 * call on with its arguments, result and errno unchanged.
 */
#define _GNU_SOURCE
#undef _FILE_OFFSET_BITS   /* mmap and mmap64 are defined below under their own names */
#include <errno.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <unistd.h>
#include "mt_int.h"

static void *(*real_mremap)(void *, size_t, size_t, int, void *);
static int (*real_brk)(void *);
static void *(*real_sbrk)(intptr_t);

/* From mt_libc_init. */
void mt_mapping_init(void)
{
	real_mremap = (void *(*)(void *, size_t, size_t, int, void *))mt_next(MT_NEXT_MREMAP);
	real_brk = (int (*)(void *))mt_next(MT_NEXT_BRK);
	real_sbrk = (void *(*)(intptr_t))mt_next(MT_NEXT_SBRK);
}

/* ---------------------------------------------------------------------------------------------
   Recording
   ------------------------------------------------------------------------------------------- */

/* The record for a mapping call of this thread from caller (a return address), or NULL when it
   is not to be recorded.  *flags gets MTRACE_RF_OWN for a call the allocator beneath made,
   inside a traced one or from its own code; inside a traced call t->busy is then
   MT_BUSY_NESTED until map_done, so that taking a chunk now never unmaps the window holding
   the traced call's record, which is still to be written. */
static struct mtrace_slot *map_begin(struct mt_thread *t, unsigned *flags, uint8_t *saved,
				     const void *caller)
{
	*saved = t->busy;
	*flags = 0;
	if (MT_LIKELY(!mt_hot->active) || t->busy == MT_BUSY_OWN || t->busy == MT_BUSY_NESTED ||
	    t->locked)
		return NULL;
	if (t->busy || mt_from_allocator(caller))
		*flags = MTRACE_RF_OWN;
	t->busy = t->busy ? MT_BUSY_NESTED : 1;
	struct mtrace_slot *r = mt_reserve_n(t, 2, 0);   /* (a wide record) */
	if (r == NULL)
		t->busy = *saved;
	else
		t->extra += 2;   /* neither slot is an allocator call, which the count is of */
	return r;
}

static void map_done(struct mt_thread *t, uint8_t saved)
{
	t->busy = saved;
}

/* Record a call whose order point is after it (mmap, brk) or before it (munmap). */
static void map_put(struct mt_thread *t, struct mtrace_slot *r, unsigned call, unsigned flags,
		    int err, uint64_t ts, uint64_t ptr, uint64_t result, uint64_t size,
		    uint64_t arg2, uint64_t duration)
{
	if (t->gen == mt_hot->gen)
		mt_put_wide(r, call, flags, err, ts, ptr, result, size, arg2, 0, duration);
}

/* ---------------------------------------------------------------------------------------------
   mmap, munmap, mremap, mprotect
   ------------------------------------------------------------------------------------------- */

#define OVERLAP_WARNING(call) "the program " call " the trace's own memory: the trace ends here"

static void *mmap_common(void *addr, size_t len, int prot, int flags, int fd, int64_t off,
			 const void *caller)
{
	if (MT_UNLIKELY((flags & MAP_FIXED) && mt_window_overlaps(addr, len)))
		mt_window_overlapped(addr, len, OVERLAP_WARNING("maps over"));
	struct mt_thread *t = &mt_tls;
	unsigned rf;
	uint8_t saved;
	struct mtrace_slot *r = (flags & MAP_ANONYMOUS) ? map_begin(t, &rf, &saved, caller) : NULL;
	void *p = mt_libc.mmap(addr, len, prot, flags, fd, off);
	if (r == NULL)
		return p;
	int e = errno;
	int failed = p == MAP_FAILED;
	map_put(t, r, MTRACE_CALL_MMAP, rf | (failed ? MTRACE_RF_FAILED : 0), failed ? e : 0,
		mt_call_ticks(&t->clk), (uintptr_t)addr, failed ? 0 : (uintptr_t)p, len,
		(uint32_t)prot | (uint64_t)(uint32_t)flags << 32, 0);
	map_done(t, saved);
	errno = e;
	return p;
}

/* (a 32-bit off_t is read as unsigned by libc's mmap: an offset from 2 GiB on is no error) */
MT_API void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	mt_libc_ready();
	int64_t off64 = sizeof off == 4 ? (int64_t)(uint32_t)off : (int64_t)off;
	return mmap_common(addr, len, prot, flags, fd, off64, __builtin_return_address(0));
}

MT_API void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	mt_libc_ready();
	return mmap_common(addr, len, prot, flags, fd, off, __builtin_return_address(0));
}

MT_API int munmap(void *addr, size_t len)
{
	mt_libc_ready();
	if (MT_UNLIKELY(mt_window_overlaps(addr, len)))
		mt_window_overlapped(addr, len, OVERLAP_WARNING("unmaps"));
	struct mt_thread *t = &mt_tls;
	const void *caller = __builtin_return_address(0);
	unsigned rf;
	uint8_t saved;
	if (mt_hot->active && !t->busy && len >= MT_RESIDENT_MIN) {
		t->busy = 1;   /* (what taking the sample may call is not the program's) */
		mt_memory_before_release(t, len);   /* (the program's memory before it falls) */
		t->busy = 0;
	}
	struct mtrace_slot *r = map_begin(t, &rf, &saved, caller);
	if (r == NULL)
		return mt_libc.munmap(addr, len);
	uint64_t resident = 0;
	if (!(rf & MTRACE_RF_OWN) && len >= MT_RESIDENT_MIN) {
		resident = mt_memory_resident(addr, len);
		rf |= MTRACE_RF_RESIDENT;
	}
	/* the order point before the range can be mapped again, by any thread */
	map_put(t, r, MTRACE_CALL_MUNMAP, rf, 0, mt_thread_ticks(&t->clk), (uintptr_t)addr, 0, len,
		resident, 0);
	int ret = mt_libc.munmap(addr, len);
	map_done(t, saved);
	return ret;
}

MT_API int mprotect(void *addr, size_t len, int prot)
{
	mt_libc_ready();
	if (MT_UNLIKELY(mt_window_overlaps(addr, len)))
		mt_window_overlapped(addr, len, OVERLAP_WARNING("changes the protection of"));
	return mt_libc.mprotect(addr, len, prot);
}

MT_API void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	void *want = NULL;
	if (flags & MREMAP_FIXED) {
		va_list ap;
		va_start(ap, flags);
		want = va_arg(ap, void *);
		va_end(ap);
	}
	mt_libc_ready();
	if (MT_UNLIKELY(mt_window_overlaps(old, old_len)))
		mt_window_overlapped(old, old_len, OVERLAP_WARNING("moves"));
	if (MT_UNLIKELY((flags & MREMAP_FIXED) && mt_window_overlaps(want, new_len)))
		mt_window_overlapped(want, new_len, OVERLAP_WARNING("maps over"));
	struct mt_thread *t = &mt_tls;
	unsigned rf;
	uint8_t saved;
	struct mtrace_slot *r = map_begin(t, &rf, &saved, __builtin_return_address(0));
	uint64_t t0 = r ? mt_thread_ticks(&t->clk) : 0;
	void *p = real_mremap(old, old_len, new_len, flags, want);
	if (r == NULL)
		return p;
	int e = errno;
	int failed = p == MAP_FAILED;
	/* two order points, as realloc: the old range released at ts, the new one there at
	   ts + duration */
	map_put(t, r, MTRACE_CALL_MREMAP, rf | (failed ? MTRACE_RF_FAILED : 0), failed ? e : 0, t0,
		(uintptr_t)old, failed ? 0 : (uintptr_t)p, new_len, old_len,
		mt_call_ticks(&t->clk) - t0);
	map_done(t, saved);
	errno = e;
	return p;
}

/* ---------------------------------------------------------------------------------------------
   brk, sbrk: the program moving its break itself
   ------------------------------------------------------------------------------------------- */

MT_API int brk(void *end)
{
	mt_libc_ready();
	struct mt_thread *t = &mt_tls;
	unsigned rf;
	uint8_t saved;
	struct mtrace_slot *r = map_begin(t, &rf, &saved, __builtin_return_address(0));
	void *before = r && real_sbrk ? real_sbrk(0) : NULL;
	int ret = real_brk(end);
	if (r == NULL)
		return ret;
	int e = errno;
	void *after = real_sbrk ? real_sbrk(0) : end;
	map_put(t, r, MTRACE_CALL_BRK, rf | (ret ? MTRACE_RF_FAILED : 0), ret ? e : 0,
		mt_call_ticks(&t->clk),
		(uintptr_t)before, ret ? 0 : (uintptr_t)after, 0, 0, 0);
	map_done(t, saved);
	errno = e;
	return ret;
}

MT_API void *sbrk(intptr_t increment)
{
	mt_libc_ready();
	struct mt_thread *t = &mt_tls;
	unsigned rf;
	uint8_t saved;
	struct mtrace_slot *r = increment ? map_begin(t, &rf, &saved, __builtin_return_address(0))
					  : NULL;
	void *before = real_sbrk(increment);
	if (r == NULL)
		return before;
	int e = errno;
	int failed = before == (void *)-1;
	map_put(t, r, MTRACE_CALL_BRK, rf | (failed ? MTRACE_RF_FAILED : 0), failed ? e : 0,
		mt_call_ticks(&t->clk),
		failed ? 0 : (uintptr_t)before,
		failed ? 0 : (uintptr_t)before + (uintptr_t)increment, 0, 0, 0);
	map_done(t, saved);
	errno = e;
	return before;
}
