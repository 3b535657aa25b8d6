/* anonymize.h - trace_pack --anonymize: a trace rewritten so that it tells nothing of whose it
 * was, what ran or where, and replays the same (the list of what remains is trace_pack(1)'s). */
#ifndef ANONYMIZE_H
#define ANONYMIZE_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Rewrite the mtrace trace in into out (host order, the same records, chunks and unwritten
   space in the same places), anonymized; first_ts: the earliest order point of its records.
   Exits on failure. */
void anonymize(const char *in, FILE *out, uint64_t first_ts);

/* The allocators' settings of a header (n bytes at in, each NAME=VALUE followed by a NUL) that
   an anonymized trace keeps, into out (cap bytes at most, the same form): their length */
size_t anon_settings(const unsigned char *in, size_t n, char *out, size_t cap);
#endif
