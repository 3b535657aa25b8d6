/* lat_hist_check - test helper: trace_run's latency histogram (lat_hist.h).  Every value falls
 * in one bucket whose upper end is at most 1/16 above it (exact below 16), buckets follow the
 * values' order, and the percentiles of known distributions come out where they must.  Prints
 * each failure; exit 0 when there is none. */
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "lat_hist.h"

static int fails, checks;

#define CHECK(cond, ...) do { checks++; if (!(cond)) { fails++; printf("FAIL: " __VA_ARGS__); putchar('\n'); } } while (0)

static void one_value(uint64_t v)
{
	unsigned b = hist_bucket(v);
	CHECK(b < HIST_BUCKETS, "%llu: bucket %u out of range", (unsigned long long)v, b);
	if (b >= HIST_BUCKETS)
		return;
	uint64_t up = hist_upper(b);
	CHECK(up >= v, "%llu: bucket %u ends below it, at %llu", (unsigned long long)v, b, (unsigned long long)up);
	CHECK(b == 0 || hist_upper(b - 1) < v, "%llu: the bucket before %u ends at %llu, not below it",
	      (unsigned long long)v, b, (unsigned long long)hist_upper(b - 1));
	CHECK(v < 16 ? up == v : up - v <= v / 16, "%llu: bucket %u ends at %llu, more than 1/16 above",
	      (unsigned long long)v, b, (unsigned long long)up);
}

/* percentiles of the values vals[0..n) (n <= 4096) */
static void points(const uint64_t *vals, size_t n, uint64_t *out)
{
	static uint64_t b[HIST_BUCKETS];
	memset(b, 0, sizeof b);
	memset(out, 0, LAT_POINTS * sizeof *out);
	uint64_t max = 0;
	for (size_t i = 0; i < n; i++) {
		b[hist_bucket(vals[i])]++;
		if (vals[i] > max)
			max = vals[i];
	}
	lat_percentiles(b, max, out);
}

/* the exact q-quantile of 1..n is ceil(q n): the reported point is its bucket's end */
static void near(const char *what, uint64_t got, uint64_t exact)
{
	CHECK(got >= exact && got - exact <= exact / 16, "%s: %llu, the exact value is %llu", what,
	      (unsigned long long)got, (unsigned long long)exact);
}

int main(void)
{
	for (uint64_t v = 0; v < 200000; v++)
		one_value(v);
	for (int e = 1; e < 64; e++) {
		uint64_t p = (uint64_t)1 << e;
		one_value(p - 1), one_value(p), one_value(p + 1);
	}
	one_value(UINT64_MAX);
	uint64_t x = 88172645463325252ull;   /* xorshift: values of every magnitude */
	for (int i = 0; i < 1000000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		one_value(x >> (x & 63));
	}

	static uint64_t vals[4096];
	uint64_t out[LAT_POINTS];
	for (size_t i = 0; i < 1000; i++)
		vals[i] = i + 1;   /* 1 .. 1000 */
	points(vals, 1000, out);
	near("1..1000: p50", out[LAT_P50], 500);
	near("1..1000: p90", out[LAT_P90], 900);
	near("1..1000: p99", out[LAT_P99], 990);
	near("1..1000: p99.9", out[LAT_P999], 999);
	CHECK(out[LAT_MAX] == 1000, "1..1000: max %llu", (unsigned long long)out[LAT_MAX]);
	for (size_t i = 0; i < 4000; i++)
		vals[i] = i < 3995 ? 20 : 1000000;   /* a tail of 5 calls in 4,000: only p99.9 sees it */
	points(vals, 4000, out);
	near("a short tail: p50", out[LAT_P50], 20);
	near("a short tail: p90", out[LAT_P90], 20);
	near("a short tail: p99", out[LAT_P99], 20);
	CHECK(out[LAT_P999] == 1000000 && out[LAT_MAX] == 1000000, "a short tail: p99.9 %llu max %llu, both 1000000 (capped by the max)",
	      (unsigned long long)out[LAT_P999], (unsigned long long)out[LAT_MAX]);
	vals[0] = 77;
	points(vals, 1, out);
	CHECK(out[LAT_P50] == 77 && out[LAT_P999] == 77 && out[LAT_MAX] == 77, "one call of 77: %llu .. %llu",
	      (unsigned long long)out[LAT_P50], (unsigned long long)out[LAT_MAX]);
	points(vals, 0, out);
	CHECK(out[LAT_P50] == 0 && out[LAT_MAX] == 0, "no calls: all 0");
	printf("%d checks, %d failed\n", checks, fails);
	return fails != 0;
}
