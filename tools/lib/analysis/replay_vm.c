/* replay_vm.c - see replay_vm.h */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include "replay_vm.h"

/* Validation's own memory, none of it from the allocator under test (it may be preloaded
   already).  Tables below VM_MAPPED are cut in order from one scratch mapping, the last one
   grown in place, and the mapping is reused from its start once every table cut from it is
   freed (a mapping a table, a system call or two each, made validating a small workload - and
   fuzzing it - ten times slower).  Larger tables are mapped, grown by mremap and unmapped:
   given back whole before the replay, whose Max RSS would otherwise start above them. */
#define VM_MAPPED ((size_t)64 << 10)
#define SCRATCH_BYTES ((size_t)1 << 20)

static struct { char *base; size_t used; unsigned live; } scratch;

static int in_scratch(const void *p)
{
	return scratch.base && (const char *)p >= scratch.base &&
	       (const char *)p < scratch.base + SCRATCH_BYTES;
}

void replay_vm_free(void *p, size_t cap)
{
	if (!p)
		return;
	if (!in_scratch(p))
		munmap(p, cap);
	else if (--scratch.live == 0)
		scratch.used = 0;
	else if ((char *)p + cap == scratch.base + scratch.used)
		scratch.used -= cap;   /* the last one cut */
}

/* p (cap bytes, or NULL) moved or grown to n bytes in the scratch mapping; NULL if it is full */
static void *scratch_grow(void *p, size_t cap, size_t n)
{
	if (!scratch.base) {
		void *m = mmap(NULL, SCRATCH_BYTES, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		scratch.base = m;
	}
	if (p && in_scratch(p) && (char *)p + cap == scratch.base + scratch.used &&
	    scratch.used - cap + n <= SCRATCH_BYTES) {
		scratch.used += n - cap;
		memset((char *)p + cap, 0, n - cap);   /* (reused bytes are not zero) */
		return p;
	}
	if (n > SCRATCH_BYTES - scratch.used)
		return NULL;
	char *q = scratch.base + scratch.used;
	scratch.used += n;   /* every size a power of two from 256: cuts stay aligned */
	scratch.live++;
	memset(q, 0, n);
	if (p) {
		memcpy(q, p, cap);
		replay_vm_free(p, cap);
	}
	return q;
}

void *replay_vm_grow(void *p, size_t *cap, size_t need)
{
	if (need <= *cap)
		return p;
	if (need > SIZE_MAX / 2)
		return NULL;
	size_t n = *cap ? *cap : 256;
	while (n < need)
		n *= 2;
	void *q = n < VM_MAPPED ? scratch_grow(p, *cap, n) : NULL;
	if (q == NULL && p && !in_scratch(p) && *cap >= VM_MAPPED) {
		if ((q = mremap(p, *cap, n, MREMAP_MAYMOVE)) == MAP_FAILED)
			return NULL;
	} else if (q == NULL) {
		q = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (q == MAP_FAILED)
			return NULL;
		if (p)
			memcpy(q, p, *cap);
		replay_vm_free(p, *cap);
	}
	*cap = n;
	return q;
}

void *replay_vm_alloc(size_t bytes)
{
	size_t cap = 0;
	return replay_vm_grow(NULL, &cap, bytes);
}
