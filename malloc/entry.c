/* entry.c - the interposed allocator entry points: the hot path.
 *
 * Each call: check the per-thread guard and the global switch, set the guard, reserve this
 * thread's next 32-byte slot (two for a wide record), call the next allocator, read the clock at
 * the order point, fill and commit the record, clear the guard.  The record is reserved before
 * any clock read, so a chunk's records never precede the chunk's own timestamp
 * (MTRACE_HF_CHUNK_BOUND).  No lock, no system call, no shared cache line that anyone writes.
 * The guard keeps calls made from inside the tracer or the allocator beneath (realloc calling
 * malloc, dlsym calling calloc) from being recorded twice.  While it is MT_BUSY_OWN the tracer
 * itself is allocating (glibc creating our thread): that memory comes from the bootstrap arena,
 * so the program's heap looks exactly as it would untraced.
 *
 * Return values and errno are the allocator's own: we add no argument checks, and nothing on
 * the fast path touches errno (the slow path in writer.c saves and restores it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include "mt_int.h"

__thread struct mt_thread mt_tls __attribute__((tls_model("initial-exec")));

/* ---------------------------------------------------------------------------------------------
   Helpers
   ------------------------------------------------------------------------------------------- */

static inline int mt_ready(void)
{
	if (MT_LIKELY(mt_real.malloc != NULL))
		return 1;
	mt_resolve();
	return mt_real.malloc != NULL;   /* false only while dlsym recurses into us */
}

static inline uintptr_t brk_now(void)
{
	void *const *b = mt_real.curbrk;
	return b ? (uintptr_t)*b : 0;
}

/* glibc's chunk header: the size word before the block; bit 1 = mmap'd, bit 2 = other arena */
static inline size_t glibc_size_word(const void *p)
{
	return ((const size_t *)p)[-1];
}

/* Usable size and MTRACE_RF_MMAP/ARENA of an allocated block. */
static inline unsigned result_info(void *p, uint64_t *usable)
{
	if (p == NULL) {
		*usable = 0;
		return 0;
	}
	if (mt_real.is_glibc) {
		size_t sz = glibc_size_word(p);
		*usable = (sz & ~(size_t)7) - ((sz & 2) ? 2 * sizeof(size_t) : sizeof(size_t));
		return ((sz & 2) ? MTRACE_RF_MMAP : 0) | ((sz & 4) ? MTRACE_RF_ARENA : 0);
	}
	*usable = mt_real.usable(p);
	return 0;
}

/* MTRACE_RF_PTR_MMAP of a block given back, and its usable size if it is large enough for its
   resident bytes to be recorded (else 0).  glibc's size word says both; another allocator is
   asked for the size. */
static inline unsigned ptr_info(void *p, size_t *large)
{
	*large = 0;
	if (p == NULL)
		return 0;
	if (mt_real.is_glibc) {
		size_t sz = glibc_size_word(p);
		size_t n = (sz & ~(size_t)7) - ((sz & 2) ? 2 * sizeof(size_t) : sizeof(size_t));
		*large = n >= MT_RESIDENT_MIN ? n : 0;
		return (sz & 2) ? MTRACE_RF_PTR_MMAP : 0;
	}
	size_t n = mt_real.usable(p);
	*large = n >= MT_RESIDENT_MIN ? n : 0;
	return 0;
}

/* The resident bytes of a large block given back (out of line: a system call or more), which
   leaves the table of those live (large.c).  And before it goes, the process's memory, if a
   sample is due: where memory falls the program may have made no call for long (sort fills a
   1.4 GB buffer between its malloc and its free), and a sample after the release would miss
   the peak. */
static MT_NOINLINE uint64_t resident_of(void *p, size_t size, unsigned *flags)
{
	*flags |= MTRACE_RF_RESIDENT;
	mt_large_remove(p);
	mt_memory_before_release(&mt_tls, size);
	return mt_memory_resident(p, size);
}

/* A record reserved before the call may be filled after it: unless a fork inside the call (from
   a signal handler) made us a child whose mapping of the parent's file is gone. */
static inline int still_mine(const struct mt_thread *t)
{
	return t->gen == mt_hot->gen;
}

static inline uint64_t start_ticks(struct mt_thread *t)
{
	return mt_hot->durations ? mt_call_ticks(&t->clk) : 0;
}

/* Not recording: is this the first call of a child made without fork() (whose page of
   mt_hot was wiped)?  Then it becomes a process of its own.  Or has a request to start come
   from outside?  Either way, it records now if it should. */
static MT_NOINLINE int records_now(void)
{
	if (mt_new_process_due())
		mt_new_process();
	if (mt_control_due())
		mt_control_act();
	return mt_hot->active;
}

/* The slots an allocating call's record takes: ns as its arguments allow (include/
   mtrace-trace.h), two for every call when durations are recorded. */
static inline struct mtrace_slot *reserve_call(struct mt_thread *t, unsigned ns, int may_start,
					       unsigned *n)
{
	*n = MT_UNLIKELY(mt_hot->durations) ? 2 : ns;
	struct mtrace_slot *r = mt_reserve_n(t, *n, may_start);
	if (MT_UNLIKELY(*n == 2) && r != NULL)
		t->extra++;   /* the second slot holds no record: left out of the count */
	return r;
}

/* An allocating call's slots: as reserve_call's; when stacks are recorded (stacks.c), wide where
   the arguments leave no room for the stack's id in a compact record (fits: mtrace_stack_fits),
   and *stack its id | MT_STACK_IDS (else 0).  ret: the return address of the allocator call in
   the program. */
static inline struct mtrace_slot *reserve_alloc(struct mt_thread *t, unsigned ns, int may_start,
						unsigned *n, void *ret, int fits, uint32_t *stack)
{
	*stack = 0;
	if (MT_LIKELY(!mt_hot->stacks))
		return reserve_call(t, ns, may_start, n);
	*n = MT_UNLIKELY(mt_hot->durations) || !fits ? 2 : ns;
	return mt_stacks_reserve(t, *n, may_start, (uintptr_t)ret, stack);
}

/* Record into r (n slots, reserved before any clock was read: a chunk's records never precede
   its ts) an allocating call whose result is p.  Its order point is read last, after the body
   is stored: RDTSCP waits for every earlier instruction, so what it waits for is done first. */
static inline void record_alloc(struct mt_thread *t, struct mtrace_slot *r, unsigned n,
				unsigned call, uint64_t t0, uintptr_t brk0, void *p, size_t size,
				size_t arg2, int failed, int err, uint32_t stack)
{
	uint64_t usable;
	unsigned flags = result_info(p, &usable);
	if (brk_now() != brk0)
		flags |= MTRACE_RF_BRK;
	if (failed)
		flags |= MTRACE_RF_FAILED;
	else
		err = 0;
	if (MT_LIKELY(r != NULL && still_mine(t))) {
		uint64_t ts;
		if (MT_LIKELY(n == 1)) {
			/* compact (the call and what mtrace_slots_for allowed are known here) */
			int calloc_ = call == MTRACE_CALL_CALLOC;
			unsigned aux = mtrace_is_aligned_call(call) ?
				(unsigned)__builtin_ctzll(arg2) + 1 + ((unsigned)err << 8) :
				(unsigned)err;
			uint64_t b = calloc_ ? size | (uint64_t)arg2 << 32 : size;
			if (MT_UNLIKELY(stack))
				b = mtrace_stack_b(call, size, arg2, stack & MTRACE_STACK_ID_MAX);
			mt_put_body(r, (uintptr_t)p, b);
			ts = mt_call_ticks(&t->clk);
			mt_put_tail(r, call, flags, aux,
				    mt_usable_x(usable, calloc_ ? (uint64_t)size * arg2 : size),
				    ts);
		} else {
			ts = mt_call_ticks(&t->clk);
			mt_put_wide_stack(r, call, flags, err, ts, 0, (uintptr_t)p, size, arg2,
					  usable, t0 ? ts - t0 : 0, stack & MTRACE_STACK_ID_MAX);
		}
		if (MT_UNLIKELY(usable >= MT_RESIDENT_MIN))
			mt_large_add(p, usable);   /* (said at the end if still live) */
		mt_memory_maybe_sample(t, ts);
	}
}

/* ---------------------------------------------------------------------------------------------
   malloc, calloc, the aligned family
   ------------------------------------------------------------------------------------------- */

/* Not recording now: the first call of a new process sets it up, a dormant process's carries a
   request from outside out (and either may record). */
#define NOT_RECORDING(t) (MT_UNLIKELY((t)->busy | !mt_hot->active) &&                     \
			  ((t)->busy || !(mt_new_process_due() | mt_control_due()) ||           \
			   !records_now()))

/* The common shape of an allocating entry point.  CALL_EXPR runs the allocator; FAILED decides
   failure from p; the untraced path repeats CALL_EXPR (or BOOT while dlsym recurses). */
#define ALLOC_ENTRY(CALL, CALL_EXPR, BOOT, SIZE, ARG2, SLOTS)                            \
	struct mt_thread *t = &mt_tls;                                                   \
	if (NOT_RECORDING(t)) {                                                          \
		if (MT_UNLIKELY(t->busy == MT_BUSY_OWN || !mt_ready()))                  \
			return BOOT;                                                     \
		return CALL_EXPR;                                                        \
	}                                                                                \
	t->busy = 1;                                                                     \
	unsigned ns;                                                                     \
	uint32_t stack;                                                                  \
	struct mtrace_slot *r = reserve_alloc(t, SLOTS, 1, &ns,                          \
					      __builtin_return_address(0),               \
					      mtrace_stack_fits(CALL, SIZE, ARG2), &stack); \
	uint64_t t0 = start_ticks(t);                                                    \
	uintptr_t brk0 = brk_now();                                                      \
	void *p = CALL_EXPR;                                                             \
	int err = p ? 0 : errno;                                                         \
	record_alloc(t, r, ns, CALL, t0, brk0, p, SIZE, ARG2, p == NULL, err, stack);    \
	t->busy = 0;                                                                     \
	return p;

MT_API void *malloc(size_t size)
{
	ALLOC_ENTRY(MTRACE_CALL_MALLOC, mt_real.malloc(size), mt_boot_alloc(size, 16), size, 0, 1)
}

MT_API void *calloc(size_t n, size_t size)
{
	ALLOC_ENTRY(MTRACE_CALL_CALLOC, mt_real.calloc(n, size),
		    (n && size > SIZE_MAX / n) ? NULL : mt_boot_alloc(n * size, 16), n, size,
		    mtrace_slots_for(MTRACE_CALL_CALLOC, n, size, 0))
}

MT_API void *memalign(size_t align, size_t size)
{
	ALLOC_ENTRY(MTRACE_CALL_MEMALIGN, mt_real.memalign(align, size), mt_boot_alloc(size, align),
		    size, align, mtrace_slots_for(MTRACE_CALL_MEMALIGN, size, align, 0))
}

MT_API void *aligned_alloc(size_t align, size_t size)
{
	ALLOC_ENTRY(MTRACE_CALL_ALIGNED_ALLOC, mt_real.aligned_alloc(align, size),
		    mt_boot_alloc(size, align), size, align,
		    mtrace_slots_for(MTRACE_CALL_ALIGNED_ALLOC, size, align, 0))
}

MT_API void *valloc(size_t size)
{
	ALLOC_ENTRY(MTRACE_CALL_VALLOC, mt_real.valloc(size), mt_boot_alloc(size, 4096), size, 0, 1)
}

MT_API void *pvalloc(size_t size)
{
	ALLOC_ENTRY(MTRACE_CALL_PVALLOC, mt_real.pvalloc(size), mt_boot_alloc(size, 4096),
		    size, 0, 1)
}

MT_API int posix_memalign(void **out, size_t align, size_t size)
{
	struct mt_thread *t = &mt_tls;
	if (NOT_RECORDING(t)) {
		if (MT_UNLIKELY(t->busy == MT_BUSY_OWN || !mt_ready())) {
			if (align < sizeof(void *) || (align & (align - 1)))
				return EINVAL;
			void *p = mt_boot_alloc(size, align);
			if (p == NULL)
				return ENOMEM;
			*out = p;
			return 0;
		}
		return mt_real.posix_memalign(out, align, size);
	}
	t->busy = 1;
	unsigned n;
	uint32_t stack;
	struct mtrace_slot *r = reserve_alloc(
		t, mtrace_slots_for(MTRACE_CALL_POSIX_MEMALIGN, size, align, 0), 1, &n,
		__builtin_return_address(0),
		mtrace_stack_fits(MTRACE_CALL_POSIX_MEMALIGN, size, align), &stack);
	uint64_t t0 = start_ticks(t);
	uintptr_t brk0 = brk_now();
	int ret = mt_real.posix_memalign(out, align, size);
	record_alloc(t, r, n, MTRACE_CALL_POSIX_MEMALIGN, t0, brk0, ret == 0 ? *out : NULL, size,
		     align, ret != 0, ret, stack);
	t->busy = 0;
	return ret;
}

/* ---------------------------------------------------------------------------------------------
   free
   ------------------------------------------------------------------------------------------- */

MT_API void free(void *p)
{
	struct mt_thread *t = &mt_tls;
	if (MT_UNLIKELY(mt_is_boot_ptr(p)))
		return;   /* bootstrap blocks are never given back */
	if (NOT_RECORDING(t)) {
		if (MT_LIKELY(mt_ready()))
			mt_real.free(p);
		return;
	}
	t->busy = 1;
	/* the record first, then the clock (a chunk's records never precede its ts); the order
	   point before the allocator can hand the block to another thread, and before the load of
	   the block's size word, whose cache miss its fence would wait for */
	unsigned n;
	struct mtrace_slot *r = reserve_call(t, 1, 0, &n);
	uint64_t ts = mt_call_ticks(&t->clk);
	size_t large;
	unsigned flags = ptr_info(p, &large);
	uint64_t resident = MT_UNLIKELY(large) ? resident_of(p, large, &flags) : 0;
	if (MT_LIKELY(r != NULL && n == 1)) {
		/* everything is known before the call: the record is complete before the block is
		   released, and its stores overlap the allocator's work */
		mt_put_body(r, (uintptr_t)p, resident);
		mt_put_tail(r, MTRACE_CALL_FREE, flags, 0, 0, ts);
		mt_real.free(p);
	} else {
		mt_real.free(p);
		if (r != NULL && still_mine(t))
			mt_put_wide(r, MTRACE_CALL_FREE, flags, 0, ts, (uintptr_t)p, 0, 0, resident,
				    0, mt_call_ticks(&t->clk) - ts);
	}
	if (r != NULL)
		mt_memory_maybe_sample(t, ts);
	t->busy = 0;
}

/* ---------------------------------------------------------------------------------------------
   realloc, reallocarray: two order points, before (release of ptr) and after (result)
   ------------------------------------------------------------------------------------------- */

static void *boot_realloc(void *old, size_t size)
{
	void *p = malloc(size);   /* the bootstrap block was never traced: record a malloc */
	size_t have = mt_boot_usable(old);
	if (p != NULL)
		memcpy(p, old, have < size ? have : size);
	return p;
}

/* r (two slots: a wide record) was reserved before t0 was read (a chunk's records never precede
   its ts) */
static inline void record_realloc(struct mt_thread *t, struct mtrace_slot *r, unsigned call,
				  uint64_t t0, uintptr_t brk0, unsigned pflags, void *old, void *p,
				  size_t size, size_t arg2, int failed, int err, uint32_t stack)
{
	uint64_t t1 = mt_call_ticks(&t->clk);
	uint64_t usable;
	unsigned flags = pflags | result_info(p, &usable);
	if (brk_now() != brk0)
		flags |= MTRACE_RF_BRK;
	if (MT_LIKELY(r != NULL && still_mine(t))) {
		mt_put_wide_stack(r, call, flags | (failed ? MTRACE_RF_FAILED : 0),
				  failed ? err : 0, t0, (uintptr_t)old, (uintptr_t)p, size, arg2,
				  usable, t1 - t0, stack & MTRACE_STACK_ID_MAX);
		if (MT_UNLIKELY(usable >= MT_RESIDENT_MIN))
			mt_large_add(p, usable);
		mt_memory_maybe_sample(t, t1);
	}
}

MT_API void *realloc(void *old, size_t size)
{
	struct mt_thread *t = &mt_tls;
	if (MT_UNLIKELY(mt_is_boot_ptr(old)))
		return boot_realloc(old, size);
	if (NOT_RECORDING(t)) {
		if (MT_UNLIKELY(!mt_ready()))
			return old ? NULL : mt_boot_alloc(size, 16);
		return mt_real.realloc(old, size);
	}
	t->busy = 1;
	unsigned n;
	uint32_t stack;
	struct mtrace_slot *r = reserve_alloc(t, 2, 0, &n, __builtin_return_address(0), 1, &stack);
	uint64_t t0 = mt_call_ticks(&t->clk);   /* (before the size word's load, as free's) */
	size_t large;
	unsigned pflags = ptr_info(old, &large);
	/* how much of the old block the program had made resident: in arg2, which realloc has
	   free */
	uint64_t resident = MT_UNLIKELY(large) ? resident_of(old, large, &pflags) : 0;
	uintptr_t brk0 = brk_now();
	void *p = mt_real.realloc(old, size);
	/* glibc's realloc(p, 0) frees p and returns NULL: that is not a failure */
	int failed = p == NULL && (old == NULL || size != 0);
	int err = failed ? errno : 0;
	if (MT_UNLIKELY(large) && failed)
		mt_large_add(old, large);   /* (still the program's) */
	record_realloc(t, r, MTRACE_CALL_REALLOC, t0, brk0, pflags, old, p, size, resident,
		       failed, err, stack);
	t->busy = 0;
	return p;
}

MT_API void *reallocarray(void *old, size_t n, size_t size)
{
	struct mt_thread *t = &mt_tls;
	if (MT_UNLIKELY(mt_is_boot_ptr(old))) {
		size_t total;
		if (__builtin_mul_overflow(n, size, &total)) {
			errno = ENOMEM;
			return NULL;
		}
		return boot_realloc(old, total);
	}
	if (NOT_RECORDING(t)) {
		if (MT_UNLIKELY(!mt_ready()))
			return NULL;
		return mt_real.reallocarray(old, n, size);
	}
	t->busy = 1;
	unsigned ns;
	uint32_t stack;
	struct mtrace_slot *r = reserve_alloc(t, 2, 0, &ns, __builtin_return_address(0), 1,
					      &stack);
	size_t large;   /* (reallocarray's arg2 is the element size: no room for resident bytes) */
	unsigned pflags = ptr_info(old, &large);
	if (MT_UNLIKELY(large))
		mt_large_remove(old);
	uint64_t t0 = mt_call_ticks(&t->clk);
	uintptr_t brk0 = brk_now();
	void *p = mt_real.reallocarray(old, n, size);
	size_t total;
	int overflow = __builtin_mul_overflow(n, size, &total);
	int failed = p == NULL && (old == NULL || total != 0 || overflow);
	int err = failed ? errno : 0;
	if (MT_UNLIKELY(large) && failed)
		mt_large_add(old, large);
	record_realloc(t, r, MTRACE_CALL_REALLOCARRAY, t0, brk0, pflags, old, p, n, size,
		       failed, err, stack);
	t->busy = 0;
	return p;
}

/* ---------------------------------------------------------------------------------------------
   malloc_usable_size: passes through (but must know our bootstrap blocks)
   ------------------------------------------------------------------------------------------- */

MT_API size_t malloc_usable_size(void *p)
{
	if (MT_UNLIKELY(mt_is_boot_ptr(p)))
		return mt_boot_usable(p);
	if (MT_UNLIKELY(!mt_ready()))
		return 0;
	return mt_real.usable(p);
}
