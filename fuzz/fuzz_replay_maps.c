/* Fuzz the replay of the program's own mappings (replay_prog.c), which a hostile workload
 * drives with any map ids, offsets and lengths: the input is a list of MAP, UNMAP and REMAP
 * operations (an opcode byte, then LEB128 operands, as in a stream; RESIDENTs included), run
 * on a table of 4 map ids.  It never crashes, never unmaps what it did not map, and its count
 * of bytes mapped is always the sum of the mappings it holds. */
#include <string.h>
#include "fuzz.h"
#include "replay_prog.h"
#include "varint.h"

#define MAPS 4
#define LEN_MAX (1u << 22)   /* (lengths are cut to this: the fuzzer's memory, not the code) */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct replay_maps r;
	uint64_t harness = 0;
	if (replay_maps_init(&r, MAPS, (uint64_t)sysconf(_SC_PAGESIZE), data[0] & 3, &harness) < 0)
		abort();
	/* a well-formed stream for the replay: each op re-encoded from what the input says */
	uint8_t op[1 + 4 * VARINT_MAX + 1 + VARINT_MAX + 1];
	const uint8_t *p = data + (size > 0), *end = data + size;
	while (p < end) {
		unsigned code = MTRACE_WL_MAP + *p++ % 3;
		uint64_t a[3] = { 0, 0, 0 };
		for (int k = 0; k < 3; k++)
			if (varint_get(&p, end, &a[k]) < 0)
				a[k] = 0, p = end;
		size_t n = 0;
		n += varint_put(op + n, a[0] % MAPS);
		if (code == MTRACE_WL_UNMAP) {
			n += varint_put(op + n, a[1] % (2 * LEN_MAX));
			n += varint_put(op + n, a[2] % (2 * LEN_MAX));
		} else
			n += varint_put(op + n, a[1] % LEN_MAX);
		if (a[2] & 1) {   /* a RESIDENT after it */
			op[n++] = MTRACE_WL_RESIDENT;
			n += varint_put(op + n, a[2] >> 1);
		}
		op[n] = MTRACE_WL_END;
		uint64_t failed = 0;
		const uint8_t *q = replay_map_op(&r, code, op, &failed);
		if (*q == MTRACE_WL_RESIDENT)   /* (one it did not take: after a failed map) */
			q++, varint_get_fast(&q);
		PROPERTY(*q == MTRACE_WL_END, "the op was not read whole");
		int64_t sum = 0;
		for (int i = 0; i < MAPS; i++) {
			if (r.m[i].p) {
				PROPERTY(r.m[i].left > 0 && r.m[i].left <= r.m[i].len,
					 "bytes left out of range");
				sum += (int64_t)r.m[i].len;
			}
		}
		PROPERTY(sum == r.mapped, "mapped %lld, the mappings held %lld",
			 (long long)r.mapped, (long long)sum);
	}
	for (int i = 0; i < MAPS; i++)
		if (r.m[i].p)
			munmap(r.m[i].p, r.m[i].len);
	munmap(r.m, MAPS * sizeof *r.m);
	return 0;
}
