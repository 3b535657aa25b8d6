/* mt-size.h - MTRACE_CTL_MAX_SIZE's grammar, one definition for the tracer that obeys it and for
 * mtracectl, which checks its --max-size before the program runs: a number of bytes, with K, M,
 * G or T after it for KiB, MiB, GiB, TiB (a B or iB after that is allowed).  Header-only: the
 * tracer links no tool code. */
#ifndef MT_SIZE_H
#define MT_SIZE_H
#include <stdint.h>

/* the smallest cap a trace can live in: the header (4 KiB) and a thread's first chunk (1 KiB) */
#define MT_MAX_SIZE_MIN (5u << 10)

/* 0 and *out, or -1: not such a size, 0, or more than 2^64 - 1 */
static inline int mt_parse_size(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = s;
	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	unsigned shift = 0;
	switch (*p) {
	case 'k': case 'K': shift = 10; p++; break;
	case 'm': case 'M': shift = 20; p++; break;
	case 'g': case 'G': shift = 30; p++; break;
	case 't': case 'T': shift = 40; p++; break;
	}
	if (shift && p[0] == 'i' && p[1] == 'B')
		p += 2;
	else if (p[0] == 'B')
		p++;
	if (*p || v == 0 || (shift && v > (UINT64_MAX >> shift)))
		return -1;
	*out = v << shift;
	return 0;
}
#endif
