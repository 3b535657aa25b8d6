/* trace_dj.c - original dj/malloc traces, read as mtrace records. */
#include <string.h>
#include "trace_reader_int.h"

/* ---------------------------------------------------------------------------------------------
   Original dj/malloc traces: int32 thread; uint32 type (low 8 bits); void *ptr1, *ptr2;
   size_t size, size2, size3, pad[2]; the first record is type 255 with ptr1 = 0x1234 and
   size = sizeof(void *).  Native byte order, 64-bit.
   ------------------------------------------------------------------------------------------- */

struct dj_record {
	int32_t thread;
	uint32_t type;
	uint64_t ptr1, ptr2, size, size2, size3, pad[2];
};

int trace_dj_is(const unsigned char *b, size_t n)
{
	struct dj_record d;
	if (n < sizeof d)
		return 0;
	memcpy(&d, b, sizeof d);
	return (d.type & 0xff) == 255 && d.ptr1 == 0x1234 && d.size == 8;
}

int trace_dj_open(struct trace_reader *r)
{
	r->format = TRACE_FMT_DJ;
	memset(&r->hdr, 0, sizeof r->hdr);
	memcpy(r->hdr.magic, MTRACE_MAGIC, MTRACE_MAGIC_LEN);
	r->hdr.byte_order_mark = MTRACE_BYTE_ORDER_MARK;
	r->hdr.version = MTRACE_FORMAT_VERSION;
	r->hdr.record_size = sizeof(struct dj_record);
	r->hdr.pointer_size = 8;
	r->hdr.clock = MTRACE_CLOCK_NONE;   /* no clock: ts is the record index */
	r->hdr.ticks_per_sec = 1;
	r->offset = 0;
	return 0;
}

/* One dj record as an mtrace record; 0 to skip it, -1 if it is bad. */
int trace_dj_convert(struct trace_reader *r, const unsigned char *p, struct mtrace_record *rec,
		     const char **bad)
{
	struct dj_record d;
	memcpy(&d, p, sizeof d);
	unsigned type = d.type & 0xff;
	memset(rec, 0, sizeof *rec);
	rec->tid = (uint32_t)d.thread;
	rec->ts = r->seq++;
	switch (type) {
	case 0: case 255:
		return 0;   /* unused slot; the magic record */
	case 1: case 6: case 7:           /* malloc, valloc, pvalloc: ptr2 = f(size) */
		rec->size = d.size;
		rec->result = d.ptr2;
		break;
	case 2:                           /* calloc: size is the total */
		rec->size = d.size;
		rec->arg2 = 1;
		rec->result = d.ptr2;
		break;
	case 3:
		rec->ptr = d.ptr1;
		break;
	case 4:
		rec->ptr = d.ptr1;
		rec->result = d.ptr2;
		rec->size = d.size;
		break;
	case 5:                           /* memalign: size2 = alignment */
		rec->size = d.size;
		rec->arg2 = d.size2;
		rec->result = d.ptr2;
		break;
	case 8:                           /* posix_memalign: ptr1 = return value */
		rec->size = d.size;
		rec->arg2 = d.size2;
		rec->err = (uint16_t)d.ptr1;
		rec->result = d.ptr1 ? 0 : d.ptr2;
		if (d.ptr1)
			rec->flags |= MTRACE_RF_FAILED;
		break;
	default:
		*bad = "unknown dj record type";
		return -1;
	}
	rec->call = (uint8_t)type;
	if (type != 3 && type != 8 && rec->result == 0 && !(type == 4 && d.size == 0 && d.ptr1))
		rec->flags |= MTRACE_RF_FAILED;
	return 1;
}
