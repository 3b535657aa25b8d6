/* ctl_secure - linked against libmtracectl.so, as a machine-wide preload would bring it into a
 * setuid program: prints the trace it records to, or "dormant".  Run setuid, the invoking
 * user's MTRACE_CTL_START=0 must not keep it from recording. */
#include <stdio.h>
#include <stdlib.h>
#include "mtrace.h"

int main(void)
{
	free(malloc(10));
	const char *f = mtrace_file();
	printf("%s\n", f ? f : "dormant");
	return 0;
}
