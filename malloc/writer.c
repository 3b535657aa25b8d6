/* writer.c - handing out chunks of records to threads.
 *
 * A thread takes a chunk of the file's windows (window.c) - 1 KiB the first time, doubling up
 * to 64 KiB, and 256 bytes once it is exiting - under the global lock, at most once per 1023
 * records, and then fills it without any synchronisation.  The pages of a chunk are populated
 * in one madvise call instead of one fault per page, unless the populating thread
 * (populate.c) has done it already.
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
   Chunks
   ------------------------------------------------------------------------------------------- */

void mt_release_locked(struct mt_thread *t)
{
	if (t->start == NULL)
		return;
	if (t->file_id != mt_g.file_id)
		mt_old_chunk_released(t);
	if (t->file_id == mt_g.file_id && mt_g.have_file) {
		if (t->gen == mt_g.gen && !t->exiting) /* an exiting thread's are counted already */
			mt_count_released(t->chunk_off,
					  (uint64_t)(t->cur - t->start - 1) - t->extra);
		uint32_t w = (uint32_t)(t->chunk_off >> mt_g.win_shift);
		uint64_t len = (uint64_t)(t->last - t->start) * MTRACE_SLOT_SIZE;
		mt_win_done[w] += len;
		if (!t->exiting)   /* (an exit chunk was never counted as held) */
			mt_win_held[w]--;
		/* the window is behind the writers: give it back, unless a record of the thread's
		   there is still to be written (MT_BUSY_NESTED; a later release or the stop
		   does) */
		if (mt_g.next_off >= ((uint64_t)w + 1) << mt_g.win_shift &&
		    t->busy != MT_BUSY_NESTED)
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
		uint64_t handed = mt_window_handed(w);
		if (mt_win_done[w] == handed || mt_win[w] == NULL || mt_win_held[w] == 0) {
			n += mt_win_count[w];
			continue;
		}
		uint64_t from = w == 0 ? MTRACE_HEADER_SIZE : 0, lo = (uint64_t)w << mt_g.win_shift;
		if (mt_g.reset_off > lo + from) /* (what mtrace_reset discarded: readers skip it) */
			from = mt_g.reset_off - lo < handed ? mt_g.reset_off - lo : handed;
		for (uint64_t off = from; off < handed; off += MTRACE_SLOT_SIZE) {
			const struct mtrace_slot *sl =
				(const struct mtrace_slot *)(mt_win[w] + off);
			uint8_t call = __atomic_load_n(&sl->call, __ATOMIC_ACQUIRE);
			n += call >= 1 && call <= MTRACE_CALL_LAST_MAP;
			if (call && (sl->flags & MTRACE_RF_WIDE))
				off += MTRACE_SLOT_SIZE;   /* its second slot */
		}
	}
	return n;
}

/* Is t's chunk record still what t wrote there?  A program that mapped something over the trace
   (with a system call of its own: its libc calls are seen before, in guard.c) has replaced it:
   zeros, or its own data.  Three loads, where the records are written anyway. */
static int chunk_intact(const struct mt_thread *t)
{
	const struct mtrace_slot *c = t->start;
	return c->call == MTRACE_CALL_CHUNK && c->x == t->tid &&
	       c->b == ((uint64_t)(t->last - t->start) * MTRACE_SLOT_SIZE |
			(uint64_t)(uint32_t)mt_g.pid << 32);
}

/* What take_chunk leaves for the slow path to do once the lock is released. */
struct chunk_out {
	int fresh;                      /* a new chunk: its record is to be written */
	int drop;                       /* pages to drop: drop_len bytes at drop_at (its window
	                                   pinned by pin drop), or -1 */
	char *drop_at;                  /* (found under lock: mt_win[] may change after) */
	size_t drop_len;
	int start_helper;               /* mt_populate_wanted's answer */
	char *pop_at;                   /* pages to populate, or NULL */
	size_t pop_len;
	uint64_t ts, prev, len;         /* the chunk record's fields */
};

/* Under lock, from the slow path: the next record for t, from its exiting chunk or a new one. */
static struct mtrace_slot *take_chunk(struct mt_thread *t, unsigned n, int may_start,
				      struct chunk_out *o)
{
	if (t->exiting && t->start && t->last - t->cur >= (ptrdiff_t)n &&
	    t->file_id == mt_g.file_id && t->gen == mt_g.gen && mt_g.active && mt_g.have_file) {
		/* glibc frees an exiting thread's state after its last destructor, into a chunk it
		   never gives back: so such a thread gets its records one at a time, counted
		   here */
		mt_count_released(t->chunk_off, 1);
		struct mtrace_slot *r = t->cur;
		t->cur += n;
		t->end = t->cur;
		return r;
	}
	if (t->start && t->file_id == mt_g.file_id && t->gen == mt_g.gen && mt_g.have_file &&
	    !chunk_intact(t)) {
		mt_fail(MTRACE_STOP_OVERLAP, "the program mapped something over the trace's own "
			"memory: records written there since its last check are in the program's "
			"memory", 0);
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
		mt_fail(MTRACE_STOP_TOO_LARGE,
			"the trace reached the largest size this build supports", EFBIG);
		return NULL;
	}
	if (off + len > mt_g.reserved_end && mt_extend_file(off + len, 0) < 0)
		return NULL;
	if (mt_map_window(w) < 0) {
		mt_fail(errno == ESTALE ? MTRACE_STOP_CLOSED : MTRACE_STOP_MAP,
			mt_g.mlock_future ? "cannot map the trace file (the program locks its "
			"memory with mlockall, beyond RLIMIT_MEMLOCK)" :
			"cannot map the trace file", errno);
		return NULL;
	}
	char *base = mt_win[w] + (off & (MT_WINDOW_SIZE - 1));
	mt_g.next_off = off + len;
	if (t->exiting)
		mt_count_released(off, 1); /* the record handed out below (nothing can fail now) */
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
	uint64_t drop_from, drop_to;
	uint32_t drop_w;
	o->drop = mt_drop_claim(&drop_from, &drop_to, &drop_w);
	if (o->drop >= 0 && mt_win[drop_w] == NULL) {   /* (the program took it over) */
		mt_drop_done(o->drop);
		o->drop = -1;
	} else if (o->drop >= 0) {
		o->drop_at = mt_win[drop_w] + (drop_from & (MT_WINDOW_SIZE - 1));
		o->drop_len = (size_t)(drop_to - drop_from);
	}
	o->fresh = 1;
	o->ts = mt_chunk_ticks();
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
	    w >= MT_MAX_WINDOWS ||
	    (off + len > mt_g.reserved_end && mt_extend_file(off + len, 1) < 0) ||
	    mt_map_window(w) < 0)
		return NULL;
	if (t->tid == 0)
		t->tid = (uint32_t)gettid();
	uint64_t prev = t->file_id == mt_g.file_id ? t->chunk_off : 0;   /* (its chain goes on) */
	mt_g.next_off = off + len;
	mt_win_done[w] += len;   /* never held */
	struct mtrace_slot *c = (struct mtrace_slot *)(mt_win[w] + (off & (MT_WINDOW_SIZE - 1)));
	mt_put_chunk(c, t->tid, mt_chunk_ticks(), prev, len);
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
		madvise(o.drop_at, o.drop_len, MADV_DONTNEED);
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
		/* below PTHREAD_KEY_2NDLEVEL_SIZE keys this does not allocate; if it does, the
		   guard keeps that call out of the trace */
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
