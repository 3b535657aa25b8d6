/* api_secure - opens a trace with the default name and prints where it went: run setuid, the
 * environment (MTRACE_CTL_FILE) must not choose the file. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "mtrace.h"

int main(void)
{
	if (mtrace_init(NULL) != 0) {
		perror("mtrace_init");
		return 1;
	}
	printf("%s\n", mtrace_file());
	mtrace_stop();
	return 0;
}
