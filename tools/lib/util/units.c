/* units.c - bytes, times and counts for people to read, and numbers they give (units.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "units.h"

/* v in unit with three significant digits: 4.00, 26.5, 265 */
static char *three_digits(char *buf, size_t cap, double v, const char *unit)
{
	snprintf(buf, cap, "%.*f %s", v < 9.995 ? 2 : v < 99.95 ? 1 : 0, v, unit);
	return buf;
}

char *units_bytes(char *buf, size_t cap, uint64_t bytes)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	if (bytes < 1024) {
		snprintf(buf, cap, "%u B", (unsigned)bytes);
		return buf;
	}
	double v = (double)bytes / 1024;
	int i = 0;
	/* a whole number of the unit prints so: "4 KiB", not "4.00 KiB" */
	uint64_t whole = bytes;
	while (v >= 1023.5 && i < 5)   /* (1023.5 KiB would print as "1024 KiB") */
		v /= 1024, i++;
	if (whole % (1ull << (10 * (i + 1))) == 0) {
		snprintf(buf, cap, "%llu %s", (unsigned long long)(whole >> (10 * (i + 1))),
			 unit[i]);
		return buf;
	}
	return three_digits(buf, cap, v, unit[i]);
}

char *units_ns(char *buf, size_t cap, double ns)
{
	if (ns < 999.5) {
		snprintf(buf, cap, "%.0f ns", ns < 0 ? 0 : ns);
		return buf;
	}
	if (ns < 999.5e3)
		return three_digits(buf, cap, ns / 1e3, "\xc2\xb5s");   /* µs */
	if (ns < 999.5e6)
		return three_digits(buf, cap, ns / 1e6, "ms");
	return three_digits(buf, cap, ns / 1e9, "s");
}

size_t units_width(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;   /* not a continuation byte */
	return n;
}

char *fmt_commas(char *buf, unsigned long long v)
{
	char tmp[32];
	int n = 0, o = 0;
	do   /* digits by hand, not snprintf: trace_run's crash handler calls this */
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	for (int i = 0; i < n / 2; i++) {
		char c = tmp[i];
		tmp[i] = tmp[n - 1 - i];
		tmp[n - 1 - i] = c;
	}
	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = 0;
	return buf;
}

int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}
