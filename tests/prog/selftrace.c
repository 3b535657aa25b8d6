/* selftrace - test helper: a program in phases that writes its own version-2 trace with the
 * shared writer, as the tracer would: its malloc and free calls with their real addresses, the
 * anonymous mappings it makes itself, how much of each large block or mapping was resident when
 * it released it (mincore), and samples of its own memory (/proc/self/statm) at most every
 * 10 ms.  Its memory is real, so a replay of its trace can be held to it.
 *
 *   selftrace SCENARIO OUT
 *     phases    50,000 small blocks (written whole), 90% of them freed, 150 ms idle, 100 blocks
 *               of 64 to 256 KiB, held 50 ms, all freed
 *     quarter   four blocks of 64 MiB live at once, a quarter of each written, held 50 ms,
 *               then freed
 *     mapped    32 MiB mapped by the program itself and written, held 50 ms, nothing through
 *               malloc, then unmapped in two halves
 *     decay     100 MiB in 1 MiB blocks, written, freed, then 1.5 s idle, then one more call
 *               (for an allocator that gives memory back on a timer)
 *
 * Besides every 10 ms, each phase ends with a sample (where its peak is, which samples 10 ms
 * apart may miss), and each peak is held 50 ms (for the tracer's samples, when the program is
 * traced as well): the replay is held to the program's peak, not to where a sample fell.
 * OUT - : no trace of its own (the program alone, for the tracer to trace; idle, it makes a
 * small call every 5 ms, so that the tracer's samples see what it holds).
 * The trace names the allocator that served malloc (the library holding it) and the
 * allocators' settings in the environment, as the tracer's header would.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "trace_writer.h"

#define RESIDENT_MIN 65536u
#define SAMPLE_NS 10000000u

static struct trace_writer w;
static uint32_t tid;
static long page;
static uint64_t next_sample;

static void die(const char *m) { fprintf(stderr, "selftrace: %s\n", m); exit(1); }

static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int recording = 1;   /* OUT is not "-" */

static void put(struct mtrace_record r)
{
	if (!recording)
		return;
	r.tid = tid;
	if (trace_writer_put(&w, &r) < 0)
		die(w.err.msg);
}

static void sample(void)
{
	if (!recording)
		return;
	char buf[160];
	FILE *f = fopen("/proc/self/statm", "r");
	if (!f || !fgets(buf, sizeof buf, f))
		die("cannot read /proc/self/statm");
	fclose(f);
	unsigned long long vsz, rss, shared;
	if (sscanf(buf, "%llu %llu %llu", &vsz, &rss, &shared) != 3)
		die("statm");
	uint64_t t = now();
	put((struct mtrace_record){ .call = MTRACE_CALL_MEMORY, .ts = t,
				    .size = (rss - shared) * (uint64_t)page,
				    .arg2 = rss * (uint64_t)page, .usable = vsz * (uint64_t)page });
	next_sample = t + SAMPLE_NS;
}

static void maybe_sample(void)
{
	if (now() >= next_sample)
		sample();
}

/* Bytes of the whole pages of [p, p + n) that are resident */
static uint64_t resident(void *p, uint64_t n)
{
	uintptr_t a = ((uintptr_t)p + (uintptr_t)page - 1) & ~(uintptr_t)(page - 1);
	uintptr_t b = ((uintptr_t)p + n) & ~(uintptr_t)(page - 1);
	if (b <= a)
		return 0;
	size_t pages = (b - a) / (size_t)page;
	unsigned char *v = mmap(NULL, pages, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				-1, 0);
	if (v == MAP_FAILED || mincore((void *)a, b - a, v) < 0)
		die("mincore");
	uint64_t k = 0;
	for (size_t i = 0; i < pages; i++)
		k += v[i] & 1;
	munmap(v, pages);
	return k * (uint64_t)page;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (!p)
		die("out of memory");
	put((struct mtrace_record){ .call = MTRACE_CALL_MALLOC, .ts = now(), .size = n,
				    .result = (uintptr_t)p,
				    .usable = malloc_usable_size(p) });
	maybe_sample();
	return p;
}

static void xfree(void *p, size_t n)
{
	struct mtrace_record r = { .call = MTRACE_CALL_FREE, .ts = now(), .ptr = (uintptr_t)p };
	if (n >= RESIDENT_MIN && recording) {
		r.flags = MTRACE_RF_RESIDENT;
		r.arg2 = resident(p, n);
	}
	put(r);
	free(p);
	maybe_sample();
}

static void *xmmap(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	put((struct mtrace_record){ .call = MTRACE_CALL_MMAP, .ts = now(), .size = n,
				    .arg2 = (PROT_READ | PROT_WRITE) |
					    (uint64_t)(MAP_PRIVATE | MAP_ANONYMOUS) << 32,
				    .result = (uintptr_t)p });
	maybe_sample();
	return p;
}

static void xmunmap(void *p, size_t n)
{
	if (recording)
		put((struct mtrace_record){ .call = MTRACE_CALL_MUNMAP, .flags = MTRACE_RF_RESIDENT,
					    .ts = now(), .ptr = (uintptr_t)p, .size = n,
					    .arg2 = resident(p, n) });
	munmap(p, n);
	maybe_sample();
}

/* Idle for ms, sampling as the tracer's populating thread would; traced by the tracer instead,
   a call every 5 ms (the tracer samples where a call finds the last sample 10 ms old: without
   one, the memory written since the last call would go unseen) */
static void idle(unsigned ms)
{
	uint64_t end = now() + (uint64_t)ms * 1000000u;
	while (now() < end) {
		struct timespec ts = { 0, 5000000 };
		nanosleep(&ts, NULL);
		if (recording)
			maybe_sample();
		else
			free(malloc(16));
	}
}

static uint32_t seed = 12345;
static uint32_t rnd(void)
{
	seed = seed * 1103515245u + 12345u;
	return seed >> 8;
}

static void phases(void)
{
	enum { SMALL = 50000, LARGE = 100 };
	static void *small[SMALL];
	static size_t small_n[SMALL];
	for (int i = 0; i < SMALL; i++) {
		small_n[i] = 32 + rnd() % 993;
		small[i] = xmalloc(small_n[i]);
		memset(small[i], i, small_n[i]);
	}
	sample();
	for (int i = 0; i < SMALL; i++)
		if (i % 10) {
			xfree(small[i], small_n[i]);
			small[i] = NULL;
		}
	sample();
	idle(150);
	void *large[LARGE];
	size_t large_n[LARGE];
	for (int i = 0; i < LARGE; i++) {
		large_n[i] = (64u << 10) + rnd() % (192u << 10);
		large[i] = xmalloc(large_n[i]);
		memset(large[i], i, large_n[i]);
	}
	sample();
	idle(50);
	for (int i = 0; i < LARGE; i++)
		xfree(large[i], large_n[i]);
	sample();
	for (int i = 0; i < SMALL; i++)
		if (small[i])
			xfree(small[i], small_n[i]);
}

static void quarter(void)
{
	enum { N = 4 };
	size_t n = 64u << 20;
	void *b[N];
	for (int i = 0; i < N; i++) {
		b[i] = xmalloc(n);
		memset(b[i], 1, n / 4);   /* a quarter of it, from its start */
		sample();
	}
	idle(50);
	for (int i = 0; i < N; i++)
		xfree(b[i], n);
	sample();
}

static void mapped(void)
{
	size_t n = 32u << 20;
	char *p = xmmap(n);
	memset(p, 1, n);
	sample();
	idle(50);
	xmunmap(p, n / 2);
	sample();
	xmunmap(p + n / 2, n / 2);
	sample();
}

static void decay(void)
{
	enum { N = 100 };
	void *b[N];
	for (int i = 0; i < N; i++) {
		b[i] = xmalloc(1u << 20);
		memset(b[i], 1, 1u << 20);
	}
	sample();
	for (int i = 0; i < N; i++)
		xfree(b[i], 1u << 20);
	sample();
	idle(1500);
	xfree(xmalloc(64), 64);   /* the next call */
	sample();
}

int main(int argc, char **argv)
{
	if (argc != 3)
		die("usage: selftrace phases|quarter|mapped|decay OUT");
	page = sysconf(_SC_PAGESIZE);
	tid = (uint32_t)syscall(SYS_gettid);
	uint64_t t0 = now();
	if (!strcmp(argv[2], "-"))
		recording = 0;
	else if (trace_writer_open(&w, argv[2], (int32_t)getpid(), "/usr/bin/selftrace") < 0)
		die(w.err.msg);
	struct mtrace_file_header *h = recording ? trace_writer_header(&w) :
				       &(struct mtrace_file_header){ 0 };
	h->flags |= MTRACE_HF_MAPPINGS | MTRACE_HF_RESIDENT | MTRACE_HF_MEMORY |
		    MTRACE_HF_CHUNK_BOUND;
	h->memory_interval_ms = SAMPLE_NS / 1000000;
	h->resident_min = RESIDENT_MIN;
	h->start_ticks = t0;
	Dl_info di;
	if (recording && dladdr((void *)malloc, &di) && di.dli_fname &&
	    trace_writer_allocator(&w, di.dli_fname) < 0)
		die("allocator path");
	char *set[16];
	int nset = 0;
	for (char **e = environ; *e && nset < 16; e++)
		if (mtrace_is_setting(*e))
			set[nset++] = *e;
	if (recording && trace_writer_settings(&w, set, nset) < 0)
		die("settings");
	sample();   /* at start, as the tracer's first */
	if (!strcmp(argv[1], "phases"))
		phases();
	else if (!strcmp(argv[1], "quarter"))
		quarter();
	else if (!strcmp(argv[1], "mapped"))
		mapped();
	else if (!strcmp(argv[1], "decay"))
		decay();
	else
		die("unknown scenario");
	sample();   /* at stop */
	if (recording && trace_writer_finish(&w) < 0)
		die(w.err.msg);
	return 0;
}
