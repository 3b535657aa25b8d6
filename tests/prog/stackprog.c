/* stackprog - test helper: a program with known functions that writes its own version-5 trace
 * with the shared writer, as the capture would: an OBJECT record for itself (its path, load
 * bias, mapped range and build id, from dl_iterate_phdr), one for a library that is unloaded
 * before the end (libgone.so, a made-up range), STACK records of the real return addresses of
 * its calls, and each malloc preceded by its CALLER.
 *
 *   stackprog OUT     writes the trace; prints one line per function: NAME FILE:LINE of the
 *                     call it recorded (the line the tests expect addr2line to give)
 *
 * alloc_alpha makes 3 blocks of 100 bytes, alloc_beta 2 of 7,000, then one of 50 in libgone.so
 * and one of 33 by a function named as C++ names cache::fill(unsigned long); each stack is the
 * return address in the function then the one in main.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "trace_writer.h"

static struct trace_writer w;
static uint64_t ts = 1000;
static uint32_t next_stack = 1;

/* The return address of the call that called it: a frame as the capture records it */
#define HERE() ((uint64_t)(uintptr_t)__builtin_extract_return_addr(__builtin_return_address(0)))

static __attribute__((noinline)) uint64_t where(void)
{
	return HERE();
}

static void put_malloc(uint32_t stack, uint64_t ret, size_t size)
{
	void *p = malloc(size);
	struct mtrace_record r = { .tid = (uint32_t)getpid(), .call = MTRACE_CALL_MALLOC,
				   .ts = ts++, .size = size, .result = (uintptr_t)p,
				   .usable = size };
	if (trace_writer_put_caller(&w, &r, stack, ret) < 0)
		tool_die_err(&w.err);
}

static void put_stack(uint32_t id, const uint64_t *f, unsigned n)
{
	if (trace_writer_stack(&w, id, ts++, f, n) < 0)
		tool_die_err(&w.err);
}

static __attribute__((noinline)) void alloc_alpha(uint64_t outer)
{
	uint64_t f[2] = { where(), outer };   /* LINE_ALPHA */
	uint32_t id = next_stack++;
	put_stack(id, f, 2);
	for (int i = 0; i < 3; i++)
		put_malloc(id, f[0], 100);
	printf("alloc_alpha %s:%d\n", __FILE__, __LINE__ - 5);
}

static __attribute__((noinline)) void alloc_beta(uint64_t outer)
{
	uint64_t f[2] = { where(), outer };   /* LINE_BETA */
	uint32_t id = next_stack++;
	put_stack(id, f, 2);
	for (int i = 0; i < 2; i++)
		put_malloc(id, f[0], 7000);
	printf("alloc_beta %s:%d\n", __FILE__, __LINE__ - 5);
}

/* A C++ function as the compiler names it (cache::fill(unsigned long)), for demangling */
static void alloc_gamma(uint64_t outer) __asm__("_ZN5cache4fillEm");
static __attribute__((noinline, used)) void alloc_gamma(uint64_t outer)
{
	uint64_t f[2] = { where(), outer };
	uint32_t id = next_stack++;
	put_stack(id, f, 2);
	put_malloc(id, f[0], 33);
}

/* The executable's object: the first dl_iterate_phdr names */
static int put_self(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	uint64_t lo = UINT64_MAX, hi = 0;
	const unsigned char *bid = NULL;
	unsigned bid_len = 0;
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD) {
			if (info->dlpi_addr + ph->p_vaddr < lo)
				lo = info->dlpi_addr + ph->p_vaddr;
			if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
				hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
		}
		if (ph->p_type != PT_NOTE)
			continue;
		const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		for (size_t at = 0; at + 12 <= ph->p_memsz;) {
			const ElfW(Nhdr) *n = (const void *)(p + at);
			size_t name = at + 12, desc = name + ((n->n_namesz + 3) & ~3u);
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    n->n_descsz <= MTRACE_BUILD_ID_MAX) {
				bid = p + desc;
				bid_len = n->n_descsz;
			}
			at = desc + ((n->n_descsz + 3) & ~3u);
		}
	}
	char exe[4096];
	ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[k > 0 ? k : 0] = 0;
	struct trace_writer_object o = { .id = 1, .ts = ts++, .bias = info->dlpi_addr, .lo = lo,
					 .hi = hi, .build_id = bid, .build_id_len = bid_len,
					 .path = exe };
	if (trace_writer_object(&w, &o) < 0)
		tool_die_err(&w.err);
	return 1;   /* the executable only */
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fputs("usage: stackprog OUT\n", stderr);
		return 2;
	}
	tool_set_name("stackprog", argv);
	if (trace_writer_open(&w, argv[1], getpid(), NULL) < 0)
		tool_die_err(&w.err);
	struct mtrace_file_header *h = trace_writer_header(&w);
	h->flags |= MTRACE_HF_STACKS;
	h->stack_depth = 8;
	struct mtrace_record first = { .tid = (uint32_t)getpid(), .call = MTRACE_CALL_MALLOC,
				       .ts = ts++, .size = 1, .result = 0x1000, .usable = 1 };
	if (trace_writer_put(&w, &first) < 0)   /* (a record without CALLER: id 0) */
		tool_die_err(&w.err);
	dl_iterate_phdr(put_self, NULL);
	alloc_alpha(where());
	alloc_beta(where());
	/* a library loaded at 0x7e0000000000, a stack in it, then unloaded */
	struct trace_writer_object gone = { .id = 2, .ts = ts++, .bias = 0x7e0000000000,
					    .lo = 0x7e0000000000, .hi = 0x7e0000010000,
					    .path = "/nonexistent/libgone.so" };
	if (trace_writer_object(&w, &gone) < 0)
		tool_die_err(&w.err);
	uint64_t f[1] = { 0x7e0000001235 };
	uint32_t id = next_stack++;
	put_stack(id, f, 1);
	put_malloc(id, f[0], 50);
	gone.unloaded = 1;
	gone.ts = ts++;
	if (trace_writer_object(&w, &gone) < 0)
		tool_die_err(&w.err);
	alloc_gamma(where());
	if (trace_writer_finish(&w) < 0)
		tool_die_err(&w.err);
	return 0;
}
