/* unit.h - the checks of a unit test (tests/unit/u_*.c), one module's public API at a time.
 *
 * CHECK(cond, fmt, ...) prints "ok N - what" or "not ok N - what" (what tests/run.sh shows of a
 * failing test); unit_done() prints the plan "1..N" and gives main's exit status: 0 when every
 * check passed, 1 otherwise.  Scratch files go in unit_tmpdir(), removed at exit.
 */
#ifndef UNIT_H
#define UNIT_H
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int unit_n, unit_fails;

__attribute__((format(printf, 2, 3))) static int unit_check(int pass, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("%sok %d - ", pass ? "" : "not ", ++unit_n);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	unit_fails += !pass;
	return pass;
}
#define CHECK(cond, ...) unit_check(!!(cond), __VA_ARGS__)

static char unit_dir[64];

__attribute__((unused)) static void unit_rmdir(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", unit_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", unit_dir);
}

/* A directory for scratch files, made at the first call */
__attribute__((unused)) static const char *unit_tmpdir(void)
{
	if (!unit_dir[0]) {
		snprintf(unit_dir, sizeof unit_dir, "/tmp/mtrace-unit.XXXXXX");
		if (!mkdtemp(unit_dir)) {
			perror("mkdtemp");
			exit(2);
		}
		atexit(unit_rmdir);
	}
	return unit_dir;
}

/* Write n bytes to a scratch file NAME; its path, in a static buffer of each call's own */
__attribute__((unused)) static const char *unit_file(const char *name, const void *bytes, size_t n)
{
	static char paths[8][256];
	static unsigned next;
	char *p = paths[next++ % 8];
	snprintf(p, sizeof paths[0], "%s/%s", unit_tmpdir(), name);
	FILE *f = fopen(p, "wb");
	if (!f || fwrite(bytes, 1, n, f) != n || fclose(f) != 0) {
		perror(p);
		exit(2);
	}
	return p;
}

/* Does the reader's error err say "PATH: offset OFF: " and then, somewhere, what? */
__attribute__((unused)) static int unit_error_is(const char *err, const char *path, uint64_t off,
						 const char *what)
{
	char want[400];
	snprintf(want, sizeof want, "%s: offset %llu: ", path, (unsigned long long)off);
	return strncmp(err, want, strlen(want)) == 0 && strstr(err, what) != NULL;
}

static int unit_done(void)
{
	printf("1..%d\n", unit_n);
	if (unit_fails)
		printf("# %d of %d checks failed\n", unit_fails, unit_n);
	return unit_fails != 0;
}
#endif
