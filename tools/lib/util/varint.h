/* varint.h - the variable-length integers of the workload formats: unsigned LEB128, the operand
 * encoding of mtrace workloads (mtrace-workload.h), with a checked decoder for input not yet
 * validated and an unchecked one for the replay of a validated stream; and dj/malloc's
 * big-endian form (most significant group first), which trace2wl writes and reads. */
#ifndef VARINT_H
#define VARINT_H
#include <stddef.h>
#include <stdint.h>

#define VARINT_MAX 10   /* bytes for a 64-bit value */

/* ---------------------------------------------------------------------------------------------
   LEB128: encoding
   ------------------------------------------------------------------------------------------- */

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

/* ---------------------------------------------------------------------------------------------
   LEB128: decoding
   ------------------------------------------------------------------------------------------- */

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

/* Decode at *p, advancing it, with no bounds: only for a stream varint_get has already accepted
   whole (the replay's loop: its bounds were checked once, before the replay began). */
static inline uint64_t varint_get_fast(const uint8_t **p)
{
	uint8_t b = *(*p)++;
	if (__builtin_expect(b < 0x80, 1))   /* most operands: slots, small sizes, thread numbers */
		return b;
	uint64_t v = b & 0x7f;
	for (unsigned shift = 7;; shift += 7) {
		b = *(*p)++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
}

/* ---------------------------------------------------------------------------------------------
   dj/malloc's big-endian varint
   ------------------------------------------------------------------------------------------- */

/* Encode v at p (VARINT_MAX bytes of room), most significant group first; its length. */
static inline size_t varint_be_put(uint8_t *p, uint64_t v)
{
	uint8_t tmp[VARINT_MAX];
	size_t n = 0;
	do
		tmp[n++] = (uint8_t)(v & 0x7f);
	while ((v >>= 7) != 0);
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(tmp[n - 1 - i] | (i + 1 < n ? 0x80 : 0));
	return n;
}

/* Decode from [*p, end): 0 and *p advanced past it, or -1 if truncated or longer than
   VARINT_MAX bytes (bits shifted out above 64 are dropped, as dj/malloc's reader drops them). */
static inline int varint_be_get(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
	uint64_t x = 0;
	for (int i = 0; i < VARINT_MAX; i++) {
		if (*p == end)
			return -1;
		uint8_t b = *(*p)++;
		x = (x << 7) | (b & 0x7f);
		if (!(b & 0x80)) {
			*out = x;
			return 0;
		}
	}
	return -1;
}
#endif
