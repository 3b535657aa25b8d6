/* u_trace_header - unit test of the trace reader's header checks (trace_reader.h): a good
 * header is accepted, in either byte order; each field out of its range is refused by
 * trace_header_check naming that field's offset; trace_open refuses an empty file, a bad magic,
 * a wrong version, a truncated header and bad sizes with "NAME: offset N: what"; a workload is
 * told apart from a trace. */
#include <stddef.h>
#include <stdint.h>
#include "unit.h"
#include "trace_reader.h"
#include "mtrace-workload.h"

/* A version-3 header of a finished trace, with an executable path among its strings */
static void good_header(struct mtrace_file_header *h)
{
	mtrace_header_init(h);
	h->pointer_size = 8;
	h->clock = MTRACE_CLOCK_MONOTONIC;
	h->ticks_per_sec = 1000000000;
	h->flags = MTRACE_HF_FINISHED | MTRACE_HF_CHUNK_BOUND;
	h->pid = 4242;
	h->exe_offset = MTRACE_HEADER_STRINGS;
	h->exe_len = 8;
}

/* the header page of h (its exe string "/bin/app"), n bytes of it as a file; its path */
static const char *header_file(const char *name, const struct mtrace_file_header *h, size_t n)
{
	static unsigned char page[MTRACE_HEADER_SIZE];
	memset(page, 0, sizeof page);
	memcpy(page, h, sizeof *h);
	memcpy(page + MTRACE_HEADER_STRINGS, "/bin/app", 8);
	return unit_file(name, page, n);
}

/* trace_open of path: its result; r closed, its error kept in err */
static char err[700];
static int open_err(const char *path, int *format)
{
	struct trace_reader r;
	int rc = trace_open(&r, path);
	snprintf(err, sizeof err, "%.600s", rc ? r.err.msg : "");
	if (format)
		*format = r.format;
	trace_close(&r);
	return rc;
}

/* err says "PATH: offset OFF: " and then what */
#define says(path, off, what) unit_error_is(err, path, off, what)

#define FIELD(f) offsetof(struct mtrace_file_header, f)

int main(void)
{
	struct mtrace_file_header h;
	uint64_t at;
	struct tool_err bad_header;

	/* --- trace_header_check, a field at a time */
	good_header(&h);
	CHECK(trace_header_check(&h, &at, &bad_header) == 0, "a good header: accepted");
	static const struct {
		const char *what;
		size_t at;
		const char *says;
	} bad[] = {
		{ "magic", FIELD(magic), "not an mtrace trace (bad magic)" },
		{ "byte-order mark", FIELD(byte_order_mark), "bad byte-order mark" },
		{ "version 0", FIELD(version), "unsupported format version 0" },
		{ "a version past the newest", FIELD(version), "unsupported format version" },
		{ "header size below the header", FIELD(header_size), "bad header size 256" },
		{ "header size not a multiple of 8", FIELD(header_size), "bad header size 4100" },
		{ "record size 64 in version 3", FIELD(record_size), "bad record size 64" },
		{ "record size 60 in version 2", FIELD(record_size), "bad record size 60" },
		{ "record size 68 in version 2", FIELD(record_size), "bad record size 68" },
		{ "pointer size 5", FIELD(pointer_size), "bad pointer size 5" },
		{ "clock none", FIELD(clock), "unknown clock 0" },
		{ "clock past the last", FIELD(clock), "unknown clock 6" },
		{ "clock rate 0", FIELD(ticks_per_sec), "clock rate is zero" },
		{ "an unknown flag", FIELD(flags), "unknown header flags 0x80000018" },
		{ "exe past the header", FIELD(exe_offset), "executable path lies outside" },
		{ "exe in the header struct", FIELD(exe_offset), "executable path lies outside" },
		{ "cmdline wrapping 2^32", FIELD(cmdline_offset), "command line lies outside" },
		{ "settings past the header", FIELD(settings_offset), "settings lie outside" },
		{ "allocator past the end", FIELD(allocator_offset), "allocator path lies out" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		good_header(&h);
		switch (i) {
		case 0: h.magic[7] = 'x'; break;
		case 1: h.byte_order_mark = 0x01020305; break;
		case 2: h.version = 0; break;
		case 3: h.version = MTRACE_FORMAT_VERSION + 1; break;
		case 4: h.header_size = 256; break;
		case 5: h.header_size = 4100; break;
		case 6: h.record_size = 64; break;
		case 7: h.version = 2, h.record_size = 60; break;
		case 8: h.version = 2, h.record_size = 68; break;
		case 9: h.pointer_size = 5; break;
		case 10: h.clock = MTRACE_CLOCK_NONE; break;
		case 11: h.clock = MTRACE_CLOCK_MAX + 1; break;
		case 12: h.ticks_per_sec = 0; break;
		case 13: h.flags |= 0x80000000u; break;
		case 14: h.exe_offset = MTRACE_HEADER_SIZE - 4; break;
		case 15: h.exe_offset = 16; break;
		case 16: h.cmdline_offset = 600, h.cmdline_len = UINT32_MAX - 100; break;
		case 17: h.settings_offset = MTRACE_HEADER_SIZE, h.settings_len = 1; break;
		case 18: h.allocator_offset = 600, h.allocator_len = MTRACE_HEADER_SIZE; break;
		}
		at = 12345;
		bad_header.msg[0] = 0;
		int rc = trace_header_check(&h, &at, &bad_header);
		CHECK(rc == -1 && at == bad[i].at && strstr(bad_header.msg, bad[i].says),
		      "refused: %s, at offset %zu (%d, offset %llu: %s)", bad[i].what, bad[i].at,
		      rc, (unsigned long long)at, bad_header.msg);
	}
	good_header(&h);
	h.version = 2;
	h.record_size = 72;   /* longer records: readers use the first 64 bytes */
	CHECK(trace_header_check(&h, &at, &bad_header) == 0, "version 2 with 72-byte records: "
	      "accepted");
	good_header(&h);
	h.version = 1;
	h.record_size = MTRACE_RECORD_SIZE;
	h.header_size = sizeof h + (8 - sizeof h % 8) % 8;
	h.exe_len = 0;
	CHECK(trace_header_check(&h, &at, &bad_header) == 0, "version 1, the smallest header: "
	      "accepted");

	/* --- trace_open of files */
	good_header(&h);
	const char *path = header_file("good.trace", &h, MTRACE_HEADER_SIZE);
	struct trace_reader r;
	int rc = trace_open(&r, path);
	CHECK(rc == 0, "trace_open: a good header, no records: opened (%s)", rc ? r.err.msg : "");
	if (rc == 0) {
		struct mtrace_record rec;
		CHECK(r.hdr.version == MTRACE_FORMAT_VERSION && r.hdr.pid == 4242 &&
		      strcmp(r.exe, "/bin/app") == 0 && r.format == TRACE_FMT_MTRACE && !r.swap,
		      "... its header read: version %u, pid %d, exe '%s'", r.hdr.version, r.hdr.pid,
		      r.exe);
		CHECK(trace_next(&r, &rec, NULL) == 0, "... and no record: the end at once");
	}
	trace_close(&r);

	/* the same header written on a machine of the other byte order */
	struct mtrace_file_header sw = h;
	trace_swap_header(&sw);
	path = header_file("swapped.trace", &sw, MTRACE_HEADER_SIZE);
	rc = trace_open(&r, path);
	CHECK(rc == 0 && r.swap && r.hdr.pid == 4242 && r.hdr.ticks_per_sec == 1000000000,
	      "the other byte order: opened, its fields brought to ours (%s)", rc ? r.err.msg : "");
	trace_close(&r);

	path = header_file("empty.trace", &h, 0);
	CHECK(open_err(path, NULL) == -1 && says(path, 0, "empty file, not a trace"),
	      "refused: an empty file (%s)", err);
	path = header_file("short.trace", &h, 100);
	CHECK(open_err(path, NULL) == -1 && says(path, 100, "truncated header (100 bytes"),
	      "refused: 100 bytes, less than a header (%s)", err);
	path = header_file("cut.trace", &h, 2000);
	CHECK(open_err(path, NULL) == -1 &&
	      says(path, 2000, "truncated header (2000 of 4096 bytes)"),
	      "refused: a header cut short of its header_size (%s)", err);
	struct mtrace_file_header b = h;
	b.magic[0] = 0;   /* binary, not text: no hint of what else it is */
	path = header_file("magic.trace", &b, MTRACE_HEADER_SIZE);
	CHECK(open_err(path, NULL) == -1 && says(path, 0, "bad magic"), "refused: a bad magic (%s)",
	      err);
	b = h;
	b.version = 9;
	path = header_file("v9.trace", &b, MTRACE_HEADER_SIZE);
	CHECK(open_err(path, NULL) == -1 &&
	      says(path, FIELD(version), "unsupported format version 9"),
	      "refused: version 9, naming the version's offset (%s)", err);
	b = h;
	b.header_size = 12;
	path = header_file("hsize.trace", &b, MTRACE_HEADER_SIZE);
	CHECK(open_err(path, NULL) == -1 && says(path, FIELD(header_size), "bad header size 12"),
	      "refused: a header size below the header's (%s)", err);
	b = h;
	b.record_size = 16;
	path = header_file("rsize.trace", &b, MTRACE_HEADER_SIZE);
	CHECK(open_err(path, NULL) == -1 && says(path, FIELD(record_size), "bad record size 16"),
	      "refused: a bad record size (%s)", err);
	b = h;
	b.exe_len = MTRACE_HEADER_SIZE;
	path = header_file("exe.trace", &b, MTRACE_HEADER_SIZE);
	CHECK(open_err(path, NULL) == -1 && says(path, FIELD(exe_offset), "outside the header"),
	      "refused: a string past the header's end (%s)", err);

	/* a workload is not a trace, and is said to be one */
	struct mtrace_wl_header wh;
	memset(&wh, 0, sizeof wh);
	memcpy(wh.magic, MTRACE_WL_MAGIC, MTRACE_WL_MAGIC_LEN);
	wh.version = MTRACE_WL_VERSION;
	path = unit_file("w.wl", &wh, sizeof wh);
	int format = -1;
	CHECK(open_err(path, &format) == -1 && format == TRACE_FMT_WORKLOAD &&
	      says(path, 0, "a workload, not a trace"), "a workload: refused as one (%s)", err);

	/* --- trace_head_check: the first bytes of a stream */
	CHECK(trace_head_check((const unsigned char *)&h, sizeof h) == NULL,
	      "trace_head_check: a trace's first bytes pass");
	const char *what = trace_head_check((const unsigned char *)&wh, sizeof wh);
	CHECK(what && strstr(what, "a workload"), "trace_head_check: a workload's do not (%s)",
	      what ? what : "passed");
	what = trace_head_check((const unsigned char *)"\x01\x02\x03\x04garbage", 11);
	CHECK(what && strstr(what, "bad magic"), "trace_head_check: other bytes do not (%s)",
	      what ? what : "passed");

	/* --- the settings strings: the environment's, then those set as it ran after an empty
	   one, merged into what a replay runs with */
	char all[256], set[256];
	static const unsigned char env_only[] = "MALLOC_CONF=narenas:2\0MIMALLOC_X=1";
	trace_settings_read(env_only, sizeof env_only, all, sizeof all, set, sizeof set);
	CHECK(!strcmp(all, "MALLOC_CONF=narenas:2 MIMALLOC_X=1") && !set[0],
	      "settings: the environment's alone (%s | %s)", all, set);
	static const unsigned char both[] = "MALLOC_CONF=narenas:2\0MIMALLOC_X=1\0\0"
		"MIMALLOC_X=5\0MALLOC_CONF=background_thread:true\0MIMALLOC_Y=2";
	trace_settings_read(both, sizeof both, all, sizeof all, set, sizeof set);
	CHECK(!strcmp(all, "MALLOC_CONF=narenas:2,background_thread:true MIMALLOC_X=5 MIMALLOC_Y=2"),
	      "settings: MALLOC_CONF's keys added to the environment's, others replaced (%s)", all);
	CHECK(!strcmp(set, "MIMALLOC_X=5 MALLOC_CONF=background_thread:true MIMALLOC_Y=2"),
	      "settings: those set as it ran, apart (%s)", set);
	static const unsigned char run_only[] = "\0MALLOC_CONF=dirty_decay_ms:0";
	trace_settings_read(run_only, sizeof run_only, all, sizeof all, set, sizeof set);
	CHECK(!strcmp(all, "MALLOC_CONF=dirty_decay_ms:0") && !strcmp(set, all),
	      "settings: set as it ran, none in the environment (%s | %s)", all, set);
	static const unsigned char odd[] = "A=\x01" "b\0LONG=value\0\0\0C=d";
	trace_settings_read(odd, sizeof odd, all, 8, set, sizeof set);
	CHECK(!strcmp(all, "A=?b") && !strcmp(set, ""),
	      "settings: bytes that are no text shown as '?'; a setting that does not fit left "
	      "out; empty strings after the first ignored (%s | %s)", all, set);
	return unit_done();
}
