/* api_split - one process, two trace files: blocks allocated while the first is written are
 * freed while the second is (mtrace_stop then mtrace_start opens BASE.<pid>.1).  api_split BASE */
#include <stdio.h>
#include <stdlib.h>
#include "mtrace.h"

int main(int argc, char **argv)
{
	void *p[10];
	if (argc != 2 || mtrace_init(argv[1]) != 0 || mtrace_start() != 0)
		return 1;
	for (int i = 0; i < 10; i++)
		p[i] = malloc(4001);
	mtrace_stop();
	if (mtrace_start() != 0)
		return 1;
	for (int i = 0; i < 10; i++)
		free(p[i]);
	mtrace_stop();
	printf("ok\n");
	return 0;
}
