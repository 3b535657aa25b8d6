/* textout.c - JSON, CSV and TSV fields; text wrapped to a terminal (textout.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "textout.h"

void print_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

void print_csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	fputc('"', f);
}

int csv_split(char *line, char **fields, int max)
{
	int n = 0;
	char *p = line;
	for (;;) {
		char *out = p;
		if (n < max)
			fields[n] = out;
		n++;
		if (*p == '"') {   /* quoted: "" is a quote, and commas are the field's */
			for (p++; *p && !(*p == '"' && p[1] != '"'); p++)
				*out++ = *p == '"' ? *++p : *p;
			if (*p == '"')
				p++;
		}
		while (*p && *p != ',')
			*out++ = *p++;
		if (!*p) {
			*out = 0;
			return n < max ? n : max;
		}
		*out = 0;   /* (out <= p: a field only shrinks) */
		p++;
	}
}

void print_tsv_field(FILE *f, const char *s)
{
	for (const char *p = s; *p; p++)
		fputc(*p == '\t' || *p == '\n' || *p == '\r' ? ' ' : *p, f);
}

/* ---------------------------------------------------------------------------------------------
   Text for people
   ------------------------------------------------------------------------------------------- */

int tool_tty_width(int fd)
{
	struct winsize ws;
	return isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 ? (ws.ws_col ? ws.ws_col : 80) : 0;
}

int tool_term_width(void)
{
	struct winsize ws;
	int tty = ioctl(2, TIOCGWINSZ, &ws) == 0;
	if (tty && ws.ws_col > 0)
		return ws.ws_col;
	/* $COLUMNS: stderr piped on to a terminal (tee), or a tty that does not say */
	long cols = 0;
	for (const char *c = getenv("COLUMNS"); c && *c >= '0' && *c <= '9' && cols < 100000; c++)
		cols = cols * 10 + (*c - '0');
	return cols > 0 && cols < 100000 ? (int)cols : tty ? 80 : 0;
}

/* Columns of the n bytes at s: UTF-8 continuation bytes take none */
static size_t columns(const char *s, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

/* One line (no newline in it), then a newline */
static void wrap_line(FILE *f, const char *s, size_t n, int width, int indent)
{
	/* (a line that fills the last column wraps on some terminals) */
	size_t room = width > 0 ? (size_t)width - 1 : (size_t)-1, col = 0, i = 0;
	while (i < n) {
		size_t sp = i, end;
		while (sp < n && s[sp] == ' ')
			sp++;
		for (end = sp; end < n && s[end] != ' '; end++)
			;
		size_t cols = columns(s + sp, end - sp);
		if (col > (size_t)indent && col + (sp - i) + cols > room) {
			fprintf(f, "\n%*s", indent, "");   /* (the spaces at the break dropped) */
			col = (size_t)indent;
		} else {
			fwrite(s + i, 1, sp - i, f);
			col += sp - i;
		}
		fwrite(s + sp, 1, end - sp, f);
		col += cols;
		i = end;
	}
	putc('\n', f);
}

void print_wrapped(FILE *f, const char *s, int width, int indent)
{
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		wrap_line(f, s, n, width, indent);
		s += n + (nl != NULL);
	}
}
