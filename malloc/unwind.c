/* unwind.c - the return addresses of the calling thread's stack, for stacks.c.
 *
 * One frame: the return address of the allocator call in the program, which the entry point
 * reads itself (__builtin_return_address(0)).  Deeper stacks need the .eh_frame tables (the
 * program's code keeps no frame pointers): not done yet, on any architecture.
 */
#define _GNU_SOURCE
#include "mt_int.h"

unsigned mt_unwind(uintptr_t *frames, unsigned max, uintptr_t ret)
{
	if (max == 0 || ret == 0)
		return 0;
	frames[0] = ret;
	return 1;
}
