/* dj_wl.c - see dj_wl.h.  Our WAIT t k becomes SYNC_R id in the waiter and SYNC_W id in thread
 * t right after its k-th call; calls dj has no opcode for map to the nearest one it has (the
 * call table's dj column, mtrace-trace.h: posix_memalign and aligned_alloc to MEMALIGN,
 * reallocarray to REALLOC of the product), and the program's own mappings (MAP, UNMAP, REMAP),
 * which dj cannot say, are left out. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dj_wl.h"
#include "u64map.h"
#include "output.h"
#include "varint.h"
#include "wl_reader.h"
#include "wl_writer.h"

static int put(FILE *f, unsigned op, int n, const unsigned long long *a)
{
	unsigned char buf[64];
	size_t len = 0;
	buf[len++] = (unsigned char)op;
	for (int i = 0; i < n; i++)
		len += varint_be_put(buf + len, a[i]);
	return fwrite(buf, 1, len, f) == len ? 0 : -1;
}

/* dj's nearest opcode for ours (DJ_NONE: none, or not a call) */
static unsigned dj_op_of(unsigned op)
{
#define DJ_CASE_(c, v, n, wl, order, opd, lat, dj) case MTRACE_WL_##wl: return DJ_##dj;
	switch (op) {
	MTRACE_CALLS_API(DJ_CASE_)
	default: return DJ_NONE;
	}
#undef DJ_CASE_
}

static unsigned long long mul_sat(unsigned long long a, unsigned long long b)
{
	unsigned long long r;
	return __builtin_mul_overflow(a, b, &r) ? ~0ull : r;
}

/* One stream.  Returns its length, or -1. */
static long long stream(struct wl_reader *r, uint32_t t, struct u64map *ids, FILE *f,
			struct tool_err *err)
{
	struct wl_cursor c;
	struct wl_op op;
	long long start = f ? ftell(f) : 0;
	unsigned long long count = 0, a[4];
	int k;
	wl_cursor_init(r, t, &c);
	while ((k = wl_next(r, &c, &op)) > 0) {
		int rc = 0;
		if (op.op == MTRACE_WL_WAIT) {
			uint64_t *id = u64map_get(ids, (op.a[0] << 40) | op.a[1]);
			a[0] = id ? *id : 0;
			rc = put(f, DJ_SYNC_R, 1, a);
			if (rc < 0)
				break;
			continue;
		}
		if (!mtrace_wl_is_call(op.op))
			continue;   /* RESIDENT, AT: not calls, and dj has no such thing */
		unsigned dj = dj_op_of(op.op);
		if (dj != DJ_NONE) {   /* (MAP, UNMAP, REMAP: counted, for the waits on them) */
			/* our operands, calloc's and reallocarray's count and size as their
			   product, dj's size */
			int n = op.n;
			for (int i = 0; i < n; i++)
				a[i] = op.a[i];
			if (mtrace_wl_call_operands(op.op) & MTRACE_OPD_COUNT)
				a[n - 2] = mul_sat(op.a[n - 2], op.a[n - 1]), n--;
			rc = put(f, dj, n, a);
		}
		if (rc < 0)
			break;
		count++;
		uint64_t *id = u64map_get(ids, ((uint64_t)t << 40) | count);
		if (id) {
			a[0] = *id;
			if (put(f, DJ_SYNC_W, 1, a) < 0)
				break;
		}
	}
	if (k < 0) {
		tool_fail(err, EXIT_BADFILE, "%s", r->err.msg);
		return -1;
	}
	if (put(f, DJ_DONE, 0, NULL) < 0 || ferror(f)) {
		tool_fail(err, EXIT_SYSTEM, "cannot write: %s", strerror(errno));
		return -1;
	}
	return ftell(f) - start;
}

int dj_wl_write(const char *wl_path, const char *dj_path, struct tool_err *err)
{
	struct wl_reader r;
	if (wl_open(&r, wl_path) < 0) {
		tool_fail(err, EXIT_BADFILE, "%s", r.err.msg);
		return -1;
	}
	/* pass 1: every (thread, count) something waits for gets a sync id, from 1 */
	struct u64map ids = { 0 };
	uint64_t nids = 0;
	for (uint32_t t = 0; t < r.h.nthreads; t++) {
		struct wl_cursor c;
		struct wl_op op;
		int k;
		wl_cursor_init(&r, t, &c);
		while ((k = wl_next(&r, &c, &op)) > 0)
			if (op.op == MTRACE_WL_WAIT) {
				uint64_t key = (op.a[0] << 40) | op.a[1];
				if (!u64map_get(&ids, key) && u64map_put(&ids, key, ++nids) < 0) {
					tool_fail(err, EXIT_SYSTEM, "out of memory");
					goto fail;
				}
			}
		if (k < 0) {
			tool_fail(err, EXIT_BADFILE, "%s", r.err.msg);
			goto fail;
		}
	}
	/* pass 2: the streams into a scratch file, to learn their lengths */
	struct output out;
	if (output_open(&out, dj_path, 0) < 0) {
		*err = out.err;
		goto fail;
	}
	int bfd = output_scratch(&out, ".body");
	if (bfd < 0) {
		*err = out.err;
		output_abort(&out);
		goto fail;
	}
	FILE *bf = fdopen(bfd, "w+"), *tf = output_stdio(&out);
	long long *len = calloc(r.h.nthreads ? r.h.nthreads : 1, sizeof *len);
	for (uint32_t t = 0; t < r.h.nthreads; t++)
		if ((len[t] = stream(&r, t, &ids, bf, err)) < 0)
			goto fail_files;
	/* the preamble's length depends on the offsets it holds: iterate to a fixed point */
	unsigned long long pre = 0, prev;
	unsigned char scratch[16];
	do {
		prev = pre;
		pre = 1 + varint_be_put(scratch, r.h.nslots) + 1 +
		      varint_be_put(scratch, nids + 1) + 1 +
		      varint_be_put(scratch, r.h.nthreads) + 1;
		unsigned long long off = prev;
		for (uint32_t t = 0; t < r.h.nthreads; t++) {
			pre += 1 + varint_be_put(scratch, off);
			off += (unsigned long long)len[t];
		}
	} while (pre != prev);
	unsigned long long a[1];
	a[0] = r.h.nslots;
	put(tf, DJ_ALLOC_PTRS, 1, a);
	a[0] = nids + 1;   /* ids run 1..nids; some writers give the largest id here */
	put(tf, DJ_ALLOC_SYNCS, 1, a);
	a[0] = r.h.nthreads;
	put(tf, DJ_NTHREADS, 1, a);
	unsigned long long off = pre;
	for (uint32_t t = 0; t < r.h.nthreads; t++) {
		a[0] = off;
		put(tf, DJ_START_THREAD, 1, a);
		off += (unsigned long long)len[t];
	}
	put(tf, DJ_DONE, 0, NULL);
	rewind(bf);
	char io[65536];
	size_t n;
	while ((n = fread(io, 1, sizeof io, bf)) > 0)
		if (fwrite(io, 1, n, tf) != n)
			break;
	if (ferror(bf)) {
		tool_fail(err, EXIT_SYSTEM, "%s: cannot write: %s", dj_path, strerror(errno));
		goto fail_files;
	}
	if (output_commit(&out) < 0) {
		*err = out.err;
		goto fail_files;
	}
	fclose(bf);
	free(len);
	u64map_free(&ids);
	wl_close(&r);
	return 0;
fail_files:
	output_abort(&out);
	fclose(bf);
	free(len);
fail:
	u64map_free(&ids);
	wl_close(&r);
	return -1;
}

/* ---------------------------------------------------------------------------------------------
   Reading
   ------------------------------------------------------------------------------------------- */

/* (the operands as this file holds them: unsigned long long, printed with %llu) */
static int dj_get(const unsigned char **p, const unsigned char *end, unsigned long long *v)
{
	uint64_t x;
	if (varint_be_get(p, end, &x) < 0)
		return -1;
	*v = x;
	return 0;
}

static int dj_operands(unsigned op)
{
	switch (op) {
	case DJ_NOP: case DJ_DONE: return 0;
	case DJ_FREE: case DJ_SYNC_W: case DJ_SYNC_R: case DJ_ALLOC_PTRS: case DJ_ALLOC_SYNCS:
	case DJ_NTHREADS: case DJ_START_THREAD: return 1;
	case DJ_MALLOC: case DJ_CALLOC: case DJ_VALLOC: case DJ_PVALLOC: return 2;
	case DJ_REALLOC: case DJ_MEMALIGN: return 3;
	default: return -1;
	}
}

int dj_wl_scan(const char *path, struct dj_wl_info *info, struct tool_err *err)
{
	memset(info, 0, sizeof *info);
	FILE *f = fopen(path, "rb");
	if (!f) {
		tool_fail(err, EXIT_BADFILE, "%s: %s", path, strerror(errno));
		return -1;
	}
	size_t size = 0, capb = 1 << 16;
	unsigned char *buf = malloc(capb);
	size_t n;
	while (buf && (n = fread(buf + size, 1, capb - size, f)) > 0) {
		size += n;
		if (size == capb) {
			unsigned char *nb = realloc(buf, capb *= 2);
			if (!nb) {
				free(buf);
				buf = NULL;
			}
			buf = nb;
		}
	}
	fclose(f);
	if (!buf) {
		tool_fail(err, EXIT_SYSTEM, "out of memory");
		return -1;
	}
	const unsigned char *p = buf, *end = buf + size;
	unsigned long long *starts = NULL, nstarts = 0, v[3];
	unsigned char *written = NULL;
	int rc = -1;
#define BAD(...) do { tool_fail(err, EXIT_BADFILE, __VA_ARGS__); goto out; } while (0)
	/* preamble */
	for (;;) {
		size_t at = (size_t)(p - buf);
		if (p == end)
			BAD("%s: offset %zu: the preamble has no DONE", path, at);
		unsigned op = *p++;
		int k = dj_operands(op);
		if (k < 0 || k > 1)
			BAD("%s: offset %zu: opcode %u in the preamble", path, at, op);
		if (k && dj_get(&p, end, &v[0]) < 0)
			BAD("%s: offset %zu: truncated operand", path, at);
		if (op == DJ_DONE)
			break;
		if (op == DJ_ALLOC_PTRS) info->ptrs = v[0];
		else if (op == DJ_ALLOC_SYNCS) info->syncs = v[0];
		else if (op == DJ_NTHREADS) {
			if (starts)
				BAD("%s: offset %zu: NTHREADS given twice", path, at);
			if (v[0] > (1u << 20))
				BAD("%s: offset %zu: %llu threads", path, at, v[0]);
			info->nthreads = v[0];
			starts = calloc(v[0] ? v[0] : 1, sizeof *starts);
		} else if (op == DJ_START_THREAD) {
			if (!starts || nstarts >= info->nthreads)
				BAD("%s: offset %zu: more START_THREADs than NTHREADS", path, at);
			if (v[0] >= size)
				BAD("%s: offset %zu: thread starts at %llu, past the end (%zu)",
				    path, at, v[0], size);
			starts[nstarts++] = v[0];
		}
	}
	if (nstarts != info->nthreads)
		BAD("%s: %llu START_THREADs for %llu threads", path, nstarts, info->nthreads);
	/* every sync id costs at least two bytes of stream: more ids than bytes cannot be real,
	   and would only make us allocate what the header claims */
	if (info->syncs > size)
		BAD("%s: ALLOC_SYNCS %llu is more than a file of %zu bytes can use", path,
		    info->syncs, size);
	written = calloc(info->syncs + 1, 1);
	/* streams */
	for (unsigned long long t = 0; t < nstarts; t++) {
		p = buf + starts[t];
		for (;;) {
			size_t at = (size_t)(p - buf);
			if (p == end)
				BAD("%s: offset %zu: thread %llu's stream has no DONE", path, at,
				    t);
			unsigned op = *p++;
			int k = dj_operands(op);
			if (k < 0 || op == DJ_ALLOC_PTRS || op == DJ_ALLOC_SYNCS ||
			    op == DJ_NTHREADS || op == DJ_START_THREAD)
				BAD("%s: offset %zu: opcode %u in a stream", path, at, op);
			for (int i = 0; i < k; i++)
				if (dj_get(&p, end, &v[i]) < 0)
					BAD("%s: offset %zu: truncated operand", path, at);
			info->ops[op]++;
			if (op == DJ_DONE)
				break;
			if (op == DJ_SYNC_W || op == DJ_SYNC_R) {
				if (v[0] > info->syncs)
					BAD("%s: offset %zu: sync id %llu of %llu", path, at, v[0],
					    info->syncs);
				if (op == DJ_SYNC_W)
					written[v[0]] = 1;
				continue;
			}
			if (v[0] >= info->ptrs || (op == DJ_REALLOC && v[1] >= info->ptrs))
				BAD("%s: offset %zu: slot out of range (%llu slots)", path, at,
				    info->ptrs);
		}
	}
	/* every SYNC_R must have its SYNC_W somewhere, or a replay waits for ever */
	for (unsigned long long t = 0; t < nstarts; t++) {
		p = buf + starts[t];
		for (;;) {
			size_t at = (size_t)(p - buf);
			unsigned op = *p++;
			for (int i = 0; i < dj_operands(op); i++)
				dj_get(&p, end, &v[i]);
			if (op == DJ_DONE)
				break;
			if (op == DJ_SYNC_R && !written[v[0]])
				BAD("%s: offset %zu: SYNC_R %llu that no SYNC_W writes: the replay "
				    "would hang", path, at, v[0]);
		}
	}
	rc = 0;
out:
	free(written);
	free(starts);
	free(buf);
	return rc;
#undef BAD
}

int dj_wl_sniff(const char *path)
{
	unsigned char b[8] = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);   /* not stdio: trace_run sniffs with the */
	if (fd < 0)                                   /* allocator under test in place */
		return 0;
	ssize_t n = read(fd, b, sizeof b);
	close(fd);
	return n >= 2 && b[0] == DJ_ALLOC_PTRS && memcmp(b, MTRACE_WL_MAGIC, 2) != 0;
}

int dj_wl_to_ours(const char *dj_path, const char *out_path, struct tool_err *err,
		  void (*progress)(uint64_t done, uint64_t total, void *arg), void *arg)
{
	uint64_t walked = 0, total = 0;   /* operations of both passes; of the workload */
#define WALKED()                                                \
	do {                                                    \
		if ((++walked & 0xffff) == 0 && progress)       \
			progress(walked / 2, total, arg);       \
	} while (0)
	struct dj_wl_info info;
	if (dj_wl_scan(dj_path, &info, err) < 0)
		return -1;
	for (int i = 0; i < 15; i++)
		total += info.ops[i];
	FILE *f = fopen(dj_path, "rb");
	if (!f) {
		tool_fail(err, EXIT_BADFILE, "%s: %s", dj_path, strerror(errno));
		return -1;
	}
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	rewind(f);
	unsigned char *buf = malloc((size_t)size + 1);
	if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
		fclose(f);
		free(buf);
		tool_fail(err, EXIT_BADFILE, "%s: cannot read", dj_path);
		return -1;
	}
	fclose(f);
	const unsigned char *p = buf, *end = buf + size;
	unsigned long long v[3], n = 0;
	unsigned long long *starts = calloc(info.nthreads ? info.nthreads : 1, sizeof *starts);
	/* the preamble (validated by dj_wl_scan) */
	for (;;) {
		unsigned op = *p++;
		if (op == DJ_DONE)
			break;
		if (dj_operands(op) == 1)
			dj_get(&p, end, &v[0]);
		if (op == DJ_START_THREAD)
			starts[n++] = v[0];
	}
	/* pass 1: where each SYNC_W runs, as (thread, calls completed); the largest slot used */
	uint64_t *wt = calloc(info.syncs + 1, sizeof *wt), *wc = calloc(info.syncs + 1, sizeof *wc);
	unsigned char *seen = calloc(info.syncs + 1, 1);
	unsigned long long max_slot = 0;
	for (unsigned long long t = 0; t < n; t++) {
		uint64_t count = 0;
		for (p = buf + starts[t];;) {
			unsigned op = *p++;
			for (int i = 0; i < dj_operands(op); i++)
				dj_get(&p, end, &v[i]);
			if (op == DJ_DONE)
				break;
			WALKED();
			if (op == DJ_SYNC_W) {
				if (!seen[v[0]])   /* an id written twice: the first write counts */
					wt[v[0]] = t, wc[v[0]] = count, seen[v[0]] = 1;
			} else if (op != DJ_SYNC_R && op != DJ_NOP) {
				count++;
				if (v[0] > max_slot)
					max_slot = v[0];
				if (op == DJ_REALLOC && v[1] > max_slot)
					max_slot = v[1];
			}
		}
	}
	/* pass 2: our streams */
	struct wl_writer w;
	struct mtrace_wl_header h;
	memset(&h, 0, sizeof h);
	int rc = -1;
	if (wl_writer_open(&w, out_path) < 0) {
		*err = w.err;
		goto out;
	}
	for (unsigned long long t = 0; t < n; t++)
		wl_writer_thread(&w, (uint32_t)t + 1);
	for (unsigned long long t = 0; t < n; t++) {
		uint64_t mine = 0;   /* calls of this thread so far */
		for (p = buf + starts[t];;) {
			unsigned op = *p++;
			for (int i = 0; i < dj_operands(op); i++)
				dj_get(&p, end, &v[i]);
			uint64_t a[4];
			unsigned ours;
			int k;
			WALKED();
			switch (op) {
			case DJ_DONE: goto next;
			case DJ_NOP: case DJ_SYNC_W: continue;
			case DJ_SYNC_R:
				/* waits for nothing: the writer had made no call yet */
				if (wc[v[0]] == 0)
					continue;
				if (wt[v[0]] == t) {
					/* written by this very thread: already done, or a wait for
					   ever */
					if (wc[v[0]] <= mine)
						continue;
					tool_fail(err, EXIT_BADFILE, "%s: offset %zu: thread %llu "
						  "waits at SYNC_R %llu for a SYNC_W it writes "
						  "itself later: the replay would hang", dj_path,
						  (size_t)(p - buf), t, v[0]);
					wl_writer_abort(&w);
					goto out;
				}
				a[0] = wt[v[0]], a[1] = wc[v[0]];
				wl_writer_op(&w, (uint32_t)t, MTRACE_WL_WAIT, 2, a);
				h.nwaits++;
				continue;
			case DJ_MALLOC:
				ours = MTRACE_WL_MALLOC;
				a[0] = v[0], a[1] = v[1];
				k = 2;
				break;
			case DJ_CALLOC:
				ours = MTRACE_WL_CALLOC;
				a[0] = v[0], a[1] = v[1], a[2] = 1;
				k = 3;
				break;
			case DJ_REALLOC:
				ours = MTRACE_WL_REALLOC;
				a[0] = v[0], a[1] = v[1], a[2] = v[2];
				k = 3;
				break;
			case DJ_FREE:
				ours = MTRACE_WL_FREE;
				a[0] = v[0];
				k = 1;
				break;
			case DJ_MEMALIGN:
				ours = MTRACE_WL_MEMALIGN;
				a[0] = v[0], a[1] = v[1], a[2] = v[2];
				k = 3;
				break;
			case DJ_VALLOC:
				ours = MTRACE_WL_VALLOC;
				a[0] = v[0], a[1] = v[1];
				k = 2;
				break;
			default:
				ours = MTRACE_WL_PVALLOC;
				a[0] = v[0], a[1] = v[1];
				k = 2;
				break;
			}
			if (wl_writer_op(&w, (uint32_t)t, ours, k, a) < 0) {
				*err = w.err;
				wl_writer_abort(&w);
				goto out;
			}
			h.counts[ours]++;
			h.ncalls++;
			mine++;
		}
next:;
	}
	memcpy(h.magic, MTRACE_WL_MAGIC, MTRACE_WL_MAGIC_LEN);
	h.version = MTRACE_WL_VERSION;
	h.header_size = MTRACE_WL_HEADER_SIZE;
	h.flags = MTRACE_WL_HF_FROM_DJ;
	h.nslots = max_slot + 1;   /* what is used, not what ALLOC_PTRS claims */
	/* what replay_validate will ask of the result: a converter hands slots out from 1 up, so
	   the largest is below the file's size; a larger one only claims memory */
	uint64_t wl_size = wl_writer_size(&w);
	if (max_slot >= wl_size) {
		tool_fail(err, EXIT_BADFILE, "%s: slot %llu is used in a workload of %llu bytes: "
			  "slot numbers must be dense", dj_path, max_slot,
			  (unsigned long long)wl_size);
		wl_writer_abort(&w);
		goto out;
	}
	if (wl_writer_finish(&w, &h) < 0) {
		*err = w.err;
		wl_writer_abort(&w);
		goto out;
	}
	rc = 0;
out:
	free(seen);
	free(wt);
	free(wc);
	free(starts);
	free(buf);
	return rc;
#undef WALKED
}
