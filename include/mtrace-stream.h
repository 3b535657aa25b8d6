/* mtrace-stream.h - the stream that carries trace files from a sender (mtracectl --send) to a
 * collector (trace_recv), defined once for both sides.
 *
 * A stream is a sequence of frames, each a 16-byte head then `len` bytes of payload; every
 * integer is little-endian.  The sender opens with HELLO, names each trace file it carries with
 * FILE (an id of its choosing, 1..MTS_FILES_MAX), and then sends the file as DATA at offsets (the
 * receiver writes them with pwrite: unwritten ranges are holes, zeros, on both sides), HEADER
 * (the file's first header_size bytes, again whenever they change) and END (the file's final size:
 * it is complete).  Each DATA, HEADER and END carries a sequence number, increasing per file.
 *
 * The receiver answers ACK(id, seq) once every frame of that file up to seq is on its disk
 * (fsync).  A sender keeps every frame not yet acknowledged and sends it again on its next
 * connection, after HELLO and FILE (with MTS_FILE_RESUME when some of the file was acknowledged:
 * the receiver then keeps what it has, else it starts the file over), and a RESUME frame saying
 * the lowest offset it sends again.  Writing at offsets makes sending a range twice harmless.
 *
 * A version-2 stream may carry a DATA range compressed, as ZDATA: the raw range's length, then
 * its bytes packed by a codec (MTS_CODEC_*), each frame decodable alone so that resending one
 * needs nothing before it.  The receiver unpacks into one buffer of MTS_DATA_MAX bytes: a frame
 * saying more, or whose packed bytes do not make exactly that length, is refused.  A version-1
 * receiver refuses a version-2 HELLO ("stream version 2 (this trace_recv reads 1)"): the sender
 * then goes on in version 1, uncompressed, or stops when compression was required.
 *
 * ERROR carries a line of text either way (a full disk on the receiver, a malformed frame); the
 * side that sends it closes the connection.  Frames are bounded (MTS_PAYLOAD_MAX): a receiver
 * needs one frame's buffer per connection.
 */
#ifndef MTRACE_STREAM_H
#define MTRACE_STREAM_H
#include <stdint.h>

#define MTS_MAGIC          "MTSTREAM"      /* HELLO's payload begins with it: 8 bytes */
#define MTS_MAGIC_LEN      8
#define MTS_VERSION        2               /* what senders announce when they may compress */
#define MTS_VERSION_OLDEST 1               /* receivers read versions OLDEST..VERSION */
#define MTS_HEAD_SIZE      16u
#define MTS_DATA_MAX       (1u << 20)      /* bytes of a DATA frame's range */
#define MTS_PAYLOAD_MAX    (MTS_DATA_MAX + 16u)
#define MTS_TEXT_MAX       1024u           /* ERROR's text, a host or a file name */
#define MTS_NAME_MAX       255u
#define MTS_FILES_MAX      65535u          /* file ids of one connection: 1..MTS_FILES_MAX */

enum mts_type {
	MTS_HELLO  = 1,    /* s->r  id 0; magic, u16 version, u16 host length, host */
	MTS_FILE   = 2,    /* s->r  u32 flags (MTS_FILE_*), i32 pid, u16 name length, name */
	MTS_DATA   = 3,    /* s->r  u64 offset, u64 seq, the bytes at offset (<= MTS_DATA_MAX) */
	MTS_HEADER = 4,    /* s->r  u64 file size so far, u64 seq, the header's bytes (at 0) */
	MTS_END    = 5,    /* s->r  u64 final file size, u64 seq */
	MTS_RESUME = 6,    /* s->r  u64 the lowest offset sent again */
	MTS_ACK    = 7,    /* r->s  u64 seq: every frame of file id up to seq is on disk */
	MTS_ERROR  = 8,    /* both  text; id 0: the whole connection */
	MTS_ZDATA  = 9,    /* s->r  (version 2) u64 offset, u64 seq, u32 raw length
	                          (1..MTS_DATA_MAX), u32 codec, the range's bytes packed */
	MTS_TYPE_MAX = 9
};

enum mts_codec {
	MTS_CODEC_SLOTS = 1     /* 32-byte units XORed with the one before, zero bytes dropped
	                           (tools/lib/format/stream_pack.h) */
};

#define MTS_FILE_RESUME    0x1u    /* part of the file was acknowledged before: keep it */

/* The 16 bytes before each payload */
struct mts_head {
	uint8_t  type;             /* enum mts_type */
	uint8_t  zero[3];
	uint32_t id;               /* file id; 0 for HELLO and a connection's ERROR */
	uint32_t len;              /* payload bytes, <= MTS_PAYLOAD_MAX */
	uint32_t reserved;         /* zero */
};
_Static_assert(sizeof(struct mts_head) == MTS_HEAD_SIZE, "frame head is 16 bytes");

static inline void mts_put16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8);
}
static inline void mts_put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> 8 * i);
}
static inline void mts_put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> 8 * i);
}
static inline uint16_t mts_get16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint32_t mts_get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t mts_get64(const unsigned char *p)
{
	return mts_get32(p) | (uint64_t)mts_get32(p + 4) << 32;
}

/* A frame head into its 16 bytes on the wire */
static inline void mts_put_head(unsigned char *p, unsigned type, uint32_t id, uint32_t len)
{
	p[0] = (unsigned char)type, p[1] = p[2] = p[3] = 0;
	mts_put32(p + 4, id);
	mts_put32(p + 8, len);
	mts_put32(p + 12, 0);
}
#endif
