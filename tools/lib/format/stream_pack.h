/* stream_pack.h - the "slots" codec of compressed DATA frames (include/mtrace-stream.h,
 * MTS_CODEC_SLOTS): each 32-byte unit of a range XORed with the unit before it (a trace's
 * records repeat their call, thread, high address and time bytes), then sent as a 32-bit mask
 * of its non-zero bytes followed by those bytes; a tail shorter than a unit goes as it is.
 * Every frame decodes alone: a range resent after a reconnection needs nothing before it. */
#ifndef STREAM_PACK_H
#define STREAM_PACK_H
#include <stddef.h>

/* The most bytes mts_pack writes for n raw bytes */
#define MTS_PACK_BOUND(n) ((n) / 32 * 36 + (n) % 32)

/* Pack raw[0..n) into out (cap bytes): the packed size, or 0 when it would not be smaller than
   n or not fit in cap (the range is then sent as it is). */
size_t mts_pack(const unsigned char *raw, size_t n, unsigned char *out, size_t cap);
/* Unpack in[0..n) into exactly raw_len bytes of out: 0, or -1 when in is not the packing of
   raw_len bytes (short, too long, or a unit's mask wanting bytes that are not there). */
int mts_unpack(const unsigned char *in, size_t n, unsigned char *out, size_t raw_len);
#endif
