/* u_order - unit test of order.h: a trace's records in one global order.
 *
 * Traces are built here as the tracer lays them out (version 2, 64-byte records): each thread
 * reserves a chunk of records at the file's end and fills it later, so the file is a patchwork
 * of per-thread runs, with the tails of chunks never filled.  The events must come out sorted by
 * order point, each thread's in its own order, a realloc twice (release, then result at ts +
 * duration), nothing lost, nothing late; a record that precedes its chunk against the header's
 * promise is handed out and counted late; a reused thread id is a new thread; reader errors and
 * a callback's stop end the feed with -1.
 */
#include <stdint.h>
#include "unit.h"
#include "order.h"

/* ---------------------------------------------------------------------------------------------
   Traces
   ------------------------------------------------------------------------------------------- */

#define SLOTS (1u << 16)
static struct mtrace_record file[SLOTS];   /* the records after the header */
static uint32_t nslots;
static uint64_t prev_chunk[64];             /* by tid: the file offset of its last chunk */

static uint64_t offset_of(uint32_t slot)
{
	return MTRACE_HEADER_SIZE + (uint64_t)slot * MTRACE_RECORD_SIZE;
}

/* a chunk of n slots (its chunk record included) for tid at ts: the slot of its first record */
static uint32_t chunk(uint32_t tid, uint64_t ts, uint32_t n, int first)
{
	uint32_t at = nslots;
	file[at] = (struct mtrace_record){ .tid = tid, .call = MTRACE_CALL_CHUNK, .ts = ts,
					   .ptr = first ? 0 : prev_chunk[tid],
					   .size = (uint64_t)n * MTRACE_RECORD_SIZE };
	prev_chunk[tid] = offset_of(at);
	nslots += n;
	return at + 1;
}

static struct mtrace_record call(uint32_t tid, unsigned c, uint64_t ts, uint64_t ptr,
				 uint64_t result)
{
	return (struct mtrace_record){ .tid = tid, .call = (uint8_t)c, .ts = ts, .ptr = ptr,
				       .result = result, .size = result ? 16 : 0,
				       .usable = result ? 24 : 0 };
}

/* the trace file of file[0..nslots), its header's flags as given; its path */
static const char *trace_file(const char *name, uint32_t flags)
{
	static unsigned char bytes[MTRACE_HEADER_SIZE + sizeof file];
	struct mtrace_file_header h;
	mtrace_header_init(&h);
	h.version = 2;
	h.record_size = MTRACE_RECORD_SIZE;
	h.pointer_size = 8;
	h.clock = MTRACE_CLOCK_MONOTONIC;
	h.ticks_per_sec = 1000000000;
	h.flags = MTRACE_HF_FINISHED | flags;
	h.pid = 4242;
	memset(bytes, 0, MTRACE_HEADER_SIZE);
	memcpy(bytes, &h, sizeof h);
	memcpy(bytes + MTRACE_HEADER_SIZE, file, (size_t)nslots * MTRACE_RECORD_SIZE);
	return unit_file(name, bytes, MTRACE_HEADER_SIZE + (size_t)nslots * MTRACE_RECORD_SIZE);
}

static void reset(void)
{
	memset(file, 0, sizeof file);
	memset(prev_chunk, 0, sizeof prev_chunk);
	nslots = 0;
}

/* ---------------------------------------------------------------------------------------------
   What the order hands out
   ------------------------------------------------------------------------------------------- */

struct got { uint64_t t, ts, result, duration; uint32_t thread, kind, tid, call; };
static struct got got[2 * SLOTS];
static size_t ngot, stop_after = SIZE_MAX;
static uint32_t new_tids[64], nnew;

static int on_events(void *ctx, const struct order_ev *ev, size_t n)
{
	(void)ctx;
	for (size_t i = 0; i < n; i++) {
		if (ngot == stop_after)
			return -1;
		const struct mtrace_record *r = ev[i].rec;
		got[ngot++] = (struct got){ ev[i].t, r->ts, r->result, r->duration, ev[i].thread,
					    ev[i].kind, r->tid, r->call };
	}
	return 0;
}

static int on_thread(void *ctx, uint32_t index, uint32_t tid)
{
	(void)ctx;
	if (index != nnew || nnew == 64)
		return -1;   /* indexes must come 0, 1, 2, ... */
	new_tids[nnew++] = tid;
	return 0;
}

/* order the trace at path: order_feed's and order_end's results summed; o kept for its counts */
static int run(struct order *o, const char *path)
{
	ngot = nnew = 0;
	struct trace_reader r;
	if (order_begin(o, on_events, on_thread, NULL) < 0)
		return -1;
	if (trace_open(&r, path) < 0) {
		printf("# %s\n", r.err.msg);
		return -1;
	}
	int rc = order_feed(o, &r);
	if (rc == 0)
		rc = order_end(o);
	trace_close(&r);
	return rc;
}

/* t never goes back */
static int sorted(void)
{
	for (size_t i = 1; i < ngot; i++)
		if (got[i].t < got[i - 1].t)
			return 0;
	return 1;
}

/* ---------------------------------------------------------------------------------------------
   Scenarios
   ------------------------------------------------------------------------------------------- */

/* two threads whose chunks interleave in the file; a realloc between them */
static void two_threads(void)
{
	struct order o;
	reset();
	uint32_t a = chunk(1, 5, 5, 1);        /* tid 1's chunk: 4 records, 3 filled */
	uint32_t b = chunk(2, 15, 4, 1);       /* tid 2's, taken after it: 3 records, all filled */
	file[a] = call(1, MTRACE_CALL_MALLOC, 10, 0, 0x1000);
	file[b] = call(2, MTRACE_CALL_MALLOC, 20, 0, 0x2000);
	file[a + 1] = call(1, MTRACE_CALL_REALLOC, 30, 0x1000, 0x3000);
	file[a + 1].duration = 25;             /* its result point: 55 */
	file[b + 1] = call(2, MTRACE_CALL_FREE, 40, 0x2000, 0);
	file[b + 2] = call(2, MTRACE_CALL_MALLOC, 50, 0, 0x2000);
	file[a + 2] = call(1, MTRACE_CALL_FREE, 60, 0x3000, 0);
	int rc = run(&o, trace_file("two.trace", MTRACE_HF_CHUNK_BOUND));
	CHECK(rc == 0, "two threads: ordered (%s)", rc ? o.err.msg : "no error");
	static const uint64_t want_t[] = { 10, 20, 30, 40, 50, 55, 60 };
	static const uint32_t want_thread[] = { 0, 1, 0, 1, 1, 0, 0 };
	static const uint32_t want_kind[] = { ORDER_CALL, ORDER_CALL, ORDER_RELEASE, ORDER_CALL,
					      ORDER_CALL, ORDER_RESULT, ORDER_CALL };
	int same = ngot == 7;
	for (size_t i = 0; same && i < 7; i++)
		same = got[i].t == want_t[i] && got[i].thread == want_thread[i] &&
		       got[i].kind == want_kind[i];
	CHECK(same, "... the six calls and the realloc's result point in time order, across the "
	      "chunks (%zu events)", ngot);
	CHECK(ngot == 7 && got[2].ts == 30 && got[5].ts == 30 && got[5].result == 0x3000,
	      "... the realloc twice: released at its ts, its result at ts + duration, one record");
	CHECK(nnew == 2 && new_tids[0] == 1 && new_tids[1] == 2 && o.nthreads == 2,
	      "... threads indexed in order of first appearance (tids %u, %u)", new_tids[0],
	      new_tids[1]);
	CHECK(o.records == 6 && o.late == 0 && o.torn == 0, "... 6 records read (chunks aside), "
	      "none late (%llu, %llu)", (unsigned long long)o.records, (unsigned long long)o.late);
	CHECK(order_max_live_threads(&o) == 2, "... both alive at once: %u",
	      order_max_live_threads(&o));
	order_free(&o);

	/* a failed realloc released nothing: one event */
	reset();
	a = chunk(1, 5, 3, 1);
	file[a] = call(1, MTRACE_CALL_MALLOC, 10, 0, 0x1000);
	file[a + 1] = call(1, MTRACE_CALL_REALLOC, 20, 0x1000, 0);
	file[a + 1].flags = MTRACE_RF_FAILED;
	file[a + 1].size = (uint64_t)1 << 50;
	file[a + 1].duration = 5;
	rc = run(&o, trace_file("failed.trace", MTRACE_HF_CHUNK_BOUND));
	CHECK(rc == 0 && ngot == 2 && got[1].kind == ORDER_CALL && got[1].t == 20,
	      "a failed realloc: one event, a call at its ts (%zu events)", ngot);
	order_free(&o);

	/* one thread after the other: one alive at a time */
	reset();
	a = chunk(1, 5, 3, 1);
	file[a] = call(1, MTRACE_CALL_MALLOC, 10, 0, 0x1000);
	file[a + 1] = call(1, MTRACE_CALL_FREE, 20, 0x1000, 0);
	b = chunk(2, 25, 3, 1);
	file[b] = call(2, MTRACE_CALL_MALLOC, 30, 0, 0x1000);
	file[b + 1] = call(2, MTRACE_CALL_FREE, 40, 0x1000, 0);
	rc = run(&o, trace_file("serial.trace", MTRACE_HF_CHUNK_BOUND));
	CHECK(rc == 0 && order_max_live_threads(&o) == 1, "threads one after the other: 1 alive at "
	      "once (%u)", order_max_live_threads(&o));
	order_free(&o);

	/* the same tid on a first chunk again: the kernel gave an exited thread's id again */
	reset();
	a = chunk(7, 5, 2, 1);
	file[a] = call(7, MTRACE_CALL_MALLOC, 10, 0, 0x1000);
	b = chunk(7, 15, 2, 1);
	file[b] = call(7, MTRACE_CALL_FREE, 20, 0x1000, 0);
	uint32_t c = chunk(7, 25, 2, 0);   /* the second thread's next chunk: the same thread */
	file[c] = call(7, MTRACE_CALL_MALLOC, 30, 0, 0x2000);
	rc = run(&o, trace_file("reuse.trace", MTRACE_HF_CHUNK_BOUND));
	CHECK(rc == 0 && o.nthreads == 2 && ngot == 3 && got[0].thread == 0 &&
	      got[1].thread == 1 && got[2].thread == 1,
	      "a thread id on a first chunk again: a new thread, kept for its next chunk (%u "
	      "threads)", o.nthreads);
	order_free(&o);
}

/* a record that precedes its chunk: late where the header promises none, in order without it */
static void late(void)
{
	struct order o;
	for (int bound = 1; bound >= 0; bound--) {
		reset();
		uint32_t a = chunk(1, 5, 3, 1);
		file[a] = call(1, MTRACE_CALL_MALLOC, 10, 0, 0x1000);
		file[a + 1] = call(1, MTRACE_CALL_MALLOC, 40, 0, 0x2000);   /* out at chunk 3 */
		uint32_t b = chunk(2, 50, 2, 1);
		file[b] = call(2, MTRACE_CALL_MALLOC, 70, 0, 0x3000);
		uint32_t c = chunk(3, 55, 2, 1);
		file[c] = call(3, MTRACE_CALL_MALLOC, 30, 0, 0x4000);   /* before its chunk's 55 */
		int rc = run(&o, trace_file("late.trace", bound ? MTRACE_HF_CHUNK_BOUND : 0));
		if (bound)
			CHECK(rc == 0 && ngot == 4 && o.late == 1 && got[1].ts == 40 &&
			      got[2].ts == 30,
			      "a record before its chunk's ts, which the header says none is: "
			      "handed out after a later one, counted late (%llu)",
			      (unsigned long long)o.late);
		else
			CHECK(rc == 0 && ngot == 4 && o.late == 0 && sorted(),
			      "the same without the header's promise: within the slack, in order");
		order_free(&o);
	}
}

static uint64_t rnd(void)
{
	static uint64_t x = 88172645463325252ull;
	x ^= x << 13, x ^= x >> 7, x ^= x << 17;
	return x;
}

/* Threads taking chunks of random lengths as the clock runs, some calls reallocs that take
   a while; what each thread was left to fill of its last chunk stays unwritten.  Each chunk's
   ts is after the last one's and before its records', so that every record of a tick is read
   before a chunk lets that tick out: ties between threads go to the lower index. */
#define NT 16
struct shape {
	const char *name;
	uint32_t threads;        /* at most NT */
	uint32_t burst;          /* calls a thread makes in a row: 1 to this */
	uint32_t chunk;          /* records a chunk holds: 1 to this */
	uint64_t step;           /* ticks between calls: 0 to this - 1, plus min_step */
	uint64_t min_step;
};

static void random_threads(const struct shape *sh)
{
	struct order o;
	reset();
	struct { uint32_t at, left; uint64_t busy, seq; } th[NT + 1] = { 0 };
	static uint64_t expect_events;
	uint64_t now = 1, calls = 0;
	uint32_t t = 1, burst = 0;   /* the thread making calls, and how many more */
	expect_events = 0;
	while (nslots < SLOTS - sh->chunk - 2) {
		if (burst == 0) {
			t = 1 + (uint32_t)(rnd() % sh->threads);
			burst = 1 + (uint32_t)(rnd() % sh->burst);
		}
		burst--;
		now += sh->min_step + rnd() % sh->step;
		if (th[t].busy > now) {
			burst = 0;
			continue;            /* in a realloc still */
		}
		if (th[t].left == 0) {
			uint32_t n = 2 + (uint32_t)(rnd() % sh->chunk);
			th[t].at = chunk(t, now, n, th[t].seq == 0);
			th[t].left = n - 1;
			now++;
		}
		struct mtrace_record r = call(t, MTRACE_CALL_MALLOC, now, 0, th[t].seq + 1);
		r.ptr = th[t].seq++;     /* the thread's own order, kept in ptr */
		if (rnd() % 4 == 0) {
			r.call = MTRACE_CALL_REALLOC;
			r.duration = rnd() % 40;
			th[t].busy = now + r.duration;
			expect_events++;
		}
		file[th[t].at++] = r;
		th[t].left--;
		calls++;
		expect_events++;
	}
	int rc = run(&o, trace_file("random.trace", MTRACE_HF_CHUNK_BOUND));
	CHECK(rc == 0, "%s: %llu calls of %u threads in chunks: ordered (%s)", sh->name,
	      (unsigned long long)calls, sh->threads, rc ? o.err.msg : "no error");
	CHECK(ngot == expect_events && o.records == calls,
	      "... every call handed out, reallocs twice (%zu events of %llu)", ngot,
	      (unsigned long long)expect_events);
	CHECK(sorted(), "... in order of their order points");
	int bad_tie = 0;
	for (size_t i = 1; i < ngot; i++)
		bad_tie += got[i].t == got[i - 1].t && got[i].thread < got[i - 1].thread;
	CHECK(bad_tie == 0, "... at the same order point, the lower thread index first (%d not)",
	      bad_tie);
	CHECK(o.late == 0, "... none late (%llu)", (unsigned long long)o.late);
	/* each thread's records in its own order; a realloc's result at ts + duration, after its
	   release and before the thread's next call */
	uint64_t next[NT + 1] = { 0 };
	int in_realloc[NT + 1] = { 0 }, bad_seq = 0, bad_result = 0, bad_index = 0;
	uint32_t index_of[NT + 1];
	memset(index_of, 0xff, sizeof index_of);
	for (size_t i = 0; i < ngot; i++) {
		const struct got *g = &got[i];
		uint32_t tid = g->tid;
		if (index_of[tid] == UINT32_MAX)
			index_of[tid] = g->thread;
		bad_index += index_of[tid] != g->thread || new_tids[g->thread] != tid;
		if (g->kind == ORDER_RESULT) {
			bad_result += !in_realloc[tid] || g->result != next[tid] ||
				      g->t != g->ts + g->duration;
			in_realloc[tid] = 0;
			continue;
		}
		bad_seq += in_realloc[tid] || g->result != next[tid] + 1;
		if (g->kind == ORDER_RELEASE)
			in_realloc[tid] = 1;
		next[tid]++;
	}
	CHECK(bad_seq == 0, "... each thread's calls in its own order (%d not)", bad_seq);
	CHECK(bad_result == 0,
	      "... each realloc's result at ts + duration, after its release, before the thread's "
	      "next call (%d not)", bad_result);
	CHECK(bad_index == 0 && o.nthreads == sh->threads && nnew == sh->threads,
	      "... one index a thread, as new_thread was told (%u threads)", o.nthreads);
	order_free(&o);
}

/* a bad record, and a callback that stops */
static void errors(void)
{
	struct order o;
	reset();
	uint32_t a = chunk(1, 5, 4, 1);
	file[a] = call(1, MTRACE_CALL_MALLOC, 10, 0, 0x1000);
	file[a + 1] = call(1, 99, 20, 0, 0);
	int rc = run(&o, trace_file("bad.trace", MTRACE_HF_CHUNK_BOUND));
	char want[64];
	snprintf(want, sizeof want, "offset %llu: unknown call type 99",
		 (unsigned long long)offset_of(a + 1));
	CHECK(rc == -1 && strstr(o.err.msg, want),
	      "a bad record: -1, the reader's error naming its offset (%s)", o.err.msg);
	order_free(&o);

	reset();
	a = chunk(1, 5, 4, 1);
	for (uint32_t i = 0; i < 3; i++)
		file[a + i] = call(1, MTRACE_CALL_MALLOC, 10 + i, 0, 0x1000 * (i + 1));
	stop_after = 1;
	rc = run(&o, trace_file("stop.trace", MTRACE_HF_CHUNK_BOUND));
	stop_after = SIZE_MAX;
	CHECK(rc == -1 && ngot == 1,
	      "a callback that returns -1: the order stops with -1 (%zu events)", ngot);
	order_free(&o);
}

int main(void)
{
	two_threads();
	late();
	/* calls a tick or more apart, in short chunks */
	random_threads(&(struct shape){ "interleaved", NT, 1, 12, 3, 1 });
	/* runs of calls from one thread, longer than a queue's segment (127 records), many in
	   the same tick as another thread's; a third thread beside the two the merge takes */
	random_threads(&(struct shape){ "runs", 3, 300, 400, 2, 0 });
	random_threads(&(struct shape){ "runs of one thread", 1, 300, 400, 2, 0 });
	errors();
	return unit_done();
}
