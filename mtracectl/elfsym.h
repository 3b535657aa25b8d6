/* elfsym.h - a dynamic symbol's place in an ELF shared object that another process mapped
 * (elfsym.c). */
#ifndef ELFSYM_H
#define ELFSYM_H
#include <stddef.h>
#include <stdint.h>

#define ELFSYM_MAX_SECTIONS 1024     /* section or program headers: a library has a few dozen */
#define ELFSYM_MAX_SYMBOLS  65536    /* examined in all: a tracer's table has a few hundred */

/* The value of the dynamic symbol name in the ELF file fd, less the address of its first
   loaded segment: what to add to its load address.  0 and *value, or -1 with what is wrong
   with the file in why (cap bytes): every size and offset is checked against the file's size,
   and the work is bounded by the caps above. */
int elfsym_offset(int fd, const char *name, uint64_t *value, char *why, size_t cap);
#endif
