/* u_lat_hist - unit test of lat_hist.h: the latency histogram.  Every value falls in one bucket
 * whose upper end is at most 1/16 above it (exact below 16), buckets follow the values' order,
 * the percentiles of known distributions come out where they must, and the TSV that trace_run
 * and trace_stats write reads back as written, while malformed tables are refused by line. */
#include <stdint.h>
#include "unit.h"
#include "lat_hist.h"

/* ---------------------------------------------------------------------------------------------
   Buckets
   ------------------------------------------------------------------------------------------- */

static unsigned long long bad_range, bad_upper, bad_order, bad_width, values;
static uint64_t first_bad = UINT64_MAX;

static void one_value(uint64_t v)
{
	values++;
	unsigned b = hist_bucket(v);
	int wrong = 0;
	if (b >= HIST_BUCKETS) {
		bad_range++;
		wrong = 1;
	} else {
		uint64_t up = hist_upper(b);
		wrong |= up < v, bad_upper += up < v;   /* its bucket ends at or above it */
		int o = b > 0 && hist_upper(b - 1) >= v;  /* the one before ends below it */
		wrong |= o, bad_order += o;
		int w = v < 16 ? up != v : up - v > v / 16;
		wrong |= w, bad_width += w;
	}
	if (wrong && first_bad == UINT64_MAX)
		first_bad = v;
}

/* ---------------------------------------------------------------------------------------------
   Percentiles
   ------------------------------------------------------------------------------------------- */

static uint64_t hist[LAT_CLASSES][HIST_BUCKETS];

/* percentiles of vals[0..n) */
static void points(const uint64_t *vals, size_t n, uint64_t *out)
{
	memset(hist[0], 0, sizeof hist[0]);
	memset(out, 0, LAT_POINTS * sizeof *out);
	uint64_t max = 0;
	for (size_t i = 0; i < n; i++) {
		hist[0][hist_bucket(vals[i])]++;
		if (vals[i] > max)
			max = vals[i];
	}
	lat_percentiles(hist[0], max, out);
}

/* the exact q-quantile of 1..n is ceil(q n): the reported point is its bucket's end */
static int near(uint64_t got, uint64_t exact)
{
	return got >= exact && got - exact <= exact / 16;
}

/* ---------------------------------------------------------------------------------------------
   The TSV
   ------------------------------------------------------------------------------------------- */

/* lat_read_tsv of text: its result, the message in err */
static int read_text(const char *text, struct lat_table *t, char *err, size_t cap)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	if (!f)
		return -2;
	struct tool_err e = { 0 };
	int rc = lat_read_tsv(f, t, &e);
	fclose(f);
	snprintf(err, cap, "%.190s", e.msg);
	return rc;
}

static void tsv(void)
{
	static struct lat_table t;
	char err[200];
	/* malloc: 1,000 calls of 1..1000 cycles; free: 3 calls of 5 and one of 2^40; none else */
	memset(hist, 0, sizeof hist);
	uint64_t max[LAT_CLASSES] = { 1000, 0, 0, (uint64_t)1 << 40, 0 };
	for (uint64_t v = 1; v <= 1000; v++)
		hist[LAT_MALLOC][hist_bucket(v)]++;
	hist[LAT_FREE][hist_bucket(5)] += 3;
	hist[LAT_FREE][hist_bucket((uint64_t)1 << 40)]++;
	char path[300];
	snprintf(path, sizeof path, "%s/lat.tsv", unit_tmpdir());
	FILE *f = fopen(path, "w+");
	if (!f) {
		perror(path);
		exit(2);
	}
	CHECK(lat_write_tsv(fileno(f), "trace_run latency: glibc(M_ARENA_MAX=1, x), x86 TSC",
			    LAT_UNIT_NS, (const uint64_t (*)[HIST_BUCKETS])hist, max) == 0,
	      "lat_write_tsv: 0");
	rewind(f);
	struct tool_err e;
	int rc = lat_read_tsv(f, &t, &e);
	fclose(f);
	CHECK(rc == 0, "what it wrote reads back (%s)", rc ? e.msg : "no error");
	CHECK(t.unit && !strcmp(t.unit, LAT_UNIT_NS), "its unit: %s", t.unit ? t.unit : "none");
	CHECK(strcmp(t.name, "glibc(M_ARENA_MAX=1, x)") == 0, "the title's name, up to the last "
	      "\", \": '%s'", t.name);
	CHECK(t.calls[LAT_MALLOC] == 1000 && t.calls[LAT_FREE] == 4 && t.calls[LAT_CALLOC] == 0,
	      "each class's calls: malloc %.0f, free %.0f, calloc %.0f", t.calls[LAT_MALLOC],
	      t.calls[LAT_FREE], t.calls[LAT_CALLOC]);
	size_t nm = t.n[LAT_MALLOC], nf = t.n[LAT_FREE];
	CHECK(nm > 16 && t.time[LAT_MALLOC][nm - 1] == 1000 && t.share[LAT_MALLOC][nm - 1] == 1,
	      "malloc: a row a bucket (%zu), the last at the exact largest, share 1", nm);
	CHECK(nf == 2 && t.time[LAT_FREE][0] == 5 && t.share[LAT_FREE][0] == 0.75 &&
	      t.time[LAT_FREE][1] == (double)((uint64_t)1 << 40),
	      "free: two rows, 5 at 0.75, then 2^40 (%zu rows)", nf);
	int rising = 1;
	for (size_t i = 1; i < nm; i++)
		rising &= t.time[LAT_MALLOC][i] > t.time[LAT_MALLOC][i - 1] &&
			  t.share[LAT_MALLOC][i] > t.share[LAT_MALLOC][i - 1];
	CHECK(rising, "malloc's rows rise in cycles and share");

	static const char head[] = "# x\nclass\tcycles\tcalls\tat_or_below\n";
	static const struct { const char *body, *why; } bad[] = {
		{ "malloc\t10\t0\t1\n", "a row of no calls" },
		{ "malloc\t10\t1\t1.5\n", "a share above 1" },
		{ "malloc\t10\t1\t0.5\nmalloc\t9\t1\t1\n", "cycles going down" },
		{ "malloc\t10\t1\t0.5\nmalloc\t11\t1\t0.4\n", "a share going down" },
		{ "mallocx\t10\t1\t1\n", "an unknown class" },
		{ "malloc\tnan\t1\t1\n", "nan" },
		{ "malloc\t-5\t1\t1\n", "a negative number" },
		{ "malloc\t1e400\t1\t1\n", "a number out of range" },
		{ "malloc\t10\t1\n", "three columns" },
		{ "malloc\t10\t1\t1\tx\n", "five columns" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char text[300];
		snprintf(text, sizeof text, "%s%s", head, bad[i].body);
		rc = read_text(text, &t, err, sizeof err);
		int line = 3 + (strchr(bad[i].body, '\n') + 1 != bad[i].body + strlen(bad[i].body));
		char want[20];
		snprintf(want, sizeof want, "line %d: ", line);
		CHECK(rc == -1 && strncmp(err, want, strlen(want)) == 0,
		      "refused: %s (%s)", bad[i].why, err);
	}
	rc = read_text("malloc\t10\t1\t1\n", &t, err, sizeof err);
	CHECK(rc == -1 && strstr(err, "line 1: not a --latency distribution"), "refused: no column "
	      "header (%s)", err);
	rc = read_text("# x\nclass\tcycles\tcalls\tat_or_below\nfree\t7\t1\t1\n", &t, err,
		       sizeof err);
	CHECK(rc == 0 && !strcmp(t.unit, LAT_UNIT_CYCLES), "cycles, as older files count: read");
	rc = read_text("# x\nclass\tfortnights\tcalls\tat_or_below\nfree\t7\t1\t1\n", &t, err,
		       sizeof err);
	CHECK(rc == -1 && strstr(err, "line 2: not a --latency distribution"),
	      "refused: a unit of no timer's (%s)", err);
	rc = read_text("# only a title\n", &t, err, sizeof err);
	CHECK(rc == -1 && strstr(err, "not a --latency distribution"),
	      "refused: a title alone (%s)", err);
	static char longline[1100];
	memset(longline, '#', sizeof longline - 2);
	longline[sizeof longline - 2] = '\n';
	rc = read_text(longline, &t, err, sizeof err);
	CHECK(rc == -1 && strstr(err, "line 1: longer than"),
	      "refused: a line over 1,000 bytes (%s)", err);
	rc = read_text(head, &t, err, sizeof err);
	CHECK(rc == 0 && t.calls[LAT_MALLOC] == 0, "the header alone: an empty table");
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
	CHECK(bad_range == 0, "%llu values: each in a bucket below %d (%llu not)", values,
	      HIST_BUCKETS, bad_range);
	CHECK(bad_upper == 0, "... its bucket's upper end at or above it (%llu not)", bad_upper);
	if (first_bad != UINT64_MAX)
		printf("# the first value whose bucket is wrong: %llu\n",
		       (unsigned long long)first_bad);
	CHECK(bad_order == 0, "... the bucket before ending below it (%llu not)", bad_order);
	CHECK(bad_width == 0, "... at most 1/16 above it, exact below 16 (%llu not)", bad_width);
	CHECK(hist_upper(HIST_BUCKETS - 1) == UINT64_MAX, "the last bucket ends at 2^64 - 1");

	static uint64_t vals[4096];
	uint64_t out[LAT_POINTS];
	for (size_t i = 0; i < 1000; i++)
		vals[i] = i + 1;   /* 1 .. 1000 */
	points(vals, 1000, out);
	CHECK(near(out[LAT_P50], 500) && near(out[LAT_P90], 900) && near(out[LAT_P99], 990) &&
	      near(out[LAT_P999], 999),
	      "1..1000: p50 %llu, p90 %llu, p99 %llu, p99.9 %llu: each at most 1/16 above 500, "
	      "900, 990, 999", (unsigned long long)out[LAT_P50], (unsigned long long)out[LAT_P90],
	      (unsigned long long)out[LAT_P99], (unsigned long long)out[LAT_P999]);
	CHECK(out[LAT_MAX] == 1000, "1..1000: max %llu", (unsigned long long)out[LAT_MAX]);
	for (size_t i = 0; i < 4000; i++)
		vals[i] = i < 3995 ? 20 : 1000000;   /* a tail of 5 in 4,000: only p99.9 sees it */
	points(vals, 4000, out);
	CHECK(near(out[LAT_P50], 20) && near(out[LAT_P90], 20) && near(out[LAT_P99], 20),
	      "a short tail: p50, p90, p99 at 20 (%llu %llu %llu)",
	      (unsigned long long)out[LAT_P50], (unsigned long long)out[LAT_P90],
	      (unsigned long long)out[LAT_P99]);
	CHECK(out[LAT_P999] == 1000000 && out[LAT_MAX] == 1000000,
	      "a short tail: p99.9 %llu max %llu, both 1000000 (capped by the max)",
	      (unsigned long long)out[LAT_P999], (unsigned long long)out[LAT_MAX]);
	vals[0] = 77;
	points(vals, 1, out);
	CHECK(out[LAT_P50] == 77 && out[LAT_P999] == 77 && out[LAT_MAX] == 77,
	      "one call of 77: %llu .. %llu", (unsigned long long)out[LAT_P50],
	      (unsigned long long)out[LAT_MAX]);
	points(vals, 0, out);
	CHECK(out[LAT_P50] == 0 && out[LAT_MAX] == 0, "no calls: all 0");

	tsv();
	return unit_done();
}
