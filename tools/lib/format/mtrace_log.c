/* mtrace_log.c - see mtrace_log.h */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mtrace_log.h"

static int bad(struct mtrace_log *l, const char *what)
{
	return tool_fail(&l->err, EXIT_BADFILE, "line %lu: %s", l->line, what);
}

/* next space-separated token of [*p, end) */
static int token(const char **p, const char *end, const char **t, size_t *n)
{
	while (*p < end && (**p == ' ' || **p == '\t' || **p == '\r'))
		(*p)++;
	*t = *p;
	while (*p < end && **p != ' ' && **p != '\t' && **p != '\r')
		(*p)++;
	*n = (size_t)(*p - *t);
	return *n > 0;
}

static int number(const char *t, size_t n, uint64_t *v)
{
	char buf[32];
	if (n == 5 && !memcmp(t, "(nil)", 5)) {
		*v = 0;
		return 0;
	}
	if (n == 0 || n >= sizeof buf)
		return -1;
	memcpy(buf, t, n);
	buf[n] = 0;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(buf, &end, 0);
	if (errno || *end || buf[0] == '-')
		return -1;
	*v = x;
	return 0;
}

int mtrace_log_line(struct mtrace_log *l, const char *text, size_t len,
		    int (*put)(void *, const struct mtrace_record *), void *ctx)
{
	const char *p = text, *end = text + len, *t;
	size_t n;
	l->line++;
	if (!token(&p, end, &t, &n))
		return 0;   /* an empty line */
	l->caller = NULL;
	l->caller_len = 0;
	if (n == 1 && t[0] == '@') {
		if (!token(&p, end, &t, &n))
			return bad(l, "'@' without a caller");
		/* (an object's path may hold spaces: the caller ends at its "[0xADDR]") */
		const char *close = t;
		while ((close = memchr(close, ']', (size_t)(end - close))) != NULL &&
		       close + 1 < end && close[1] != ' ' && close[1] != '\t')
			close++;
		if (close) {
			p = close + 1;
			n = (size_t)(p - t);
		}
		l->caller = t;
		l->caller_len = n;
		if (!token(&p, end, &t, &n))
			return bad(l, "a caller without an operation");
	}
	if (n != 1)
		return bad(l, "not an mtrace() log line (no + - < > ! = operation)");
	char op = t[0];
	uint64_t a = 0, b = 0;
	const char *t2;
	size_t n2;
	int have_a = token(&p, end, &t2, &n2) && number(t2, n2, &a) == 0;
	int args = have_a + (token(&p, end, &t2, &n2) && number(t2, n2, &b) == 0);
	struct mtrace_record r = { .tid = 1, .ts = ++l->seq };
	if (op == '=')
		return 0;   /* "= Start", "= End" */
	if (l->pending && op != '>')
		return bad(l, "a realloc's '<' line is not followed by its '>' line");
	switch (op) {
	case '+':
		if (args != 2)
			return bad(l, "'+' wants a pointer and a size");
		r.call = MTRACE_CALL_MALLOC;
		r.size = b;
		r.result = a;
		if (!a) {
			r.flags = MTRACE_RF_FAILED;
			r.err = ENOMEM;
		}
		break;
	case '-':
		if (args != 1)
			return bad(l, "'-' wants a pointer");
		r.call = MTRACE_CALL_FREE;
		r.ptr = a;
		break;
	case '<':
		if (args != 1)
			return bad(l, "'<' wants a pointer");
		l->pending = 1;
		l->old = a;
		l->seq--;   /* the record is made at the '>' */
		return 0;
	case '>':
		if (!l->pending)
			return bad(l, "'>' without the '<' before it");
		if (args != 2)
			return bad(l, "'>' wants a pointer and a size");
		l->pending = 0;
		r.call = MTRACE_CALL_REALLOC;
		r.ptr = l->old;
		r.result = a;
		r.size = b;
		break;
	case '!':
		if (args != 2)
			return bad(l, "'!' wants a pointer and a size");
		r.call = MTRACE_CALL_REALLOC;
		r.ptr = a;
		r.size = b;
		r.flags = MTRACE_RF_FAILED;
		r.err = ENOMEM;
		break;
	default:
		return bad(l, "unknown operation");
	}
	if (r.result == 0 && r.call != MTRACE_CALL_FREE)
		r.flags |= MTRACE_RF_FAILED;
	r.usable = r.result ? r.size : 0;
	if (put(ctx, &r) < 0)   /* (put may have said what is wrong with the line) */
		return l->err.msg[0] ? -1 : bad(l, "cannot write the trace");
	return 0;
}

int mtrace_log_caller(const char *text, size_t len, struct mtrace_caller *c)
{
	*c = (struct mtrace_caller){ .off = UINT32_MAX };
	const char *end = text + len, *open = end;
	if (len < 3 || end[-1] != ']')
		return -1;
	while (open > text && open[-1] != '[')
		open--;
	if (open == text || number(open, (size_t)(end - 1 - open), &c->addr) < 0)
		return -1;
	const char *pre = open - 1;   /* the '[': what comes before it names the code */
	if (pre > text && pre[-1] == ')') {
		const char *f = pre - 1;
		while (f > text && f[-1] != '(')
			f--;
		if (f == text)
			return -1;
		const char *sign = pre - 1;
		while (sign > f && sign[-1] != '+' && sign[-1] != '-')
			sign--;
		/* (hexadecimal, "0x" or not: glibc 2.36 writes "func+1e") */
		char hex[24];
		size_t hn = (size_t)(pre - 1 - sign);
		if (sign > f && sign[-1] == '+' && hn && hn < sizeof hex - 2) {
			memcpy(hex, "0x", 2);
			memcpy(hex + 2, sign, hn);
			hex[hn + 2] = 0;
			uint64_t off;
			const char *h = hn > 2 && sign[0] == '0' && (sign[1] | 0x20) == 'x' ? hex + 2
											  : hex;
			if (number(h, strlen(h), &off) == 0 && off < UINT32_MAX)
				c->off = (uint32_t)off;
		}
		c->func = f;
		c->func_len = sign > f ? (size_t)(sign - 1 - f) : (size_t)(pre - 1 - f);
		pre = f - 1;   /* the '(' */
	}
	if (pre > text) {
		if (pre[-1] != ':')
			return -1;
		c->obj = text;
		c->obj_len = (size_t)(pre - 1 - text);
	}
	return 0;
}

int mtrace_log_end(struct mtrace_log *l)
{
	if (l->pending)
		return bad(l, "the log ends inside a realloc ('<' without its '>')");
	return 0;
}
