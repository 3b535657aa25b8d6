/* libstk_rb: libstk_ra's twin (see there), allocating 3232 from a frame of 32 bytes */
#include <stdlib.h>

#if defined(__x86_64__)
__asm__(".text\n"
	".globl stk_r_alloc\n"
	".type stk_r_alloc, @function\n"
	"stk_r_alloc:\n"
	".cfi_startproc\n"
	"push %rbx\n"                 /* 1 + 1 + 2 bytes, as libstk_ra's sub */
	".cfi_def_cfa_offset 16\n"
	".cfi_offset %rbx, -16\n"
	"push %rbp\n"
	".cfi_def_cfa_offset 24\n"
	".cfi_offset %rbp, -24\n"
	"push %r12\n"
	".cfi_def_cfa_offset 32\n"
	".cfi_offset %r12, -32\n"
	"mov $3232, %edi\n"
	"call malloc@PLT\n"
	"pop %r12\n"
	".cfi_def_cfa_offset 24\n"
	"pop %rbp\n"
	".cfi_def_cfa_offset 16\n"
	"pop %rbx\n"
	".cfi_def_cfa_offset 8\n"
	"ret\n"
	".cfi_endproc\n"
	".size stk_r_alloc, .-stk_r_alloc\n");
#else
__attribute__((noinline)) void *stk_r_alloc(void)
{
	void *p = malloc(3232);
	__asm__ volatile("");
	return p;
}
#endif
