/* hint.c - see hint.h */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "hint.h"
#include "mtrace-trace.h"
#include "mtrace-workload.h"
#include "mtrace_log.h"

/* ---------------------------------------------------------------------------------------------
   What a file is instead
   ------------------------------------------------------------------------------------------- */

/* Do the n bytes at b begin magic (len bytes), or are they all of its start? */
static int begins(const unsigned char *b, size_t n, const char *magic, size_t len)
{
	return !memcmp(b, magic, n < len ? n : len);
}

static int is_text(const unsigned char *b, size_t n)
{
	/* (strchr finds a NUL) */
	for (size_t i = 0; i < n; i++)
		if ((b[i] < 32 && (!b[i] || !strchr("\t\n\r\f\v", b[i]))) || b[i] == 127)
			return 0;
	return n > 0;
}

static int no_record(void *ctx, const struct mtrace_record *r)
{
	(void)ctx;
	(void)r;
	return 0;
}

/* Do the whole lines of the n bytes at b (all of them: the file's start may end inside one)
   read as a glibc mtrace() log, and say something ("= Start" or a call)? */
static int is_mtrace_log(const unsigned char *b, size_t n)
{
	struct mtrace_log log = { 0 };
	const char *p = (const char *)b, *end = p + n, *nl;
	int said = 0;
	for (; p < end && (nl = memchr(p, '\n', (size_t)(end - p))) != NULL; p = nl + 1) {
		if (mtrace_log_line(&log, p, (size_t)(nl - p), no_record, NULL) < 0)
			return 0;
		said |= strspn(p, " \t\r") < (size_t)(nl - p);
	}
	return said;
}

/* name's file name without the extension (".log", ".txt"; none when the dot begins it) */
static void stem(char *buf, size_t cap, const char *name)
{
	const char *slash = strrchr(name, '/'), *base = slash ? slash + 1 : name,
		   *dot = strrchr(base, '.');
	size_t n = dot && dot > base ? (size_t)(dot - base) : strlen(base);
	snprintf(buf, cap, "%.*s", (int)n, base);
}

const char *hint_text(const unsigned char *b, size_t n, const char *name, const char *wanted,
		      char *buf, size_t cap)
{
	if (!is_text(b, n) || begins(b, n, MTRACE_MAGIC, MTRACE_MAGIC_LEN) ||
	    begins(b, n, MTRACE_WL_MAGIC, MTRACE_WL_MAGIC_LEN))
		return NULL;   /* (a file cut inside a magic is a truncated one of ours) */
	if (is_mtrace_log(b, n)) {
		char log[600], s[300], trace[600];
		const char *slash = strrchr(name, '/'), *base = slash ? slash + 1 : name;
		stem(s, sizeof s - 8, name);
		/* STEM.mtrace, or STEM.trace for a log named so already (never the log itself) */
		strcat(s, strcmp(strchr(base, '.') ? strrchr(base, '.') : "", ".mtrace") ?
				  ".mtrace" : ".trace");
		snprintf(buf, cap, "a glibc mtrace() log, not %s: trace_import makes a trace of it "
			 "(trace_import %s %s)", wanted, hint_shell_word(log, sizeof log, name),
			 hint_shell_word(trace, sizeof trace, s));
	} else
		snprintf(buf, cap, "text, not %s", wanted);
	return buf;
}

/* ---------------------------------------------------------------------------------------------
   Commands
   ------------------------------------------------------------------------------------------- */

char *hint_shell_word(char *buf, size_t cap, const char *s)
{
	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "_-+.,/:=@%") == strlen(s)) {
		snprintf(buf, cap, "%s", s);
		return buf;
	}
	size_t k = 0;
	if (cap < 3) {
		if (cap)
			buf[0] = 0;
		return buf;
	}
	buf[k++] = '\'';
	for (; *s && k + 5 < cap; s++) {
		if (*s == '\'') {   /* '\'' */
			memcpy(buf + k, "'\\''", 4);
			k += 4;
		} else
			buf[k++] = *s;
	}
	buf[k++] = '\'';
	buf[k] = 0;
	return buf;
}

char *hint_workload_name(char *buf, size_t cap, const char *trace, const char *exe)
{
	const char *from = exe && *exe ? exe : trace, *slash = strrchr(from, '/');
	const char *base = slash ? slash + 1 : from;
	size_t n = strlen(base);
	static const char *const packed[] = { ".gz", ".xz", ".zst", ".mtrace" };
	for (size_t i = 0; from == trace && i < sizeof packed / sizeof *packed; i++) {
		size_t m = strlen(packed[i]);
		if (n > m && !strcmp(base + n - m, packed[i]))
			n -= m;   /* (trace_pack's NAME.mtrace.gz: both) */
	}
	if (!n || !strcmp(base, "-"))
		base = "app", n = 3;
	snprintf(buf, cap, "%.*s.wl", (int)n, base);
	/* (a program's name may hold anything: not a line break in a command) */
	for (char *c = buf; *c; c++)
		if ((unsigned char)*c < 32 || *c == 127)
			*c = '_';
	return buf;
}

/* ---------------------------------------------------------------------------------------------
   The name meant
   ------------------------------------------------------------------------------------------- */

/* Edits from a to b (case ignored): letters inserted, removed, changed, or two neighbours
   swapped; names of up to 63 letters (longer ones are not typos of ours) */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 63 || lb > 63)
		return (size_t)-1;
	size_t d[64][64];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			int same = tolower((unsigned char)a[i - 1]) ==
				   tolower((unsigned char)b[j - 1]);
			size_t v = d[i - 1][j - 1] + !same;
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 &&
			    tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == tolower((unsigned char)b[j - 1]) &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

const char *hint_closest(const char *word, const char *const *names, int n)
{
	const char *best = NULL;
	size_t best_d = strlen(word) / 3 + 1;   /* more wrong than that: another word */
	for (int i = 0; i < n; i++) {
		size_t d = distance(word, names[i]);
		if (d < best_d)
			best = names[i], best_d = d;
	}
	return best;
}
