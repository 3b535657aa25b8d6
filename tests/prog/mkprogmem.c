/* mkprogmem - test helper: version-2 traces by hand, through the shared writer, with the
 * program's own mappings, resident bytes and memory samples (expectations in t_progmem.sh).
 *
 *   mkprogmem v2 OUT          one thread: mappings cut in the middle, remapped, the break moved,
 *                             the allocator's own mapping, failed mmap, resident bytes, samples
 *   mkprogmem untouched OUT N a block of N bytes the program never wrote (0 resident at its
 *                             free), its samples never above 2 MB
 *   mkprogmem bad-KIND OUT    one record the reader must refuse (offset 4160, the first after
 *                             the chunk record): v1-mmap (a mapping call in a version-1 trace),
 *                             noflag-sample (a sample without the memory flag), sample-anon (more
 *                             anonymous than resident bytes), own-malloc (the allocator's-own flag
 *                             on a malloc), resident-malloc (resident bytes on a malloc),
 *                             munmap-result, munmap-resident (more resident than unmapped)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trace_writer.h"

static void die(const char *m) { fprintf(stderr, "mkprogmem: %s\n", m); exit(1); }

#define V2_FLAGS (MTRACE_HF_MAPPINGS | MTRACE_HF_RESIDENT | MTRACE_HF_MEMORY)
#define MiB (1024ull * 1024)

/* ticks are nanoseconds from 0; tid 100 */
#define R(...) ((struct mtrace_record){ .tid = 100, __VA_ARGS__ })

static void v2(struct trace_writer *w)
{
	const struct mtrace_record r[] = {
		R(.call = MTRACE_CALL_MEMORY, .ts = 10, .size = 1000000, .arg2 = 3000000,
		  .usable = 10000000),
		R(.call = MTRACE_CALL_MALLOC, .ts = 20, .size = 100, .result = 0x1000,
		  .usable = 104),
		R(.call = MTRACE_CALL_MMAP, .ts = 30, .size = 2 * MiB, .arg2 = 3 | 0x22ull << 32,
		  .result = 0x7f0000000000),
		R(.call = MTRACE_CALL_MALLOC, .ts = 40, .size = MiB, .result = 0x20000000,
		  .usable = MiB),
		R(.call = MTRACE_CALL_MEMORY, .ts = 50, .size = 4200000, .arg2 = 6300000,
		  .usable = 14000000),
		/* the mapping's second half, half of it resident */
		R(.call = MTRACE_CALL_MUNMAP, .flags = MTRACE_RF_RESIDENT, .ts = 60,
		  .ptr = 0x7f0000100000, .size = MiB, .arg2 = MiB / 2),
		R(.call = MTRACE_CALL_MMAP, .flags = MTRACE_RF_OWN, .ts = 70, .size = 4 * MiB,
		  .arg2 = 3 | 0x22ull << 32, .result = 0x7e0000000000),
		/* what is left of it (1 MiB) grows to 3 MiB and moves */
		R(.call = MTRACE_CALL_MREMAP, .ts = 80, .ptr = 0x7f0000000000, .arg2 = MiB,
		  .size = 3 * MiB, .result = 0x7d0000000000, .duration = 5),
		R(.call = MTRACE_CALL_FREE, .flags = MTRACE_RF_RESIDENT, .ts = 90,
		  .ptr = 0x20000000, .arg2 = 262144),
		R(.call = MTRACE_CALL_BRK, .ts = 100, .ptr = 0x5000000, .result = 0x5100000),
		R(.call = MTRACE_CALL_MUNMAP, .flags = MTRACE_RF_RESIDENT, .ts = 110,
		  .ptr = 0x7d0000000000, .size = 3 * MiB, .arg2 = MiB),
		R(.call = MTRACE_CALL_BRK, .ts = 120, .ptr = 0x5100000, .result = 0x5080000),
		R(.call = MTRACE_CALL_MEMORY, .ts = 130, .size = 2000000, .arg2 = 4000000,
		  .usable = 12000000),
		R(.call = MTRACE_CALL_REALLOC, .ts = 140, .ptr = 0x1000, .size = 200000,
		  .result = 0x30000000, .usable = 200704, .duration = 3),
		R(.call = MTRACE_CALL_REALLOC, .flags = MTRACE_RF_RESIDENT, .ts = 150,
		  .ptr = 0x30000000, .size = 100, .arg2 = 135168, .result = 0x1000, .usable = 104,
		  .duration = 3),
		R(.call = MTRACE_CALL_MMAP, .flags = MTRACE_RF_FAILED, .err = ENOMEM, .ts = 160,
		  .size = 1ull << 50, .arg2 = 3 | 0x22ull << 32),
		R(.call = MTRACE_CALL_MUNMAP, .flags = MTRACE_RF_OWN, .ts = 170,
		  .ptr = 0x7e0000000000, .size = 4 * MiB),
	};
	for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
		if (trace_writer_put(w, &r[i]) < 0)
			die(w->err.msg);
}

static void untouched(struct trace_writer *w, uint64_t n)
{
	const struct mtrace_record r[] = {
		R(.call = MTRACE_CALL_MEMORY, .ts = 10, .size = 1000000, .arg2 = 3000000,
		  .usable = 10000000),
		R(.call = MTRACE_CALL_MALLOC, .ts = 20, .size = n, .result = 0x7f0000000000,
		  .usable = n),
		R(.call = MTRACE_CALL_MEMORY, .ts = 30, .size = 2000000, .arg2 = 4000000,
		  .usable = 10000000 + n),
		R(.call = MTRACE_CALL_FREE, .flags = MTRACE_RF_RESIDENT, .ts = 40,
		  .ptr = 0x7f0000000000, .arg2 = 0),
	};
	for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
		if (trace_writer_put(w, &r[i]) < 0)
			die(w->err.msg);
}

static void bad(struct trace_writer *w, const char *kind)
{
	struct mtrace_file_header *h = trace_writer_header(w);
	struct mtrace_record r =
		R(.call = MTRACE_CALL_MALLOC, .ts = 10, .size = 8, .result = 0x1000, .usable = 24);
	if (!strcmp(kind, "bad-v1-mmap")) {
		h->version = 1;
		h->flags &= ~V2_FLAGS;
		r = R(.call = MTRACE_CALL_MMAP, .ts = 10, .size = 4096, .result = 0x7f0000000000);
	} else if (!strcmp(kind, "bad-noflag-sample")) {
		h->flags &= ~MTRACE_HF_MEMORY;
		r = R(.call = MTRACE_CALL_MEMORY, .ts = 10, .size = 10, .arg2 = 20, .usable = 30);
	} else if (!strcmp(kind, "bad-sample-anon"))
		r = R(.call = MTRACE_CALL_MEMORY, .ts = 10, .size = 30, .arg2 = 20, .usable = 30);
	else if (!strcmp(kind, "bad-own-malloc"))
		r.flags = MTRACE_RF_OWN;
	else if (!strcmp(kind, "bad-resident-malloc"))
		r.flags = MTRACE_RF_RESIDENT;
	else if (!strcmp(kind, "bad-munmap-result"))
		r = R(.call = MTRACE_CALL_MUNMAP, .ts = 10, .ptr = 0x7f0000000000, .size = 4096,
		      .result = 1);
	else if (!strcmp(kind, "bad-munmap-resident"))
		r = R(.call = MTRACE_CALL_MUNMAP, .flags = MTRACE_RF_RESIDENT, .ts = 10,
		      .ptr = 0x7f0000000000, .size = 4096, .arg2 = 1 << 20);
	else
		die("unknown fixture");
	if (trace_writer_put(w, &r) < 0)
		die(w->err.msg);
}

int main(int argc, char **argv)
{
	if (argc != 3 && !(argc == 4 && !strcmp(argv[1], "untouched")))
		die("usage: mkprogmem KIND OUT [N]");
	struct trace_writer w;
	if (trace_writer_open(&w, argv[2], 4245, "/usr/bin/progmem") < 0)
		die(w.err.msg);
	struct mtrace_file_header *h = trace_writer_header(&w);
	h->flags |= V2_FLAGS | MTRACE_HF_CHUNK_BOUND;
	h->memory_interval_ms = 10;
	h->resident_min = 65536;
	h->start_ticks = 0;
	h->stop_ticks = 200;
	if (trace_writer_allocator(&w, "/lib/x86_64-linux-gnu/libc.so.6") < 0)
		die("allocator");
	if (!strcmp(argv[1], "v2"))
		v2(&w);
	else if (!strcmp(argv[1], "untouched"))
		untouched(&w, strtoull(argv[3], NULL, 10));
	else
		bad(&w, argv[1]);
	if (trace_writer_finish(&w) < 0)
		die(w.err.msg);
	return 0;
}
