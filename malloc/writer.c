/* writer.c - handing out chunks of records to threads.
 *
 * The file is mapped MAP_SHARED in windows of MT_WINDOW_SIZE bytes.  A thread takes a chunk
 * (1 KiB the first time, doubling up to 64 KiB, and 256 bytes once it is exiting) under the
 * global lock - at most once per 1023 records - and then fills it without any synchronisation.  Disk blocks are reserved with fallocate before any
 * chunk over them is handed out, so a full disk is an error we see here rather than a SIGBUS
 * later.  The pages of a chunk are populated in one madvise call instead of one fault per page,
 * unless the populating thread (populate.c) has done it already.
 *
 * A window is unmapped once every byte of it has been handed out and every chunk in it released
 * (full, or its thread exited): win_done counts released bytes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mt-internal.h"

/* ---------------------------------------------------------------------------------------------
   Disk reservation
   ------------------------------------------------------------------------------------------- */

/* Filesystems without fallocate: allocate the blocks by writing zeros. */
int mt_zero_fill(int fd, uint64_t from, uint64_t to)
{
	static const char zeros[65536];
	while (from < to) {
		size_t n = to - from < sizeof zeros ? (size_t)(to - from) : sizeof zeros;
		ssize_t w = pwrite(fd, zeros, n, (off_t)from);
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

static int reserve(int fd, uint64_t from, uint64_t to)
{
	int r;
	do
		r = fallocate(fd, 0, (off_t)from, (off_t)(to - from));
	while (r < 0 && errno == EINTR);
	if (r < 0 && (errno == EOPNOTSUPP || errno == ENOSYS))
		r = mt_zero_fill(fd, from, to);
	return r;
}

/* Make the file at least need_end bytes long with its blocks allocated.  Grows by an eighth of
   its size (2 to 64 MiB) so reservations stay rare, and by doubling from MT_FIRST_RESERVE up to
   the first 2 MiB: a process that ends by _exit (as dash, Debian's /bin/sh, always does) or by
   a signal never trims its file, which keeps all that was reserved.  Never goes past
   RLIMIT_FSIZE: the kernel would send SIGXFSZ, a signal the program did not ask for.  quiet
   (the populating thread working ahead): a failure only returns -1; the writer that really
   needs the space reports it.  Under lock. */
int mt_extend_file(uint64_t need_end, int quiet)
{
	uint64_t cur = mt_g.reserved_end;
	uint64_t step = cur / 8;
	if (step < MT_HUGE)
		step = MT_HUGE;
	if (step > (64u << 20))
		step = 64u << 20;
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
	if (mt_g.max_size && (mt_g.max_size & ~(uint64_t)4095) < lim)
		lim = mt_g.max_size & ~(uint64_t)4095, why = MTRACE_STOP_MAX_SIZE;
	if (why != MTRACE_STOP_NONE) {
		if (target > lim)
			target = lim;
		if (target < need_end) {
			if (!quiet)
				mt_fail(why, why == MTRACE_STOP_FSIZE ? "the file size limit (RLIMIT_FSIZE) is reached"
					: "the size cap (MTRACE_CTL_MAX_SIZE) is reached", EFBIG);
			return -1;
		}
	}
	int fd = mt_file_fd();
	if (fd < 0) {
		if (!quiet)
			mt_fail(MTRACE_STOP_CLOSED, "the trace file was removed or replaced and cannot be opened again", errno);
		return -1;
	}
	if (reserve(fd, cur, target) < 0) {
		/* maybe there is room for what is needed now, if not for the step */
		if (target == need_end || reserve(fd, cur, need_end) < 0) {
			if (!quiet)
				mt_fail(MTRACE_STOP_NO_SPACE, "cannot reserve space for the trace", errno);
			return -1;
		}
		target = need_end;
	}
	mt_g.reserved_end = target;
	mt_header_update(0);   /* a good moment to refine the clock calibration */
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
static void *map_window(int fd, uint32_t w)
{
	char *area = mt_libc.mmap(NULL, MT_WINDOW_SIZE + MT_HUGE, PROT_NONE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (area == MAP_FAILED)
		return MAP_FAILED;
	char *at = (char *)(((uintptr_t)area + (uintptr_t)MT_HUGE - 1) & ~(uintptr_t)(MT_HUGE - 1));
	/* after the program's mlockall(MCL_FUTURE) a new mapping is locked, and populated whole
	   when it is mapped accessible: mapped inaccessible, unlocked, then opened up instead */
	int lockfree = mt_g.mlock_future;
	void *m = mt_libc.mmap(at, MT_WINDOW_SIZE, lockfree ? PROT_NONE : PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_FIXED, fd, (int64_t)((uint64_t)w << mt_g.win_shift));
	if (m != MAP_FAILED && lockfree &&
	    (munlock(m, MT_WINDOW_SIZE) != 0 || mt_libc.mprotect(m, MT_WINDOW_SIZE, PROT_READ | PROT_WRITE) != 0))
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
		mt_libc.munmap(at + MT_WINDOW_SIZE, (size_t)(area + MT_WINDOW_SIZE + MT_HUGE - (at + MT_WINDOW_SIZE)));
	return m;
}

/* ---------------------------------------------------------------------------------------------
   Chunks
   ------------------------------------------------------------------------------------------- */

/* Under lock: map window w unless it is mapped.  0, or -1 with errno. */
int mt_map_window(uint32_t w)
{
	if (mt_win[w] != NULL)
		return 0;
	int fd = mt_file_fd();
	if (fd < 0)
		return -1;
	void *m = map_window(fd, w);
	if (m == MAP_FAILED)
		return -1;
	mt_win[w] = m;
	if (w < mt_g.win_lo || mt_g.win_lo == mt_g.win_hi)
		mt_g.win_lo = w;
	if (w < mt_g.win_live || mt_g.win_live >= mt_g.win_hi)
		__atomic_store_n(&mt_g.win_live, w, __ATOMIC_RELAXED);
	if (w + 1 > mt_g.win_hi)
		mt_g.win_hi = w + 1;
	return 0;
}

static uint64_t window_handed(uint32_t w)
{
	uint64_t lo = (uint64_t)w << mt_g.win_shift, hi = lo + MT_WINDOW_SIZE;
	if (mt_g.next_off <= lo)
		return 0;   /* mapped ahead by the populating thread */
	return mt_g.next_off >= hi ? MT_WINDOW_SIZE : mt_g.next_off - lo;
}

/* Under lock: win_live past the windows that are no longer mapped. */
static void live_advance(void)
{
	uint32_t w = mt_g.win_live;
	while (w < mt_g.win_hi && mt_win[w] == NULL)
		w++;
	__atomic_store_n(&mt_g.win_live, w, __ATOMIC_RELAXED);
}

/* Under lock: unmap window w if nothing in it is handed out and still held, and the populating
   thread is not working in it (the populating thread does the unmapping when it can). */
void mt_maybe_unmap(uint32_t w)
{
	if (mt_win[w] != NULL && mt_win_done[w] == window_handed(w) && w != mt_g.pop_win &&
	    !mt_drop_pinned(w)) {
		if (!mt_populate_unmap(mt_win[w]))
			mt_libc.munmap(mt_win[w], MT_WINDOW_SIZE);
		mt_win[w] = NULL;
		live_advance();
	}
}

/* Under lock: the program took the windows meeting [lo, lo + len) over (unmapped, protected or
   mapped over them): they are not ours to unmap any more. */
void mt_forget_windows(void *lo, size_t len)
{
	uintptr_t a = (uintptr_t)lo, b = a + len;
	for (uint32_t w = mt_g.win_lo; w < mt_g.win_hi; w++) {
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
void mt_old_windows_keep(void)
{
	for (uint32_t w = mt_g.win_lo; w < mt_g.win_hi; w++) {
		uint64_t held = window_handed(w) - mt_win_done[w];
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
static void old_chunk_released(const struct mt_thread *t)
{
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

/* In a fork child: each window of an earlier file, to the caller (it is not unmapped here). */
void mt_old_windows_hand_over(void (*take)(char *base, size_t size))
{
	for (int i = 0; i < n_old_win; i++)
		take(old_win[i].base, (size_t)old_win[i].size);
	n_old_win = 0;
}

void mt_release_locked(struct mt_thread *t)
{
	if (t->start == NULL)
		return;
	if (t->file_id != mt_g.file_id && n_old_win)
		old_chunk_released(t);
	if (t->file_id == mt_g.file_id && mt_g.have_file) {
		if (t->gen == mt_g.gen && !t->exiting)   /* an exiting thread's are counted already */
			mt_count_released(t->chunk_off, (uint64_t)(t->cur - t->start - 1) - t->extra);
		uint32_t w = (uint32_t)(t->chunk_off >> mt_g.win_shift);
		uint64_t len = (uint64_t)(t->last - t->start) * MTRACE_SLOT_SIZE;
		mt_win_done[w] += len;
		if (!t->exiting)   /* (an exit chunk was never counted as held) */
			mt_win_held[w]--;
		/* the window is behind the writers: give it back, unless a record of the thread's
		   there is still to be written (MT_BUSY_NESTED; a later release or the stop does) */
		if (mt_g.next_off >= ((uint64_t)w + 1) << mt_g.win_shift && t->busy != MT_BUSY_NESTED)
			mt_maybe_unmap(w);
	}
	t->start = t->cur = t->end = t->last = NULL;
}

void mt_release_chunk(struct mt_thread *t)
{
	if (t->start == NULL)
		return;
	struct mt_lock_state ls;
	mt_lock(&ls);
	mt_release_locked(t);
	mt_unlock(&ls);
}

/* Under lock: n records of the chunk at file offset off are counted (its thread released it,
   or, exiting, takes its records one at a time). */
void mt_count_released(uint64_t off, uint64_t n)
{
	mt_g.released += n;
	mt_win_count[off >> mt_g.win_shift] += n;
}

/* Under lock: the records written so far.  Windows whose chunks are all released have theirs
   counted; in a window where a running thread still holds a chunk (a program that stops, or
   exits, while other threads allocate), the written records are counted in the mapping. */
unsigned long long mt_count_records(void)
{
	unsigned long long n = 0;
	for (uint32_t w = mt_g.win_lo; w < mt_g.win_hi; w++) {
		uint64_t handed = window_handed(w);
		if (mt_win_done[w] == handed || mt_win[w] == NULL || mt_win_held[w] == 0) {
			n += mt_win_count[w];
			continue;
		}
		uint64_t from = w == 0 ? MTRACE_HEADER_SIZE : 0, lo = (uint64_t)w << mt_g.win_shift;
		if (mt_g.reset_off > lo + from)   /* (what mtrace_reset discarded: readers skip it) */
			from = mt_g.reset_off - lo < handed ? mt_g.reset_off - lo : handed;
		for (uint64_t off = from; off < handed; off += MTRACE_SLOT_SIZE) {
			const struct mtrace_slot *sl = (const struct mtrace_slot *)(mt_win[w] + off);
			uint8_t call = __atomic_load_n(&sl->call, __ATOMIC_ACQUIRE);
			n += call >= 1 && call <= MTRACE_CALL_LAST_MAP;
			if (call && (sl->flags & MTRACE_RF_WIDE))
				off += MTRACE_SLOT_SIZE;   /* its second slot */
		}
	}
	return n;
}

/* Under lock at stop: unmap every window nobody holds a chunk in.  Windows with chunks still
   held by running threads stay mapped: they may still be written. */
void mt_unmap_idle_windows(void)
{
	for (uint32_t w = mt_g.win_lo; w < mt_g.win_hi; w++)
		mt_maybe_unmap(w);
}

/* Is t's chunk record still what t wrote there?  A program that mapped something over the trace
   (with a system call of its own: its libc calls are seen before, in guard.c) has replaced it:
   zeros, or its own data.  Three loads, where the records are written anyway. */
static int chunk_intact(const struct mt_thread *t)
{
	const struct mtrace_slot *c = t->start;
	return c->call == MTRACE_CALL_CHUNK && c->x == t->tid &&
	       c->b == ((uint64_t)(t->last - t->start) * MTRACE_SLOT_SIZE | (uint64_t)(uint32_t)mt_g.pid << 32);
}

/* What take_chunk leaves for the slow path to do once the lock is released. */
struct chunk_out {
	int fresh;                      /* a new chunk: its record is to be written */
	int drop;                       /* pages to drop: [drop_from, drop_to) of window drop_w,
	                                   pinned by pin drop (or -1) */
	uint64_t drop_from, drop_to;
	uint32_t drop_w;
	int start_helper;               /* mt_populate_wanted's answer */
	char *pop_at;                   /* pages to populate, or NULL */
	size_t pop_len;
	uint64_t ts, prev, len;         /* the chunk record's fields */
};

/* Under lock, from the slow path: the next record for t, from its exiting chunk or a new one. */
static struct mtrace_slot *take_chunk(struct mt_thread *t, unsigned n, int may_start,
				      struct chunk_out *o)
{
	if (t->exiting && t->start && t->last - t->cur >= (ptrdiff_t)n && t->file_id == mt_g.file_id &&
	    t->gen == mt_g.gen && mt_g.active && mt_g.have_file) {
		/* glibc frees an exiting thread's state after its last destructor, into a chunk it
		   never gives back: so such a thread gets its records one at a time, counted here */
		mt_count_released(t->chunk_off, 1);
		struct mtrace_slot *r = t->cur;
		t->cur += n;
		t->end = t->cur;
		return r;
	}
	if (t->start && t->file_id == mt_g.file_id && t->gen == mt_g.gen && mt_g.have_file &&
	    !chunk_intact(t)) {
		mt_fail(MTRACE_STOP_OVERLAP, "the program mapped something over the trace's own memory: "
			"records written there since its last check are in the program's memory", 0);
		mt_forget_windows(t->start, MTRACE_SLOT_SIZE);
		t->start = t->cur = t->end = t->last = NULL;
	}
	mt_retired_unmap(t);
	uint64_t prev = (t->file_id == mt_g.file_id) ? t->chunk_off : 0;
	mt_release_locked(t);
	if (!mt_g.active || !mt_g.have_file)
		return NULL;
	uint64_t off = mt_g.next_off;
	/* small while the thread is new, doubling up to MT_CHUNK (a short thread leaves little
	   unused space, whose pages cost as much to populate as used ones); small again once it
	   is exiting (glibc frees its thread state after the last destructor: a few calls into a
	   chunk never given back) */
	uint32_t want = t->exiting ? MT_EXIT_CHUNK : MT_FIRST_CHUNK;
	if (prev && !t->exiting && t->chunk_len)
		want = t->chunk_len >= MT_CHUNK / 2 ? MT_CHUNK : t->chunk_len * 2;
	uint64_t len = want;
	uint64_t wend = ((off >> mt_g.win_shift) + 1) << mt_g.win_shift;
	if (off + len > wend)
		len = wend - off;   /* chunks never straddle windows */
	uint32_t w = (uint32_t)(off >> mt_g.win_shift);
	if (w >= MT_MAX_WINDOWS) {
		mt_fail(MTRACE_STOP_TOO_LARGE, "the trace reached the largest size this build supports", EFBIG);
		return NULL;
	}
	if (off + len > mt_g.reserved_end && mt_extend_file(off + len, 0) < 0)
		return NULL;
	if (mt_map_window(w) < 0) {
		mt_fail(errno == ESTALE ? MTRACE_STOP_CLOSED : MTRACE_STOP_MAP,
			mt_g.mlock_future ? "cannot map the trace file (the program locks its memory with "
			"mlockall, beyond RLIMIT_MEMLOCK)" : "cannot map the trace file", errno);
		return NULL;
	}
	char *base = mt_win[w] + (off & (MT_WINDOW_SIZE - 1));
	mt_g.next_off = off + len;
	if (t->exiting)
		mt_count_released(off, 1);   /* the record handed out below (nothing can fail now) */
	else
		mt_win_held[w]++;
	int populated = mt_populated(off + len);   /* and wakes the populating thread if due */
	o->start_helper = mt_populate_wanted(may_start);
	/* the whole pages under this chunk, less those an earlier chunk's call asked for (if that
	   call has not finished yet, a page fault does the rest: nothing is lost) */
	uint64_t ps = (uint64_t)getpagesize();
	uint64_t pop_lo = off & ~(ps - 1), pop_hi = (off + len + ps - 1) & ~(ps - 1);
	if (!populated) {
		if (mt_g.wpop_file_id != mt_g.file_id) {
			mt_g.wpop_file_id = mt_g.file_id;
			mt_g.wpop_end = 0;
		}
		if (pop_lo < mt_g.wpop_end)
			pop_lo = mt_g.wpop_end < pop_hi ? mt_g.wpop_end : pop_hi;
		if (pop_hi > mt_g.wpop_end)
			mt_g.wpop_end = pop_hi;
		if (pop_lo < pop_hi) {   /* (pop_lo is in base's window: windows begin on pages) */
			o->pop_at = base - (off - pop_lo);
			o->pop_len = (size_t)(pop_hi - pop_lo);
		}
	}

	/* the chunk record's clock is read under the lock, so chunk timestamps never decrease in
	   file order (which lets a reader merge threads while streaming); the record is written
	   once the lock is released and its page populated */
	o->drop = mt_drop_claim(&o->drop_from, &o->drop_to, &o->drop_w);
	o->fresh = 1;
	o->ts = mt_ticks_now();
	o->prev = prev;
	o->len = len;
	struct mtrace_slot *c = (struct mtrace_slot *)base;
	t->start = c;
	t->cur = c + 1;
	t->end = t->last = c + len / MTRACE_SLOT_SIZE;
	t->chunk_off = off;
	t->chunk_len = want;
	t->extra = 0;
	t->gen = mt_g.gen;
	t->file_id = mt_g.file_id;
	return t->cur;
}

/* Under lock: a chunk of its own for a wide bookkeeping record of t's (the last memory sample,
   at the stop), its record written at once; the wide record's slots, or NULL.  MT_EXIT_CHUNK
   long, as every chunk a multiple of it: a window's end is never nearer than that to a chunk's
   start, so a chunk always has room for a wide record. */
struct mtrace_slot *mt_take_record_locked(struct mt_thread *t)
{
	uint64_t off = mt_g.next_off, len = MT_EXIT_CHUNK;
	uint32_t w = (uint32_t)(off >> mt_g.win_shift);
	if (!mt_g.have_file || w != (uint32_t)((off + len - 1) >> mt_g.win_shift) ||
	    w >= MT_MAX_WINDOWS || (off + len > mt_g.reserved_end && mt_extend_file(off + len, 1) < 0) ||
	    mt_map_window(w) < 0)
		return NULL;
	if (t->tid == 0)
		t->tid = (uint32_t)gettid();
	uint64_t prev = t->file_id == mt_g.file_id ? t->chunk_off : 0;   /* (its chain goes on) */
	mt_g.next_off = off + len;
	mt_win_done[w] += len;   /* never held */
	struct mtrace_slot *c = (struct mtrace_slot *)(mt_win[w] + (off & (MT_WINDOW_SIZE - 1)));
	mt_put_chunk(c, t->tid, mt_ticks_now(), prev, len);
	t->chunk_off = off;
	t->file_id = mt_g.file_id;
	return c + 1;
}

struct mtrace_slot *mt_reserve_slow(struct mt_thread *t, unsigned n, int may_start)
{
	int saved_errno = errno, cancel;
	struct mtrace_slot *r = NULL;
	if (MT_UNLIKELY(mt_control_due()))   /* a request from outside (a stop, say) */
		mt_control_act();
	if (!mt_hot->active)
		goto out0;
	/* nothing here may be a cancellation point for the program's thread (see mt_lock) */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	if (MT_UNLIKELY(!mt_g.hot_wipes) && getpid() != mt_g.pid) {
		/* a child made without fork() on a kernel without MADV_WIPEONFORK: it wrote into
		   the parent's chunk until here, and goes on in a file of its own */
		mt_new_process();
		if (!mt_hot->active)
			goto out;
	}
	if (t->tid == 0)
		t->tid = (uint32_t)gettid();
	if (!t->tsc_checked)
		mt_tsc_check(t);
	struct mt_lock_state ls;
	if (t->start_due) {
		/* the detour start_due set up: the chunk still has room */
		if (t->last - t->cur >= (ptrdiff_t)n && t->gen == mt_hot->gen &&
		    t->file_id == mt_g.file_id && !t->exiting) {
			r = t->cur;
			t->cur += n;
			if (!may_start) {
				t->end = t->cur;   /* another free: around once more */
				goto out;
			}
			t->start_due = 0;
			t->end = t->last;
			mt_lock(&ls);
			int start = mt_populate_wanted(1) > 0;
			mt_unlock(&ls);
			if (start)
				mt_populate_start();
			goto out;
		}
		t->start_due = 0;   /* a new chunk is due anyway */
	}

	struct chunk_out o = { .drop = -1 };
	mt_lock(&ls);
	r = take_chunk(t, n, may_start, &o);
	mt_unlock(&ls);
	if (r == NULL || !o.fresh)
		goto out;   /* no record, or one of an exiting thread's chunk */

	if (MT_UNLIKELY(o.start_helper > 0))
		mt_populate_start();
	/* one system call instead of one page fault per 4 KiB; failure (old kernel) is harmless */
	if (o.pop_at)
		madvise(o.pop_at, o.pop_len, MADV_POPULATE_WRITE);
	if (MT_UNLIKELY(o.drop >= 0)) {
		madvise(mt_win[o.drop_w] + (o.drop_from & (MT_WINDOW_SIZE - 1)),
			(size_t)(o.drop_to - o.drop_from), MADV_DONTNEED);
		mt_lock(&ls);
		if (t->gen == mt_g.gen)   /* (not in a child forked meanwhile, by a handler) */
			mt_drop_done(o.drop);
		mt_unlock(&ls);
	}
	mt_put_chunk(t->start, t->tid, o.ts, o.prev, o.len);
	if (t->exiting)
		t->end = t->cur + n;   /* its next record comes through here again, to be counted */
	else if (MT_UNLIKELY(o.start_helper < 0)) {
		t->start_due = 1;      /* the next call comes through here again (see start_due) */
		t->end = t->cur + n;
	}
	if (!t->key_set && mt_g.key_ok) {
		/* below PTHREAD_KEY_2NDLEVEL_SIZE keys this does not allocate; if it does, the guard
		   keeps that call out of the trace */
		pthread_setspecific(mt_g.key, (void *)1);
		t->key_set = 1;
	}
	t->cur += n;
out:
	pthread_setcancelstate(cancel, NULL);
out0:
	errno = saved_errno;
	return r;
}

/* ---------------------------------------------------------------------------------------------
   Thread exit: give the chunk back so its window can be unmapped and its records counted.
   If the thread allocates again after this (a later destructor), it takes a new chunk and sets
   the key again, which makes glibc run this once more.
   ------------------------------------------------------------------------------------------- */

static void thread_exit(void *unused)
{
	(void)unused;
	struct mt_thread *t = &mt_tls;
	int saved_errno = errno;
	t->key_set = 0;
	mt_release_chunk(t);   /* counts its records, unless it is exiting already */
	t->exiting = 1;
	if (mt_g.main_exited)
		mt_populate_quit_running();
	errno = saved_errno;
}

void mt_thread_key_init(void)
{
	mt_g.key_ok = pthread_key_create(&mt_g.key, thread_exit) == 0;
}
