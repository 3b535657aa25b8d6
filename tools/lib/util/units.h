/* units.h - figures for people to read: bytes in B, KiB, MiB, GiB..., times in ns, µs, ms, s,
 * three significant digits (the text reports; scripts get the exact numbers in --tsv and
 * --json, and charts their own axis labels, svg.h).
 */
#ifndef UNITS_H
#define UNITS_H
#include <stddef.h>
#include <stdint.h>

#define UNITS_CAP 32   /* room for any of them */

/* "868 B", "4 KiB" (a whole number of the unit), "4.01 KiB", "265 KiB", "1.54 MiB" into buf
   (cap bytes); returns buf */
char *units_bytes(char *buf, size_t cap, uint64_t bytes);
/* "39 ns", "3.54 µs", "12.3 ms", "7.31 s" into buf; returns buf */
char *units_ns(char *buf, size_t cap, double ns);
/* Columns s takes on a terminal: its UTF-8 characters (µ is two bytes, one column) */
size_t units_width(const char *s);
#endif
