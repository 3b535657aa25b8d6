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
#include "mt_int.h"

struct mt_chunk_state mt_chunks;
uint64_t mt_win_done[MT_MAX_WINDOWS];   /* (zero-initialised: no memory until touched) */
uint64_t mt_win_count[MT_MAX_WINDOWS];

/* ---------------------------------------------------------------------------------------------
   The chunks threads hold: where the records not yet counted are
   ------------------------------------------------------------------------------------------- */

/* An entry for each chunk handed out to a thread that is not exiting and not given back yet:
   its file offset and length (0: a free entry).  A table of chunks rather than a list of the
   threads' own state: a thread that ends without its exit destructor (a raw SYS_exit) leaves an
   entry for a chunk that stays mapped, where a list would point into memory gone with it.  In
   static memory first, then doubled in mappings of our own (no malloc here); the entries of an
   earlier file are dropped at the next hand-out.  Under lock. */
struct held_chunk {
	uint64_t off;
	uint32_t len;
	uint32_t next_free;
};
#define HELD_STATIC 256u
#define HELD_NONE UINT32_MAX
static struct held_chunk held_static[HELD_STATIC];
static struct held_chunk *held = held_static;
static uint32_t held_cap = HELD_STATIC, held_top, held_free = HELD_NONE;

/* Room for one more entry: 0, or -1 with errno (no memory for a larger table). */
static int held_room(void)
{
	if (held_free != HELD_NONE || held_top < held_cap)
		return 0;
	size_t size = (size_t)held_cap * sizeof *held;
	struct held_chunk *h = mt_libc.mmap(NULL, 2 * size, PROT_READ | PROT_WRITE,
					    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (h == MAP_FAILED)
		return -1;
	memcpy(h, held, size);
	if (held != held_static)
		mt_libc.munmap(held, size);
	held = h;
	held_cap *= 2;
	return 0;
}

static uint32_t held_add(uint64_t off, uint32_t len)
{
	uint32_t i = held_free;
	if (i != HELD_NONE)
		held_free = held[i].next_free;
	else
		i = held_top++;
	held[i].off = off;
	held[i].len = len;
	return i;
}

static void held_remove(uint32_t i)
{
	held[i].len = 0;
	held[i].next_free = held_free;
	held_free = i;
}

/* Committed calls in one held chunk, read through the window; then its pages leave the
   process's page tables again (they are the page cache's: nothing is lost), so that however
   many threads hold chunks, counting them adds a chunk's pages to the RSS at most.  The whole
   chunk is read: a signal handler's records, or those of a mapping call nested in a call still
   being recorded, may follow a slot not written yet. */
static unsigned long long held_count(const struct held_chunk *h)
{
	uint32_t w = (uint32_t)(h->off >> mt_wnd.win_shift);
	if (mt_win[w] == NULL || h->off < mt_file.reset_off)
		return 0;   /* the program took the window over; or mtrace_reset discarded it */
	char *base = mt_win[w] + (h->off & (MT_WINDOW_SIZE - 1));
	unsigned long long n = 0;
	for (uint32_t at = MTRACE_SLOT_SIZE; at < h->len; at += MTRACE_SLOT_SIZE) {
		const struct mtrace_slot *sl = (const struct mtrace_slot *)(base + at);
		uint8_t call = __atomic_load_n(&sl->call, __ATOMIC_ACQUIRE);
		n += mtrace_call_is_api(call);
		if (call && (sl->flags & MTRACE_RF_WIDE))
			at += MTRACE_SLOT_SIZE;   /* its second slot */
	}
	uintptr_t ps = (uintptr_t)getpagesize();
	uintptr_t lo = (uintptr_t)base & ~(ps - 1), hi = ((uintptr_t)base + h->len + ps - 1) & ~(ps - 1);
	madvise((void *)lo, hi - lo, MADV_DONTNEED);   /* (windows begin and end on pages) */
	return n;
}

/* ---------------------------------------------------------------------------------------------
   Chunks
   ------------------------------------------------------------------------------------------- */

void mt_writer_release_locked(struct mt_thread *t)
{
	MT_ASSERT_LOCKED();
	if (t->start == NULL)
		return;
	if (t->file_id != mt_file.file_id)
		mt_window_old_chunk_released(t);
	if (t->file_id == mt_file.file_id && mt_file.have_file) {
		if (t->gen == mt_run.gen && !t->exiting)   /* (an exiting one's are counted) */
			mt_writer_count_released(t->chunk_off,
					  (uint64_t)(t->cur - t->start - 1) - t->extra);
		uint32_t w = (uint32_t)(t->chunk_off >> mt_wnd.win_shift);
		uint64_t len = (uint64_t)(t->last - t->start) * MTRACE_SLOT_SIZE;
		mt_win_done[w] += len;
		if (!t->exiting)   /* (an exit chunk was never listed as held) */
			held_remove(t->held_ix);
		/* the window is behind the writers: give it back, unless a record of the thread's
		   there is still to be written (MT_BUSY_NESTED; a later release or the stop
		   does) */
		if (mt_chunks.next_off >= ((uint64_t)w + 1) << mt_wnd.win_shift &&
		    t->busy != MT_BUSY_NESTED)
			mt_window_maybe_unmap(w);
	}
	t->start = t->cur = t->end = t->last = NULL;
}

void mt_writer_release(struct mt_thread *t)
{
	MT_ASSERT_UNLOCKED();
	if (t->start == NULL)
		return;
	struct mt_lock_state ls;
	mt_lock(&ls);
	mt_writer_release_locked(t);
	mt_unlock(&ls);
}

/* Under lock, as a file is opened (mt_on_file_opened; before mt_window_file_opened, by the last
   file's range of windows): nothing of it handed out, released or held yet. */
void mt_writer_file_opened(void)
{
	MT_ASSERT_LOCKED();
	for (uint32_t w = mt_wnd.win_lo; w < mt_wnd.win_hi; w++)
		mt_win_done[w] = mt_win_count[w] = 0;
	mt_win_done[0] = MTRACE_HEADER_SIZE;   /* the header is never handed out as a chunk */
	mt_chunks.next_off = MTRACE_HEADER_SIZE;
	mt_chunks.released = 0;
	mt_chunks.wpop_end = 0;
	held_top = 0;
	held_free = HELD_NONE;
}

/* Under lock: mtrace_reset discarded every record written so far. */
void mt_writer_reset_counts(void)
{
	MT_ASSERT_LOCKED();
	mt_chunks.released = 0;
	for (uint32_t w = mt_wnd.win_lo; w < mt_wnd.win_hi; w++)
		mt_win_count[w] = 0;
}

/* Under lock: n records of the chunk at file offset off are counted (its thread released it,
   or, exiting, takes its records one at a time). */
void mt_writer_count_released(uint64_t off, uint64_t n)
{
	MT_ASSERT_LOCKED();
	mt_chunks.released += n;
	mt_win_count[off >> mt_wnd.win_shift] += n;
}

/* Under lock: the records written so far: those of the chunks given back, counted then, and
   those in the chunks threads still hold (a program that stops, or exits, while other threads
   run or wait), read there. */
unsigned long long mt_writer_count_records(void)
{
	MT_ASSERT_LOCKED();
	unsigned long long n = 0;
	for (uint32_t w = mt_wnd.win_lo; w < mt_wnd.win_hi; w++)
		n += mt_win_count[w];
	for (uint32_t i = 0; i < held_top; i++)
		if (held[i].len)
			n += held_count(&held[i]);
	return n;
}

/* Is t's chunk record still what t wrote there?  A program that mapped something over the trace
   (with a system call of its own: its libc calls are seen before, in sandbox.c) has replaced it:
   zeros, or its own data.  Three loads, where the records are written anyway. */
static int chunk_intact(const struct mt_thread *t)
{
	const struct mtrace_slot *c = t->start;
	return c->call == MTRACE_CALL_CHUNK && c->x == t->tid &&
	       c->b == mt_chunk_word((uint64_t)(t->last - t->start) * MTRACE_SLOT_SIZE);
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
	    t->file_id == mt_file.file_id && t->gen == mt_run.gen && mt_run.active &&
	    mt_file.have_file) {
		/* glibc frees an exiting thread's state after its last destructor, into a chunk it
		   never gives back: so such a thread gets its records one at a time, counted
		   here */
		mt_writer_count_released(t->chunk_off, !t->no_call);
		struct mtrace_slot *r = t->cur;
		t->cur += n;
		t->end = t->cur;
		return r;
	}
	if (t->start && t->file_id == mt_file.file_id && t->gen == mt_run.gen &&
	    mt_file.have_file && !chunk_intact(t)) {
		mt_file_fail(MTRACE_STOP_OVERLAP, "the program mapped something over the trace's own "
			"memory: records written there since its last check are in the program's "
			"memory", 0);
		mt_window_forget(t->start, MTRACE_SLOT_SIZE);
		if (!t->exiting)
			held_remove(t->held_ix);
		t->start = t->cur = t->end = t->last = NULL;
	}
	mt_retired_unmap(t);
	uint64_t prev = (t->file_id == mt_file.file_id) ? t->chunk_off : 0;
	mt_writer_release_locked(t);
	if (!mt_run.active || !mt_file.have_file)
		return NULL;
	uint64_t off = mt_chunks.next_off;
	/* small while the thread is new, doubling up to MT_CHUNK (a short thread leaves little
	   unused space, whose pages cost as much to populate as used ones); small again once it
	   is exiting (glibc frees its thread state after the last destructor: a few calls into a
	   chunk never given back) */
	uint32_t want = t->exiting ? MT_EXIT_CHUNK : MT_FIRST_CHUNK;
	if (prev && !t->exiting && t->chunk_len)
		want = t->chunk_len >= MT_CHUNK / 2 ? MT_CHUNK : t->chunk_len * 2;
	while (want < (n + 1) * MTRACE_SLOT_SIZE)
		want *= 2;   /* (a STACK record takes up to 44 slots) */
	uint64_t len = want;
	uint64_t wend = ((off >> mt_wnd.win_shift) + 1) << mt_wnd.win_shift;
	if (off + len > wend) {
		len = wend - off;   /* chunks never straddle windows */
		if (len < (n + 1) * MTRACE_SLOT_SIZE) {
			off = wend;   /* too short for the record: left unwritten, zeros */
			len = want;
		}
	}
	uint32_t w = (uint32_t)(off >> mt_wnd.win_shift);
	if (w >= MT_MAX_WINDOWS) {
		mt_file_fail(MTRACE_STOP_TOO_LARGE,
			"the trace reached the largest size this build supports", EFBIG);
		return NULL;
	}
	if (off + len > mt_wnd.reserved_end && mt_window_reserve(off + len, 0) < 0)
		return NULL;
	if (mt_window_map(w) < 0) {
		if (errno == ESTALE)
			mt_fds_lost();
		else
			mt_file_fail(MTRACE_STOP_MAP, mt_mlock.mlock_future ?
				"cannot map the trace file (the program locks its memory with "
				"mlockall, beyond RLIMIT_MEMLOCK)" : "cannot map the trace file",
				errno);
		return NULL;
	}
	if (!t->exiting && held_room() < 0) {
		mt_file_fail(MTRACE_STOP_MAP, "cannot map memory for the table of chunks held", errno);
		return NULL;
	}
	char *base = mt_win[w] + (off & (MT_WINDOW_SIZE - 1));
	mt_chunks.next_off = off + len;
	if (t->exiting)
		mt_writer_count_released(off, !t->no_call);   /* the record handed out below (nothing can
		                                       fail now) */
	else
		t->held_ix = held_add(off, (uint32_t)len);
	int populated = mt_populate_covers(off + len);   /* (wakes the populating thread if due) */
	o->start_helper = mt_populate_wanted(may_start);
	/* the whole pages under this chunk, less those an earlier chunk's call asked for (if that
	   call has not finished yet, a page fault does the rest: nothing is lost) */
	uint64_t ps = (uint64_t)getpagesize();
	uint64_t pop_lo = off & ~(ps - 1), pop_hi = (off + len + ps - 1) & ~(ps - 1);
	if (!populated) {
		if (pop_lo < mt_chunks.wpop_end)
			pop_lo = mt_chunks.wpop_end < pop_hi ? mt_chunks.wpop_end : pop_hi;
		if (pop_hi > mt_chunks.wpop_end)
			mt_chunks.wpop_end = pop_hi;
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
	o->drop = mt_populate_drop_claim(&drop_from, &drop_to, &drop_w);
	if (o->drop >= 0 && mt_win[drop_w] == NULL) {   /* (the program took it over) */
		mt_populate_drop_done(o->drop);
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
	t->gen = mt_run.gen;
	t->file_id = mt_file.file_id;
	return t->cur;
}

/* Under lock: a chunk of its own for bookkeeping records of t's written as the trace is
   finished (the blocks still live, the last memory sample), its chunk record written at once:
   the slots after it, *n of them asked for and *n set to how many it has, or NULL.  A multiple
   of MT_EXIT_CHUNK long, as every chunk: a window's end is never nearer than that to a chunk's
   start, so a chunk always has room for a wide record.  MT_CHUNK at the most. */
struct mtrace_slot *mt_writer_take_locked(struct mt_thread *t, unsigned *n)
{
	MT_ASSERT_LOCKED();
	uint64_t off = mt_chunks.next_off;
	uint64_t len = ((uint64_t)*n + 1) * MTRACE_SLOT_SIZE;
	len = len < MT_CHUNK ? (len + MT_EXIT_CHUNK - 1) & ~(uint64_t)(MT_EXIT_CHUNK - 1)
			     : MT_CHUNK;
	uint64_t wend = ((off >> mt_wnd.win_shift) + 1) << mt_wnd.win_shift;
	if (off + len > wend)
		len = wend - off;   /* chunks never straddle windows */
	uint32_t w = (uint32_t)(off >> mt_wnd.win_shift);
	if (!mt_file.have_file || w >= MT_MAX_WINDOWS ||
	    (off + len > mt_wnd.reserved_end && mt_window_reserve(off + len, 1) < 0) ||
	    mt_window_map(w) < 0)
		return NULL;
	if (t->tid == 0)
		t->tid = (uint32_t)gettid();
	uint64_t prev = t->file_id == mt_file.file_id ? t->chunk_off : 0;   /* (its chain on) */
	mt_chunks.next_off = off + len;
	mt_win_done[w] += len;   /* never held */
	struct mtrace_slot *c = (struct mtrace_slot *)(mt_win[w] + (off & (MT_WINDOW_SIZE - 1)));
	mt_put_chunk(c, t->tid, mt_chunk_ticks(), prev, len);
	t->chunk_off = off;
	t->file_id = mt_file.file_id;
	*n = (unsigned)(len / MTRACE_SLOT_SIZE - 1);
	return c + 1;
}

struct mtrace_slot *mt_writer_reserve_slow(struct mt_thread *t, unsigned n, int may_start)
{
	int saved_errno = errno, cancel;
	struct mtrace_slot *r = NULL;
	if (MT_UNLIKELY(mt_control_due()))   /* a request from outside (a stop, say) */
		mt_control_act();
	if (!mt_hot->active)
		goto out0;
	/* nothing here may be a cancellation point for the program's thread (see mt_lock) */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	if (MT_UNLIKELY(!mt_run.hot_wipes) && getpid() != mt_file.pid) {
		/* a child made without fork() on a kernel without MADV_WIPEONFORK: it wrote into
		   the parent's chunk until here, and goes on in a file of its own */
		mt_new_process();
		if (!mt_hot->active)
			goto out;
	}
	if (t->tid == 0)
		t->tid = (uint32_t)gettid();
	if (!t->clk.checked)
		mt_thread_clock_check(&t->clk);
	mt_clock_thread_calls(&t->clk);   /* (before this thread's first order point) */
	struct mt_lock_state ls;
	if (t->start_due) {
		/* the detour start_due set up: the chunk still has room */
		if (t->last - t->cur >= (ptrdiff_t)n && t->gen == mt_hot->gen &&
		    t->file_id == mt_file.file_id && !t->exiting) {
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
		if (t->gen == mt_run.gen)   /* (not in a child forked meanwhile, by a handler) */
			mt_populate_drop_done(o.drop);
		mt_unlock(&ls);
	}
	mt_put_chunk(t->start, t->tid, o.ts, o.prev, o.len);
	if (t->exiting)
		t->end = t->cur + n;   /* its next record comes through here again, to be counted */
	else if (MT_UNLIKELY(o.start_helper < 0)) {
		t->start_due = 1;      /* the next call comes through here again (see start_due) */
		t->end = t->cur + n;
	}
	if (!t->key_set && mt_chunks.key_ok) {
		/* below PTHREAD_KEY_2NDLEVEL_SIZE keys this does not allocate; if it does, the
		   guard keeps that call out of the trace */
		pthread_setspecific(mt_chunks.key, (void *)1);
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
	mt_writer_release(t);   /* counts its records, unless it is exiting already */
	t->exiting = 1;
	mt_walk_thread_exit();
	if (mt_proc.main_exited)
		mt_populate_quit_running();
	errno = saved_errno;
}

void mt_writer_key_init(void)
{
	mt_chunks.key_ok = pthread_key_create(&mt_chunks.key, thread_exit) == 0;
}
