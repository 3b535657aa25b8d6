/* units.h - numbers for people to read, and the numbers they give: bytes in B, KiB, MiB,
 * GiB..., times in ns, µs, ms, s, three significant digits (the text reports; scripts get the
 * exact numbers in --tsv and --json, and charts their own axis labels, svg.h); counts with
 * thousands separators.
 */
#ifndef UNITS_H
#define UNITS_H
#include <stddef.h>
#include <stdint.h>

#define UNITS_CAP 32   /* room for any of them */

/* "868 B", "4 KiB" (a whole number of the unit), "4.01 KiB", "265 KiB", "1.54 MiB" into buf
   (cap bytes); returns buf */
char *units_bytes(char *buf, size_t cap, uint64_t bytes);
/* "39 ns", "3.54 µs", "12.3 ms", "7.31 s" into buf; returns buf */
char *units_ns(char *buf, size_t cap, double ns);
/* Columns s takes on a terminal: its UTF-8 characters (µ is two bytes, one column) */
size_t units_width(const char *s);
/* 12,272,385,738 - into buf (>= 32 bytes), returns buf.  Async-signal-safe. */
char *fmt_commas(char *buf, unsigned long long v);

/* Parse an unsigned decimal; 0 or -1 if it is not one. */
int parse_u64(const char *s, uint64_t *out);

/* a * b / c (c > 0) without overflowing in between (the result saturates at UINT64_MAX) */
static inline uint64_t mul_div_u64(uint64_t a, uint64_t b, uint64_t c)
{
#if defined(__SIZEOF_INT128__)
	unsigned __int128 q = (unsigned __int128)a * b / c;
	return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
#else
	uint64_t p;
	if (!__builtin_mul_overflow(a, b, &p))
		return p / c;
	long double q = (long double)a * (long double)b / (long double)c;   /* (32-bit targets) */
	return q >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)q;
#endif
}
#endif
