/* stream_pack.c - the "slots" codec of compressed DATA frames (stream_pack.h). */
#include <stdint.h>
#include <string.h>
#include "mtrace-stream.h"
#include "stream_pack.h"

#define UNIT 32u

size_t mts_pack(const unsigned char *raw, size_t n, unsigned char *out, size_t cap)
{
	static const unsigned char zero[UNIT];
	const unsigned char *prev = zero;
	size_t o = 0, end = n / UNIT * UNIT;
	if (cap > n)
		cap = n;   /* (no smaller: not worth a compressed frame) */
	for (size_t i = 0; i < end; prev = raw + i, i += UNIT) {
		if (o + 4 + UNIT > cap)
			return 0;
		uint32_t mask = 0;
		unsigned char *m = out + o;
		o += 4;
		for (unsigned j = 0; j < UNIT; j++) {
			unsigned char x = raw[i + j] ^ prev[j];
			out[o] = x;
			o += x != 0;
			mask |= (uint32_t)(x != 0) << j;
		}
		mts_put32(m, mask);
	}
	if (o + (n - end) >= cap)
		return 0;
	memcpy(out + o, raw + end, n - end);
	return o + (n - end);
}

int mts_unpack(const unsigned char *in, size_t n, unsigned char *out, size_t raw_len)
{
	static const unsigned char zero[UNIT];
	const unsigned char *prev = zero;
	size_t i = 0, end = raw_len / UNIT * UNIT;
	for (size_t o = 0; o < end; prev = out + o, o += UNIT) {
		if (n - i < 4)
			return -1;
		uint32_t mask = mts_get32(in + i);
		i += 4;
		if ((size_t)__builtin_popcount(mask) > n - i)
			return -1;
		for (unsigned j = 0; j < UNIT; j++) {
			unsigned char x = 0;
			if (mask >> j & 1)
				x = in[i++];
			out[o + j] = prev[j] ^ x;
		}
	}
	if (n - i != raw_len - end)
		return -1;
	memcpy(out + end, in + i, raw_len - end);
	return 0;
}
