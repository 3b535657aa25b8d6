/* libstk_ra: one function, stk_r_alloc, allocating 3131 from a frame of 16 bytes (CFA rsp+16).
   libstk_rb has the same layout, its call's return address at the same offset, from a frame of
   32 (CFA rsp+32): t_capture_stacks opens one after the other at the same address, so a rule
   kept for this one's pc would unwind that one's frame wrong. */
#include <stdlib.h>

#if defined(__x86_64__)
__asm__(".text\n"
	".globl stk_r_alloc\n"
	".type stk_r_alloc, @function\n"
	"stk_r_alloc:\n"
	".cfi_startproc\n"
	"sub $8, %rsp\n"              /* 4 bytes, as libstk_rb's three pushes */
	".cfi_def_cfa_offset 16\n"
	"mov $3131, %edi\n"
	"call malloc@PLT\n"
	"add $8, %rsp\n"
	".cfi_def_cfa_offset 8\n"
	"ret\n"
	".cfi_endproc\n"
	".size stk_r_alloc, .-stk_r_alloc\n");
#else
__attribute__((noinline)) void *stk_r_alloc(void)
{
	void *p = malloc(3131);
	__asm__ volatile("");
	return p;
}
#endif
