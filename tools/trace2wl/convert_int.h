/* convert_int.h - the converter's state and the helpers its two halves share: convert.c (the
 * allocator calls, slots and waits) and convert_prog.c (what version-2 traces add: the program's
 * own mappings, resident bytes, memory samples and pace). */
#ifndef CONVERT_INT_H
#define CONVERT_INT_H
#include <pthread.h>
#include <stdio.h>
#include "convert.h"
#include "order.h"
#include "live.h"
#include "progmem.h"
#include "rangemap.h"
#include "u64map.h"

#define OWN_MAX       64            /* free slots a thread keeps for itself (a power of two) */

/* A slot's last user, its thread index and that thread's call count just after, in one word:
   16 bytes a slot, four to a cache line, leave room for a sparser address map in the same
   memory a live block (see bench/trace2wl.sh) */
#define TOUCH_THREAD_BITS 20
#define TOUCH_COUNT_MAX (UINT64_MAX >> TOUCH_THREAD_BITS)   /* calls a thread may make */
_Static_assert(ORDER_MAX_THREADS <= 1u << TOUCH_THREAD_BITS, "a thread index fits its field");

struct slotinfo {
	uint64_t size;                /* requested bytes of the block in it (free, in the pool:
	                                 the next slot of the pool) */
	uint64_t touch;               /* count << TOUCH_THREAD_BITS | thread */
};

static inline uint64_t touch(uint32_t thread, uint64_t count)
{
	return count << TOUCH_THREAD_BITS | thread;
}

/* A map id's mapping (convert_prog.c): where the program had it, what is left of it, and the
   RESIDENT operations that wait for its resident bytes (stream position << 20 | thread) */
struct mapinfo {
	uint64_t base;                /* the program's address of its offset 0 */
	uint64_t bytes;               /* still mapped; 0: the id is free (next: the free list) */
	uint64_t len;                 /* its length as last mapped or remapped */
	uint64_t resident;            /* resident bytes its unmaps reported */
	uint64_t touch;               /* its last user (touch()) */
	uint64_t map_at, map_len;     /* the MAP's RESIDENT, and the length it mapped */
	uint64_t last_at;             /* the last REMAP's RESIDENT (0: none) */
	uint64_t next;                /* free: the next free id + 1 */
};

/* The address an event looks up: a free's ptr or an allocation's result, the other being 0
   (ptr | result: no branch on the call; a realloc's is of no use, its halves hash their own) */
static inline uint64_t ev_key(const struct mtrace_record *r)
{
	return r->ptr | r->result;
}

/* What the converter's loop takes from n events before it (on two threads, on the reader's,
   which has less to do): each event's key's hash (addrmap_hash(ev_key)) for the map, and the
   allocator calls by type, API calls up to MTRACE_CALL_LAST_API, one more entry for the rest
   (convert_prog.c counts those). */
#define CONVERT_CALL_TYPES (MTRACE_CALL_LAST_API + 2)
static inline void convert_prepare(uint64_t *calls, uint64_t *hash, const struct order_ev *ev,
				   size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct mtrace_record *r = ev[i].rec;
		hash[i] = addrmap_hash(ev_key(r));
		unsigned call = r->call;
		calls[call <= MTRACE_CALL_LAST_API ? call : MTRACE_CALL_LAST_API + 1] +=
			ev[i].kind != ORDER_RESULT;   /* (a realloc is two events) */
	}
}

/* The converter's callback on the second thread: n events and their keys' hashes
   (addrmap_hash(ev_key)), taken on the reader's thread, which has less to do */
typedef int (*convert_pipe_fn)(void *ctx, const struct order_ev *ev, const uint64_t *hash,
			       size_t n);

#define CONVERT_PIPE_SLOTS 8
/* convert_pipe.c: between the order and the converter's callbacks, the converter on a second
   thread while running */
struct convert_pipe {
	order_fn fn;                  /* the converter's callbacks: on one thread, */
	convert_pipe_fn hashed_fn;    /* on the second */
	order_thread_fn new_thread;
	void *ctx;
	struct order *ord;            /* the reader's side: its order_warm */
	struct pipe_shared *sh;       /* what the two threads share: the ring, its counters */
	struct pipe_batch *cur;       /* the batch the reader fills, NULL none yet */
	uint64_t head;                /* the reader's: batches handed over */
	void *held[CONVERT_PIPE_SLOTS];   /* the reader's: the records' memory each batch of
	                                     the ring holds from the order (order_take_held) */
	uint64_t *calls;              /* where the calls the reader counted go at the end
	                                 (convert_prepare) */
	int running;                  /* set and cleared with no converter thread */
	pthread_t th;
};

int  convert_pipe_wanted(const struct trace_reader *r);
void convert_pipe_init(struct convert_pipe *p, struct order *ord, order_fn fn,
		       convert_pipe_fn hashed_fn, order_thread_fn new_thread, void *ctx,
		       uint64_t *calls);
int  convert_pipe_events(void *ctx, const struct order_ev *ev, size_t n);   /* order_fn */
int  convert_pipe_thread(void *ctx, uint32_t idx, uint32_t tid);            /* order_thread_fn */
void convert_pipe_start(struct convert_pipe *p);
int  convert_pipe_stop(struct convert_pipe *p);
void convert_pipe_free(struct convert_pipe *p);

struct convert_state {
	struct order ord;             /* hands the records out in global order */
	struct convert_pipe pipe;     /* the order's callbacks go through it */
	uint64_t api_calls[CONVERT_CALL_TYPES];   /* convert_prepare's, till copied into the
	                                             stats */
	struct live live;             /* address -> slot of the live block there; the ideal RSS
	                                 (the blocks: slots, stamps: total_calls) */
	struct u64map waited;         /* waiter << 32 | target -> largest count waited for */
	struct slotinfo *slots;
	uint64_t nslots, cap_slots;   /* slot 0 is NULL and never handed out */
	struct ownlist {              /* per thread */
		uint64_t s[OWN_MAX];  /* its freed slots, a ring */
		uint32_t head, n;
		uint64_t fresh, fresh_end;   /* its block of never-used slots */
		uint64_t re_slot;     /* its realloc between release and result: the old slot */
		uint64_t re_map;      /* its mremap between release and result:
		                         map id + 1, 0 none */
	} *own;
	uint64_t pool;                /* the shared free slots, a stack linked through their
	                                 slotinfo.size (unused while free); 0 ends it */
	uint64_t *count;              /* calls emitted, per thread */
	uint64_t *last_t;             /* per thread: its last call's order point (pace) */
	uint32_t nthreads, cap_threads;
	uint64_t total_calls;
	uint64_t opcounts[MTRACE_WL_NCOUNTS];   /* calls emitted, by opcode */
	int32_t pid;
	char program[256];
	char settings[384];           /* the first trace's (mtrace-workload.h) */
	char settings_set[384];       /* of them, those the program set as it ran */
	char allocator[64];           /* its allocator's file name */
	uint32_t flags;               /* the workload header's */
	/* version 2 (convert_prog.c) */
	int prog_taken;                   /* the first trace's settings below are taken */
	uint64_t res_min;             /* blocks of this many bytes or more get a RESIDENT
	                                 (UINT64_MAX: the trace says nothing of it) */
	struct u64map resident;       /* slot -> its RESIDENT: stream position << 20 | thread */
	struct rangemap maps;         /* the program's live mapped ranges -> map id */
	struct mapinfo *map;
	uint64_t nmaps, cap_maps, free_maps;   /* free_maps: the first free id + 1 */
	struct map_piece { uint64_t start, end, id; } *pieces;   /* what an unmap cut */
	size_t npieces, cap_pieces;
	int pieces_oom;
	struct progmem pm;            /* the program's memory as the summary tells it */
	uint64_t pace_ticks;          /* idle time an AT marks, in the trace's ticks; INT64_MAX:
	                                 none (gaps are compared signed) */
	uint64_t t_start, tps;        /* the first trace's start and clock rate */
	uint64_t t_last;              /* the last order point met */
	uint64_t sample_us;           /* the last sample's time (the table's times never go back) */
	int pm_failed;                /* progmem ran out of memory: no figures */
};

static inline int convert_oom(struct convert *c)
{
	return tool_fail(&c->err, EXIT_SYSTEM, "out of memory");
}

static inline int convert_write_failed(struct convert *c)
{
	return tool_fail(&c->err, EXIT_SYSTEM, "%s", c->w->err.msg);
}

#define HOT static inline __attribute__((always_inline))

int convert_wait_other(struct convert *c, struct convert_state *m, uint32_t x, uint32_t target,
		       uint64_t count);

/* Thread x is about to use what another thread touched last (touch(thread, count)). */
HOT int wait_for(struct convert *c, struct convert_state *m, uint32_t x, uint64_t last)
{
	uint32_t target = (uint32_t)(last & ((1u << TOUCH_THREAD_BITS) - 1));
	uint64_t count = last >> TOUCH_THREAD_BITS;
	if (target == x || count == 0)
		return 0;   /* its own, or nobody's yet */
	return convert_wait_other(c, m, x, target, count);
}

HOT int emit(struct convert *c, struct convert_state *m, uint32_t x, unsigned op, int n,
	     const uint64_t *a)
{
	if (wl_writer_op(c->w, x, op, n, a) < 0)
		return convert_write_failed(c);
	m->count[x]++;
	m->total_calls++;
	m->opcounts[op & 0x7f]++;
	return 0;
}

/* convert_prog.c: */
/* The first trace's version-2 settings (resident bytes, pace, clock) */
void convert_prog_begin(struct convert *c, struct convert_state *m, const struct trace_reader *r);
/* A mapping call or memory sample in global order.  0, or -1 with c->err. */
int convert_prog_event(struct convert *c, struct convert_state *m, const struct order_ev *e);
/* The block just allocated into slot s by thread x is large: a RESIDENT follows it. */
int convert_resident_mark(struct convert *c, struct convert_state *m, uint32_t x, uint64_t s);
/* Slot s's block is released by record r: its RESIDENT (if any) learns what was resident. */
int convert_resident_release(struct convert *c, struct convert_state *m, uint64_t s,
			     const struct mtrace_record *r);
/* Thread x's next call, at order point t, comes after it was idle: an AT before it. */
int convert_pace_mark(struct convert *c, struct convert_state *m, uint32_t x, uint64_t t);
/* At the end: the header's version-2 fields, the summary's figures. */
void convert_prog_end(struct convert *c, struct convert_state *m, struct mtrace_wl_header *h);
void convert_prog_free(struct convert_state *m);
#endif
