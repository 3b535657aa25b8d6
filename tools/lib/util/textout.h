/* textout.h - fields of the text formats the tools write and read: JSON strings, CSV (RFC
 * 4180) and TSV fields; text for people wrapped to a terminal's width. */
#ifndef TEXTOUT_H
#define TEXTOUT_H
#include <stdio.h>

/* s as a JSON string, quotes included (", \ and control characters escaped: a file or
   library name may hold any of them). */
void print_json_string(FILE *f, const char *s);
/* s as a CSV field (RFC 4180): quoted, quotes doubled, when it holds a comma, quote or line
   break. */
void print_csv_field(FILE *f, const char *s);
/* Split a CSV line into its fields, in place, as print_csv_field writes them (quotes removed,
   empty fields kept); at most max are stored.  Returns how many were stored. */
int csv_split(char *line, char **fields, int max);
/* s for a TSV field: tabs and line breaks become spaces. */
void print_tsv_field(FILE *f, const char *s);
/* Text s for people, each of its lines broken at spaces to fit width columns (0: no limit),
   never inside a word or a number; the lines a line is broken into after its first are
   indented by indent spaces.  A word wider than the room is printed whole. */
void print_wrapped(FILE *f, const char *s, int width, int indent);
/* The width of the terminal fd shows on, or 0 when it is not one. */
int tool_tty_width(int fd);
/* The width of the terminal stderr shows on: its window's when stderr is a terminal (80 if it
   does not say), else $COLUMNS (stderr piped on to one, through tee), else 0: no limit. */
int tool_term_width(void);
#endif
