/* symbols.h - the names of code addresses from an object's ELF file, libc only: the function
 * from .symtab (else .dynsym), of the object's file or of its separate debug file (found by
 * build id under /usr/lib/debug), and file:line through addr2line when it is installed (which
 * also demangles C++ names).  A malformed ELF file gives no names, never a crash; memory is
 * bounded by the file's size.
 */
#ifndef SYMBOLS_H
#define SYMBOLS_H
#include <stddef.h>
#include <stdint.h>

struct sym_func { uint64_t start, size; uint32_t name; };   /* name: offset in names */

/* An ELF file's functions, in address order */
struct sym_table {
	struct sym_func *f;
	size_t n;
	char *names;
	size_t names_len;
	unsigned char build_id[64];
	unsigned build_id_len;        /* 0: none */
	int has_lines;                /* a .debug_line section */
};

/* Parse the n bytes of an ELF file at b into t: 0, or -1 (not ELF of this machine's byte
   order, malformed, or out of memory: t empty).  Hostile input is fine. */
int sym_parse(const unsigned char *b, size_t n, struct sym_table *t);
void sym_table_free(struct sym_table *t);
/* The function holding ELF address addr, or NULL; *off its offset there */
const char *sym_table_find(const struct sym_table *t, uint64_t addr, uint64_t *off);

/* An object's file, opened for names */
struct sym_file {
	struct sym_table tab;         /* its functions (or its debug file's, when it has one) */
	char *lines_from;             /* the file addr2line reads (NULL: no line tables, nor C++
	                                 names to demangle) */
	int ok;                       /* tab holds the file's functions */
};
/* Open path, an object whose build id is bid (bid_len 0: unknown): 0, or -1 with *why ("not
   found", "not ELF", "build id differs").  A separate debug file is looked for by build id. */
int sym_open(struct sym_file *s, const char *path, const unsigned char *bid, unsigned bid_len,
	     const char **why);
void sym_close(struct sym_file *s);

/* What addr2line says of one address: names owned by the caller (free), NULL if unknown */
struct sym_line { char *func, *file; uint32_t line; };
/* file:line and demangled names of n ELF addresses, in one run of addr2line: 0, or -1 when
   addr2line is not installed or failed (out left zeroed) */
int sym_lines(const struct sym_file *s, const uint64_t *addr, size_t n, struct sym_line *out);
/* Is addr2line installed (optional, as the decompressors are)? */
int sym_have_addr2line(void);
#endif
