/* convert_pipe.c - the conversion on two threads: reading, decoding and ordering on the caller's,
 * the events' conversion (address map, slots, waits, the workload's streams) on a second one.
 *
 * The order's callbacks come here.  With the second thread running, the events are copied
 * into a ring of PIPE_SLOTS batches, with what convert_prepare takes from them on this side
 * (the converter is the slower one), and the converter's callbacks take them out in the same
 * order on the other side: the converter sees the same events in the same order as on one
 * thread, so the workload is the same byte for byte.  A new thread's notice travels in the ring
 * between the events, where the order gave it.  The records stay where the order keeps them
 * (order_hold): the memory it freed by the time a batch is filled goes back to it once the
 * converter is done with that batch.  Memory: the ring, a fixed size, and the records of the
 * events in it.
 *
 * Errors: the converter's stop its thread, and the next batch the reader hands over fails; the
 * caller joins before it reads either side's error, and the converter's comes first (its events
 * were handed out before anything the reader met later).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "convert_int.h"

#define PIPE_EVENTS 4096   /* events a batch: fewer, the threads slept 4 times as often */
#define PIPE_SLOTS  CONVERT_PIPE_SLOTS   /* batches in the ring (1 MiB) */
#define PIPE_WAKE   4      /* a side asleep is woken once this many batches are ready for it:
                              a wake-up costs tens of microseconds in a VM */
#define PIPE_SPIN   1024   /* polls of an empty ring before the converter sleeps: the reader is
                              most often a batch away */

struct pipe_batch {
	uint32_t n;                   /* events; 0: a new thread's notice (idx, tid) */
	uint32_t idx, tid;
	struct order_ev ev[PIPE_EVENTS];
	uint64_t hash[PIPE_EVENTS];   /* each event's key's, for the converter's map */
};

/* What the two threads share.  head and tail each on a line of their own, as each side writes
   its own; the side that goes to sleep says so (sleeps) before it looks a last time, and the
   other looks at that after it moved its counter, both sequentially consistent: either the
   sleeper sees the move, or the mover sees the sleeper and signals under the mutex. */
struct pipe_shared {
	alignas(64) _Atomic uint64_t head;   /* batches handed over (the reader's) */
	alignas(64) _Atomic uint64_t tail;   /* batches taken (the converter's) */
	alignas(64) _Atomic int done;        /* the reader handed over its last */
	_Atomic int failed;                  /* the converter stopped on an error */
	_Atomic int put_sleeps, take_sleeps;
	pthread_mutex_t mu;
	pthread_cond_t put_cv, take_cv;
	alignas(64) uint64_t calls[CONVERT_CALL_TYPES];   /* the reader's (convert_prepare) */
	struct pipe_batch slot[PIPE_SLOTS];
};

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

#define PIPE_MIN_BYTES (32u << 20)   /* a trace smaller is converted on one thread by default */

/* Tasks runnable on the machine this moment, this one included (/proc/loadavg's fourth field,
   "runnable/all"); -1 if not known */
static int runnable_now(void)
{
	char b[128];
	int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC), n = -1;
	if (fd < 0)
		return -1;
	ssize_t len = read(fd, b, sizeof b - 1);
	close(fd);
	if (len > 0) {
		b[len] = 0;
		const char *at = b;
		for (int field = 0; field < 3 && at; field++)
			if ((at = strchr(at, ' ')) != NULL)
				at++;
		if (at && *at >= '0' && *at <= '9')
			n = atoi(at);
	}
	return n;
}

/* Whether a second thread is worth it for r: MTRACE_CONVERT_THREADS=1 or 2 says; else only for
   a trace read in mapped windows (a plain file: a compressed one has its decompressor on the
   other processor, a followed one its program) of PIPE_MIN_BYTES or more, about a million
   calls (the second thread costs about 4 ms in a VM, 800 page faults of the ring and of the
   records it holds and the thread's start, and saves at most the reader's share, 40% of the
   time on one thread: it pays from about 300,000 calls), and only when a processor is free
   for it: the process may run on two or more (sched_getaffinity), the last minute's load
   average is at most one less than their number, and fewer tasks than those processors are
   runnable at this moment, this one included (the load average misses a program that has
   just started; it also counts the conversions just before this one, and so refuses some that
   would gain).  Neither foresees work that starts during the conversion: the two
   threads then share a processor and both slow down (20 M calls on a 2-core VM: 1.07-1.31 s
   and twice the CPU time, against 0.70 s on one thread). */
int convert_pipe_wanted(const struct trace_reader *r)
{
	const char *force = getenv("MTRACE_CONVERT_THREADS");
	if (force && (!strcmp(force, "1") || !strcmp(force, "2")))
		return force[0] == '2';
	struct stat st;
	cpu_set_t set;
	double load[1];
	if (!r->map_mode || fstat(r->fd, &st) < 0 || st.st_size < PIPE_MIN_BYTES ||
	    sched_getaffinity(0, sizeof set, &set) < 0 || CPU_COUNT(&set) < 2 ||
	    getloadavg(load, 1) != 1 || load[0] > CPU_COUNT(&set) - 1)
		return 0;
	int now = runnable_now();
	return now < 0 || now < CPU_COUNT(&set);
}

static void wake(struct pipe_shared *sh, _Atomic int *sleeps, pthread_cond_t *cv)
{
	if (atomic_load(sleeps)) {
		pthread_mutex_lock(&sh->mu);
		pthread_cond_signal(cv);
		pthread_mutex_unlock(&sh->mu);
	}
}

/* ---------------------------------------------------------------------------------------------
   The converter's side
   ------------------------------------------------------------------------------------------- */

/* Batches ready to take, after waiting for some; 0: the reader is done and all are taken. */
static uint64_t ready(struct pipe_shared *sh, uint64_t tail)
{
	for (int i = 0; i < PIPE_SPIN; i++) {
		uint64_t n = atomic_load_explicit(&sh->head, memory_order_acquire) - tail;
		if (n || atomic_load(&sh->done))
			return atomic_load(&sh->head) - tail;
		relax();
	}
	pthread_mutex_lock(&sh->mu);
	atomic_store(&sh->take_sleeps, 1);
	while (atomic_load(&sh->head) - tail < PIPE_WAKE && !atomic_load(&sh->done))
		pthread_cond_wait(&sh->take_cv, &sh->mu);
	atomic_store(&sh->take_sleeps, 0);
	pthread_mutex_unlock(&sh->mu);
	return atomic_load(&sh->head) - tail;
}

static void *pipe_main(void *arg)
{
	struct convert_pipe *p = arg;
	struct pipe_shared *sh = p->sh;
	uint64_t tail = 0;
	while (ready(sh, tail)) {
		struct pipe_batch *b = &sh->slot[tail % PIPE_SLOTS];
		if ((b->n ? p->hashed_fn(p->ctx, b->ev, b->hash, b->n) :
			    p->new_thread(p->ctx, b->idx, b->tid)) < 0) {
			atomic_store(&sh->failed, 1);
			wake(sh, &sh->put_sleeps, &sh->put_cv);
			break;
		}
		atomic_store(&sh->tail, ++tail);
		if (atomic_load(&sh->head) - tail <= PIPE_SLOTS - PIPE_WAKE)
			wake(sh, &sh->put_sleeps, &sh->put_cv);
	}
	return NULL;
}

/* ---------------------------------------------------------------------------------------------
   The reader's side
   ------------------------------------------------------------------------------------------- */

/* The next free batch of the ring; NULL if the converter failed.  The converter is the slower
   side most often: a full ring waits asleep, till it has taken PIPE_WAKE batches. */
static struct pipe_batch *acquire(struct convert_pipe *p)
{
	struct pipe_shared *sh = p->sh;
	uint64_t head = p->head;
	if (head - atomic_load_explicit(&sh->tail, memory_order_acquire) == PIPE_SLOTS) {
		pthread_mutex_lock(&sh->mu);
		atomic_store(&sh->put_sleeps, 1);
		while (head - atomic_load(&sh->tail) > PIPE_SLOTS - PIPE_WAKE &&
		       !atomic_load(&sh->failed))
			pthread_cond_wait(&sh->put_cv, &sh->mu);
		atomic_store(&sh->put_sleeps, 0);
		pthread_mutex_unlock(&sh->mu);
	}
	if (atomic_load(&sh->failed))
		return NULL;
	/* the converter is done with this batch's last use, and every one before */
	order_give_back(p->ord, p->held[head % PIPE_SLOTS]);
	p->held[head % PIPE_SLOTS] = NULL;
	struct pipe_batch *b = &sh->slot[head % PIPE_SLOTS];
	b->n = 0;
	return b;
}

static void publish(struct convert_pipe *p)
{
	struct pipe_shared *sh = p->sh;
	atomic_store(&sh->head, ++p->head);
	if (p->head - atomic_load(&sh->tail) >= PIPE_WAKE)
		wake(sh, &sh->take_sleeps, &sh->take_cv);
	p->cur = NULL;
}
int convert_pipe_events(void *ctx, const struct order_ev *ev, size_t n)
{
	struct convert_pipe *p = ctx;
	if (!p->running)
		return p->fn(p->ctx, ev, n);
	while (n) {
		if (!p->cur && (p->cur = acquire(p)) == NULL)
			return -1;   /* (the converter's error) */
		struct pipe_batch *b = p->cur;
		size_t k = PIPE_EVENTS - b->n < n ? PIPE_EVENTS - b->n : n;
		memcpy(b->ev + b->n, ev, k * sizeof *ev);
		convert_prepare(p->sh->calls, b->hash + b->n, ev, k);
		for (size_t i = 0; i < k; i++)
			order_warm(p->ord);   /* (the converter's once an event, on one thread) */
		b->n += (uint32_t)k;
		ev += k;
		n -= k;
		if (b->n == PIPE_EVENTS)
			publish(p);
	}
	/* the records' memory freed so far: each of them is in this batch or one before */
	order_take_held(p->ord, &p->held[(p->cur ? p->head : p->head - 1) % PIPE_SLOTS]);
	return 0;
}

int convert_pipe_thread(void *ctx, uint32_t idx, uint32_t tid)
{
	struct convert_pipe *p = ctx;
	if (!p->running)
		return p->new_thread(p->ctx, idx, tid);
	if (p->cur && p->cur->n)
		publish(p);   /* the events before it go first */
	if (!p->cur && (p->cur = acquire(p)) == NULL)
		return -1;
	p->cur->idx = idx;
	p->cur->tid = tid;
	publish(p);
	return 0;
}

void convert_pipe_init(struct convert_pipe *p, struct order *ord, order_fn fn,
		       convert_pipe_fn hashed_fn, order_thread_fn new_thread, void *ctx,
		       uint64_t *calls)
{
	memset(p, 0, sizeof *p);
	p->ord = ord;
	p->fn = fn;
	p->hashed_fn = hashed_fn;
	p->calls = calls;
	p->new_thread = new_thread;
	p->ctx = ctx;
}

/* The converter's thread, with every signal blocked (they stay the caller's: the output's
   cleanup, the mapped input's SIGBUS).  If it cannot start, the conversion stays on one. */
void convert_pipe_start(struct convert_pipe *p)
{
	struct pipe_shared *sh = p->sh;
	if (!sh) {
		if ((sh = aligned_alloc(64, sizeof *sh)) == NULL)
			return;
		if (pthread_mutex_init(&sh->mu, NULL) || pthread_cond_init(&sh->put_cv, NULL) ||
		    pthread_cond_init(&sh->take_cv, NULL)) {
			free(sh);   /* (initialising these on Linux never fails) */
			return;
		}
		p->sh = sh;
	}
	atomic_init(&sh->head, 0);
	atomic_init(&sh->tail, 0);
	atomic_init(&sh->done, 0);
	atomic_init(&sh->failed, 0);
	atomic_init(&sh->put_sleeps, 0);
	atomic_init(&sh->take_sleeps, 0);
	memset(sh->calls, 0, sizeof sh->calls);
	p->head = 0;
	p->cur = NULL;
	order_hold(p->ord, 1);
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	p->running = !pthread_create(&p->th, NULL, pipe_main, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!p->running)
		order_hold(p->ord, 0);
}

/* Hands over what is left and waits for the converter: 0, or -1 if it failed. */
int convert_pipe_stop(struct convert_pipe *p)
{
	if (!p->running)
		return 0;
	struct pipe_shared *sh = p->sh;
	if (p->cur && p->cur->n)
		publish(p);
	pthread_mutex_lock(&sh->mu);
	atomic_store(&sh->done, 1);
	pthread_cond_signal(&sh->take_cv);
	pthread_mutex_unlock(&sh->mu);
	pthread_join(p->th, NULL);
	for (int i = 0; i < CONVERT_CALL_TYPES; i++)
		p->calls[i] += sh->calls[i];
	p->running = 0;
	p->cur = NULL;
	order_hold(p->ord, 0);
	for (int i = 0; i < PIPE_SLOTS; i++) {
		order_take_held(p->ord, &p->held[i]);
		order_give_back(p->ord, p->held[i]);
		p->held[i] = NULL;
	}
	return atomic_load(&sh->failed) ? -1 : 0;
}

void convert_pipe_free(struct convert_pipe *p)
{
	convert_pipe_stop(p);
	if (p->sh) {
		pthread_cond_destroy(&p->sh->put_cv);
		pthread_cond_destroy(&p->sh->take_cv);
		pthread_mutex_destroy(&p->sh->mu);
		free(p->sh);
		p->sh = NULL;
	}
}
