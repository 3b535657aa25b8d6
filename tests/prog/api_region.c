/* api_region - the control API (libmtrace.so), checked against the trace it writes.
 *   api_region DIR
 * Every check prints "ok - what" or "not ok - what"; exit status 1 if any failed. */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mtrace.h"
#include "trace_reader.h"

static int failures;
#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		int c_ = !!(cond);                                                                 \
		printf("%s - ", c_ ? "ok" : "not ok");                                             \
		printf(__VA_ARGS__);                                                               \
		putchar('\n');                                                                     \
		failures += !c_;                                                                   \
	} while (0)

static unsigned long long counts[MTRACE_CALL_LAST_API + 1], total, finished;

static int read_trace(const char *path)
{
	struct trace_reader r;
	memset(counts, 0, sizeof counts);
	total = 0;
	if (trace_open(&r, path) < 0) {
		printf("# %s\n", r.err.msg);
		return -1;
	}
	finished = !!(r.hdr.flags & MTRACE_HF_FINISHED);
	struct mtrace_record x;
	int rc;
	while ((rc = trace_next(&r, &x, NULL)) > 0)
		if (x.call <= MTRACE_CALL_LAST_API) {   /* (not chunks, mappings or samples) */
			counts[x.call]++;
			total++;
		}
	if (rc < 0)
		printf("# %s\n", r.err.msg);
	trace_close(&r);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	const char *dir = argv[1];
	char base[4096], path[4200], link[4200], target[4200];
	printf("# starting\n");   /* stdout's buffer is allocated now, outside any traced region */

	/* not open yet */
	errno = 0;
	CHECK(mtrace_stop() == -1 && errno == EINVAL, "stop without a file fails with EINVAL");
	CHECK(mtrace_file() == NULL, "no file before init");

	/* 1. a region with exactly known calls */
	snprintf(base, sizeof base, "%s/region", dir);
	CHECK(mtrace_init(base) == 0, "init %s", base);
	errno = 0;
	CHECK(mtrace_init(base) == -1 && errno == EBUSY, "second init fails with EBUSY");
	snprintf(path, sizeof path, "%s", mtrace_file());
	free(malloc(50));   /* before start: not recorded */
	CHECK(mtrace_start() == 0, "start");
	void *p[10];
	for (int i = 0; i < 5; i++) p[i] = malloc(100 + i);               /* 5 malloc */
	for (int i = 5; i < 9; i++) p[i] = calloc(3, 10);                 /* 4 calloc */
	for (int i = 0; i < 3; i++) p[i] = realloc(p[i], 500);            /* 3 realloc */
	for (int i = 3; i < 5; i++) p[i] = reallocarray(p[i], 10, 20);    /* 2 reallocarray */
	void *a = NULL, *b = NULL;
	/* 2 posix_memalign */
	int r1 = posix_memalign(&a, 64, 100), r2 = posix_memalign(&b, 3, 100);
	void *c = aligned_alloc(64, 128), *d = memalign(32, 100), *e = valloc(10), *f = pvalloc(10);
	for (int i = 0; i < 9; i++) free(p[i]);                           /* 9 free */
	free(a); free(c); free(d); free(e); free(f);                      /* 5 free */
	free(NULL);                                                       /* 1 free */
	CHECK(r1 == 0 && r2 == EINVAL, "posix_memalign results pass through");
	CHECK(mtrace_pause() == 0, "pause");
	for (int i = 0; i < 7; i++) free(malloc(64));                    /* not recorded */
	CHECK(mtrace_unpause() == 0, "unpause");
	free(malloc(64));                                                 /* 1 malloc, 1 free */
	CHECK(mtrace_count() == 37, "mtrace_count is 37 (%llu)", mtrace_count());
	CHECK(mtrace_sync() == 0, "sync");
	CHECK(mtrace_stop() == 0, "stop");
	CHECK(read_trace(path) == 0, "trace %s reads cleanly", path);
	CHECK(counts[MTRACE_CALL_MALLOC] == 6, "6 malloc (%llu)", counts[MTRACE_CALL_MALLOC]);
	CHECK(counts[MTRACE_CALL_CALLOC] == 4, "4 calloc (%llu)", counts[MTRACE_CALL_CALLOC]);
	CHECK(counts[MTRACE_CALL_REALLOC] == 3, "3 realloc (%llu)", counts[MTRACE_CALL_REALLOC]);
	CHECK(counts[MTRACE_CALL_REALLOCARRAY] == 2, "2 reallocarray (%llu)",
	      counts[MTRACE_CALL_REALLOCARRAY]);
	CHECK(counts[MTRACE_CALL_POSIX_MEMALIGN] == 2, "2 posix_memalign (%llu)",
	      counts[MTRACE_CALL_POSIX_MEMALIGN]);
	CHECK(counts[MTRACE_CALL_ALIGNED_ALLOC] == 1 && counts[MTRACE_CALL_MEMALIGN] == 1 &&
	      counts[MTRACE_CALL_VALLOC] == 1 && counts[MTRACE_CALL_PVALLOC] == 1,
	      "1 each of aligned_alloc, memalign, valloc, pvalloc");
	CHECK(counts[MTRACE_CALL_FREE] == 16, "16 free (%llu)", counts[MTRACE_CALL_FREE]);
	CHECK(total == 37, "37 calls in all, nothing else (%llu)", total);
	CHECK(finished, "header marked finished");
	struct stat st;
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "file mode is 0600 (%o)",
	      st.st_mode & 0777);
	CHECK(st.st_size % 64 == 0 && st.st_size <= 4096 + 8 * 4096,
	      "file trimmed to what was handed out (%lld bytes)", (long long)st.st_size);

	/* 2. start after stop opens a new file */
	CHECK(mtrace_start() == 0, "start again");
	CHECK(mtrace_file() && strcmp(mtrace_file(), path) != 0, "a new file: %s",
	      mtrace_file() ? mtrace_file() : "(none)");
	snprintf(path, sizeof path, "%s", mtrace_file());
	free(malloc(10));
	CHECK(mtrace_stop() == 0, "stop again");
	CHECK(read_trace(path) == 0 && total == 2, "second file has its 2 calls (%llu)", total);

	/* 3. reset discards what came before it */
	snprintf(base, sizeof base, "%s/reset", dir);
	CHECK(mtrace_init(base) == 0 && mtrace_start() == 0, "init+start %s", base);
	snprintf(path, sizeof path, "%s", mtrace_file());
	for (int i = 0; i < 1000; i++) free(malloc(32));                  /* discarded */
	CHECK(mtrace_reset() == 0, "reset");
	for (int i = 0; i < 3; i++) free(malloc(33));
	CHECK(mtrace_count() == 6, "count after reset is 6 (%llu)", mtrace_count());
	mtrace_stop();
	CHECK(read_trace(path) == 0 && total == 6 && counts[MTRACE_CALL_MALLOC] == 3,
	      "only the 6 calls after reset remain (%llu)", total);

	/* 4. a planted symlink at the file name is never followed */
	snprintf(base, sizeof base, "%s/planted", dir);
	snprintf(link, sizeof link, "%s.%d", base, (int)getpid());
	snprintf(target, sizeof target, "%s/victim", dir);
	FILE *v = fopen(target, "w");
	fclose(v);
	CHECK(symlink(target, link) == 0, "planted symlink %s", link);
	CHECK(mtrace_init(base) == 0, "init next to the symlink");
	CHECK(mtrace_file() && strcmp(mtrace_file(), link) != 0, "another name was chosen: %s",
	      mtrace_file() ? mtrace_file() : "(none)");
	mtrace_stop();
	CHECK(stat(target, &st) == 0 && st.st_size == 0, "the symlink's target is untouched");

	/* 5. an impossible directory: an error, and allocation goes on */
	errno = 0;
	CHECK(mtrace_init("/nonexistent-dir/x") == -1 && errno == ENOENT,
	      "init in a missing directory fails with ENOENT");
	void *ok = malloc(10);
	CHECK(ok != NULL, "malloc still works");
	free(ok);
	printf("%d failed\n", failures);
	return failures != 0;
}
