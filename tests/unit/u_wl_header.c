/* u_wl_header - unit test of the workload reader's header checks (wl_reader.h): a good
 * workload is opened and its stream read; an empty file, a bad magic, a wrong version, a
 * truncated or padded file, bad counts and sizes, and tables or streams outside the file are
 * refused with "NAME: offset N: what", N the offset of the field at fault. */
#include <stddef.h>
#include <stdint.h>
#include "unit.h"
#include "wl_reader.h"

#define FIELD(f) offsetof(struct mtrace_wl_header, f)
#define TABLE    MTRACE_WL_HEADER_SIZE                 /* the thread table: one thread */
#define STREAM   (TABLE + sizeof(struct mtrace_wl_thread))
#define SAMPLES  (STREAM + sizeof stream)               /* the sample table, when there is one */

/* malloc into slot 1 of 16 bytes, free slot 1, end */
static const uint8_t stream[] = { MTRACE_WL_MALLOC, 1, 16, MTRACE_WL_FREE, 1, MTRACE_WL_END };

static struct mtrace_wl_header h;
static struct mtrace_wl_thread t;
static struct mtrace_wl_sample s[2];
static size_t nsamples;

static void good(void)
{
	memset(&h, 0, sizeof h);
	memcpy(h.magic, MTRACE_WL_MAGIC, MTRACE_WL_MAGIC_LEN);
	h.version = MTRACE_WL_VERSION;
	h.header_size = MTRACE_WL_HEADER_SIZE;
	h.nthreads = 1;
	h.nslots = 2;
	h.ncalls = 2;
	h.thread_table = TABLE;
	h.file_size = SAMPLES;
	h.pid = 4242;
	snprintf(h.program, sizeof h.program, "/bin/app");
	t = (struct mtrace_wl_thread){ .offset = STREAM, .length = sizeof stream, .ncalls = 2,
				       .tid = 7 };
	nsamples = 0;
}

/* the workload of h, t, the stream and nsamples samples, cut or padded to n bytes (0: as it
   is); its path */
static const char *wl_file(const char *name, size_t n)
{
	static uint8_t b[SAMPLES + sizeof s + 64];
	size_t len = SAMPLES + nsamples * sizeof *s;
	memset(b, 0, sizeof b);
	struct mtrace_wl_header le = h;
	struct mtrace_wl_thread tle = t;
	mtrace_wl_header_le(&le);   /* (its own inverse: the file is little-endian) */
	mtrace_wl_thread_le(&tle);
	memcpy(b, &le, sizeof le);
	memcpy(b + TABLE, &tle, sizeof tle);
	memcpy(b + STREAM, stream, sizeof stream);
	for (size_t i = 0; i < nsamples; i++) {
		struct mtrace_wl_sample x = s[i];
		mtrace_wl_sample_le(&x);
		memcpy(b + SAMPLES + i * sizeof x, &x, sizeof x);
	}
	return unit_file(name, b, n ? n : len);
}

static char err[700];
static int open_err(const char *path)
{
	struct wl_reader r;
	int rc = wl_open(&r, path);
	snprintf(err, sizeof err, "%.600s", rc ? r.err.msg : "");
	wl_close(&r);
	return rc;
}

/* err says "PATH: offset OFF: " and then what */
#define says(path, off, what) unit_error_is(err, path, off, what)

int main(void)
{
	good();
	const char *path = wl_file("good.wl", 0);
	struct wl_reader r;
	int rc = wl_open(&r, path);
	CHECK(rc == 0, "a good workload: opened (%s)", rc ? r.err.msg : "");
	if (rc == 0) {
		CHECK(r.h.nthreads == 1 && r.h.nslots == 2 && r.h.pid == 4242 &&
		      strcmp(r.h.program, "/bin/app") == 0 && r.threads[0].tid == 7,
		      "... its header and thread table read");
		struct wl_cursor c;
		struct wl_op op, op2;
		wl_cursor_init(&r, 0, &c);
		int k1 = wl_next(&r, &c, &op), k2 = wl_next(&r, &c, &op2);
		CHECK(k1 == 1 && op.op == MTRACE_WL_MALLOC && op.a[0] == 1 && op.a[1] == 16 &&
		      op.offset == STREAM && k2 == 1 && op2.op == MTRACE_WL_FREE &&
		      wl_next(&r, &c, &op) == 0, "... its stream: malloc, free, end");
	}
	wl_close(&r);

	path = unit_file("empty.wl", "", 0);
	CHECK(open_err(path) == -1 && says(path, 0, "empty file, not a workload"),
	      "refused: an empty file (%s)", err);
	path = wl_file("short.wl", 100);
	CHECK(open_err(path) == -1 && says(path, 100, "truncated header (100 bytes"),
	      "refused: 100 bytes, less than a header (%s)", err);
	path = wl_file("cut.wl", SAMPLES - 1);
	CHECK(open_err(path) == -1 && says(path, SAMPLES - 1, "truncated or padded"),
	      "refused: a file a byte shorter than its header says (%s)", err);
	path = wl_file("padded.wl", SAMPLES + 8);
	CHECK(open_err(path) == -1 && says(path, SAMPLES + 8, "truncated or padded"),
	      "refused: a file longer than its header says (%s)", err);

	static const struct {
		const char *what;
		size_t at;
		const char *says;
	} bad[] = {
		{ "a bad magic", 0, "not an mtrace workload (bad magic)" },
		{ "version 0", FIELD(version), "unsupported workload version 0" },
		{ "a version past the newest", FIELD(version), "unsupported workload version" },
		{ "version 1 with maps", FIELD(nmaps), "a version-1 workload with version-2" },
		{ "a header size below the header", FIELD(header_size), "bad header size 64" },
		{ "a header size past the file", FIELD(header_size), "bad header size" },
		{ "no slots", FIELD(nslots), "bad slot count 0" },
		{ "2^40 + 1 slots", FIELD(nslots), "bad slot count 1099511627777" },
		{ "a thread table past the end", FIELD(nthreads), "thread table (1 threads at" },
		{ "a thread table inside the header", FIELD(nthreads), "lies outside the file" },
		{ "2^32 - 1 threads", FIELD(nthreads), "thread table (4294967295 threads" },
		{ "a stream past the end", TABLE, "stream of thread 0 lies outside the file" },
		{ "a stream of length 0", TABLE, "stream of thread 0 lies outside the file" },
		{ "a stream over the table", TABLE, "stream of thread 0 overlaps the thread" },
		{ "a stream in the header", TABLE, "stream of thread 0 lies outside the file" },
		{ "2^40 + 1 maps", FIELD(nmaps), "bad map count" },
		{ "samples without the flag", FIELD(nsamples), "1 samples, and no sample flag" },
		{ "a sample table past the end", FIELD(samples), "sample table (2 samples at" },
		{ "a sample table on the threads'", FIELD(samples), "overlaps the thread table" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		good();
		switch (i) {
		case 0: h.magic[0] = 'X'; break;
		case 1: h.version = 0; break;
		case 2: h.version = MTRACE_WL_VERSION + 1; break;
		case 3: h.version = 1, h.nmaps = 1; break;
		case 4: h.header_size = 64; break;
		case 5: h.header_size = SAMPLES + 1; break;
		case 6: h.nslots = 0; break;
		case 7: h.nslots = (1ull << 40) + 1; break;
		case 8: h.thread_table = SAMPLES - 8; break;
		case 9: h.thread_table = 512; break;
		case 10: h.nthreads = UINT32_MAX; break;
		case 11: t.offset = SAMPLES - 2; break;
		case 12: t.length = 0; break;
		case 13: t.offset = TABLE + 8; break;
		case 14: t.offset = 100; break;
		case 15: h.nmaps = (1ull << 40) + 1; break;
		case 16: h.nsamples = 1; break;
		case 17: h.flags = MTRACE_WL_HF_SAMPLES, h.nsamples = 2, h.samples = SAMPLES; break;
		case 18:   /* a sample in the file, its table where the thread table is */
			h.flags = MTRACE_WL_HF_SAMPLES;
			h.nsamples = nsamples = 1;
			h.samples = TABLE;
			h.file_size = SAMPLES + sizeof *s;
			break;
		}
		path = wl_file("bad.wl", 0);
		rc = open_err(path);
		CHECK(rc == -1 && says(path, bad[i].at, bad[i].says),
		      "refused: %s, at offset %zu (%d: %s)", bad[i].what, bad[i].at, rc, err);
	}

	/* samples: in the file, in order of calls and time */
	good();
	h.flags = MTRACE_WL_HF_SAMPLES;
	h.nsamples = nsamples = 2;
	h.samples = SAMPLES;
	h.file_size = SAMPLES + 2 * sizeof *s;
	s[0] = (struct mtrace_wl_sample){ .calls = 1, .time_us = 10 };
	s[1] = (struct mtrace_wl_sample){ .calls = 2, .time_us = 20 };
	path = wl_file("samples.wl", 0);
	CHECK(open_err(path) == 0, "two samples in order: opened (%s)", err);
	s[1].time_us = 5;
	path = wl_file("back.wl", 0);
	CHECK(open_err(path) == -1 && says(path, SAMPLES + sizeof *s, "sample 1 goes back"),
	      "refused: a sample back in time, at its offset (%s)", err);
	s[1].time_us = 20;
	s[1].calls = 3;   /* past the workload's 2 calls */
	path = wl_file("past.wl", 0);
	CHECK(open_err(path) == -1 && says(path, SAMPLES + sizeof *s, "past the last call"),
	      "refused: a sample past the last call (%s)", err);

	/* not a file */
	CHECK(open_err(unit_tmpdir()) == -1 && strstr(err, "not a regular file"),
	      "refused: a directory (%s)", err);
	char missing[300];
	snprintf(missing, sizeof missing, "%s/no-such.wl", unit_tmpdir());
	CHECK(open_err(missing) == -1 && strstr(err, "No such file"),
	      "refused: a missing file (%s)", err);
	return unit_done();
}
