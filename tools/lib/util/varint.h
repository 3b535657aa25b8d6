/* varint.h - unsigned LEB128, the operand encoding of mtrace workloads (mtrace-workload.h). */
#ifndef VARINT_H
#define VARINT_H
#include <stddef.h>
#include <stdint.h>

#define VARINT_MAX 10   /* bytes for a 64-bit value */

/* Encode v at p, returning its length; p must have VARINT_MAX bytes of room (values below 2^14,
   most slots and sizes, are written as two bytes whatever their length, with no branch on it:
   the length of consecutive values is not predictable). */
static inline size_t varint_put(uint8_t *p, uint64_t v)
{
	if (v < (1u << 14)) {
		size_t two = v >= 0x80;
		p[0] = (uint8_t)(v | (two << 7));
		p[1] = (uint8_t)(v >> 7);
		return 1 + two;
	}
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* Encode v (below 2^(7 n)) in exactly n bytes: the groups above its own are zeros with the
   continuation bit set, which every decoder reads as the same value. */
static inline void varint_put_fixed(uint8_t *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++, v >>= 7)
		p[i] = (uint8_t)((v & 0x7f) | (i + 1 < n ? 0x80 : 0));
}

/* Decode from [*p, end): 0 and *p advanced, or -1 if truncated or longer than 64 bits. */
static inline int varint_get(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
	if (__builtin_expect(*p < end && **p < 0x80, 1)) {   /* one byte: most operands */
		*out = *(*p)++;
		return 0;
	}
	uint64_t v = 0;
	const uint8_t *q = *p;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (q == end)
			return -1;
		uint8_t b = *q++;
		if (shift == 63 && b > 1)
			return -1;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*p = q;
			*out = v;
			return 0;
		}
	}
	return -1;
}
#endif
