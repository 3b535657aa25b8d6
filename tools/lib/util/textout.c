/* textout.c - JSON, CSV and TSV fields (textout.h). */
#include <string.h>
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
