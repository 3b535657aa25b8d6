/* u_varint - unit test of varint.h: unsigned LEB128 as workloads store it.  Values round-trip
 * at every length; the encodings are the standard ones; the fixed-length form decodes to the
 * same value; truncated input, and input longer than 64 bits, are refused without moving the
 * cursor. */
#include <stdint.h>
#include "unit.h"
#include "varint.h"

/* v encoded, then decoded: the same value, the whole encoding consumed */
static int round_trip(uint64_t v, size_t *len)
{
	uint8_t b[VARINT_MAX + 4];
	memset(b, 0xee, sizeof b);
	*len = varint_put(b, v);
	const uint8_t *p = b;
	uint64_t got = ~v;
	return *len >= 1 && *len <= VARINT_MAX && varint_get(&p, b + *len, &got) == 0 && got == v &&
	       p == b + *len;
}

/* the length LEB128 gives v: a byte per 7 bits */
static size_t leb_len(uint64_t v)
{
	size_t n = 1;
	while (v >>= 7)
		n++;
	return n;
}

int main(void)
{
	/* --- encodings of known values */
	static const struct { uint64_t v; size_t n; uint8_t b[VARINT_MAX]; } known[] = {
		{ 0, 1, { 0x00 } },
		{ 1, 1, { 0x01 } },
		{ 127, 1, { 0x7f } },
		{ 128, 2, { 0x80, 0x01 } },
		{ 300, 2, { 0xac, 0x02 } },
		{ 16383, 2, { 0xff, 0x7f } },
		{ 16384, 3, { 0x80, 0x80, 0x01 } },
		{ UINT64_MAX, 10, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 } },
	};
	for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
		uint8_t b[VARINT_MAX];
		size_t n = varint_put(b, known[i].v);
		CHECK(n == known[i].n && memcmp(b, known[i].b, n) == 0,
		      "varint_put(%llu): %zu bytes, LEB128's", (unsigned long long)known[i].v,
		      known[i].n);
	}

	/* --- every length, and the values either side of each length's limit */
	int bad = 0, badlen = 0;
	for (unsigned bits = 0; bits <= 64; bits++) {
		uint64_t edge = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
		uint64_t vals[] = { edge, edge + 1, edge - 1, edge / 3 };
		for (size_t k = 0; k < 4; k++) {
			size_t len;
			bad += !round_trip(vals[k], &len);
			badlen += len != leb_len(vals[k]);
		}
	}
	CHECK(bad == 0, "values at each power of two round-trip (%d did not)", bad);
	CHECK(badlen == 0, "each is as long as LEB128 makes it (%d were not)", badlen);
	uint64_t x = 88172645463325252ull;   /* xorshift: values of every magnitude */
	bad = 0;
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t len;
		bad += !round_trip(x >> (x & 63), &len);
	}
	CHECK(bad == 0, "200,000 random values round-trip (%d did not)", bad);

	/* --- values one after the other, as a stream holds them */
	uint8_t s[64 * VARINT_MAX], *w = s;
	for (uint64_t v = 0; v < 64; v++)
		w += varint_put(w, v * v * v * v * v * v * v * v * v * v * 1234567);
	const uint8_t *p = s;
	bad = 0;
	for (uint64_t v = 0; v < 64; v++) {
		uint64_t got;
		bad += varint_get(&p, w, &got) != 0 ||
		       got != v * v * v * v * v * v * v * v * v * v * 1234567;
	}
	CHECK(bad == 0 && p == w, "a stream of 64 values decodes in order, to its end");
	uint64_t got;
	CHECK(varint_get(&p, w, &got) == -1 && p == w,
	      "past the stream's end: -1, the cursor kept");

	/* --- the fixed-length form: any value below 2^(7 n) in exactly n bytes */
	bad = 0;
	for (size_t n = 1; n <= 9; n++) {
		uint64_t vals[] = { 0, 1, ((uint64_t)1 << (7 * n)) - 1,
				    ((uint64_t)1 << (7 * n)) / 5 };
		for (size_t k = 0; k < 4; k++) {
			uint8_t b[VARINT_MAX + 1];
			memset(b, 0xee, sizeof b);
			varint_put_fixed(b, vals[k], n);
			const uint8_t *q = b;
			bad += varint_get(&q, b + n, &got) != 0 || got != vals[k] || q != b + n ||
			       b[n] != 0xee;
		}
	}
	CHECK(bad == 0,
	      "varint_put_fixed: n bytes exactly, decoded to the value (%d were not)", bad);

	/* --- refused: truncated, longer than 64 bits */
	static const uint8_t trunc[] = { 0x80, 0x80, 0x80 };
	p = trunc;
	CHECK(varint_get(&p, trunc + 3, &got) == -1 && p == trunc, "truncated (continuation bit on "
	      "the last byte): -1, the cursor kept");
	p = trunc;
	CHECK(varint_get(&p, trunc, &got) == -1 && p == trunc, "empty input: -1");
	static const uint8_t wide[] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02
	};
	p = wide;
	CHECK(varint_get(&p, wide + 10, &got) == -1 && p == wide,
	      "a tenth byte above 1 (65 bits): -1");
	static const uint8_t eleven[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
					  0x80, 0x00 };
	p = eleven;
	CHECK(varint_get(&p, eleven + 11, &got) == -1, "eleven bytes: -1");
	static const uint8_t max[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
	p = max;
	CHECK(varint_get(&p, max + 10, &got) == 0 && got == UINT64_MAX && p == max + 10,
	      "ten bytes ending in 1: 2^64 - 1");
	static const uint8_t padded[] = { 0x85, 0x80, 0x80, 0x00 };   /* 5, with groups to spare */
	p = padded;
	CHECK(varint_get(&p, padded + 4, &got) == 0 && got == 5 && p == padded + 4,
	      "zero groups with continuation bits: the same value");
	/* --- the unchecked decoder, on what the checked one accepts */
	p = s;
	bad = 0;
	for (uint64_t v = 0; v < 64; v++)
		bad += varint_get_fast(&p) != v * v * v * v * v * v * v * v * v * v * 1234567;
	CHECK(bad == 0 && p == w, "varint_get_fast: the same stream, the same values, to its end");
	p = padded;
	CHECK(varint_get_fast(&p) == 5 && p == padded + 4, "varint_get_fast: zero groups to spare");

	/* --- dj/malloc's big-endian form */
	static const uint8_t be300[] = { 0x82, 0x2c };   /* 300: 2, then 44 */
	uint8_t b[VARINT_MAX];
	CHECK(varint_be_put(b, 300) == 2 && memcmp(b, be300, 2) == 0,
	      "varint_be_put(300): the high group first");
	bad = 0;
	x = 88172645463325252ull;
	for (int i = 0; i < 100000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t v = x >> (x & 63);
		size_t n = varint_be_put(b, v);
		p = b;
		bad += varint_be_get(&p, b + n, &got) != 0 || got != v || p != b + n;
	}
	CHECK(bad == 0, "big-endian: 100,000 random values round-trip (%d did not)", bad);
	p = be300;
	CHECK(varint_be_get(&p, be300 + 1, &got) == -1, "big-endian: truncated: -1");
	return unit_done();
}
