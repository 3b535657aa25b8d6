/* api_pretrace - frees a block allocated before tracing started, then makes one call more.
 *   api_pretrace BASE */
#include <stdio.h>
#include <stdlib.h>
#include "mtrace.h"

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	void *before = malloc(2011);
	if (mtrace_init(argv[1]) != 0 || mtrace_start() != 0)
		return 1;
	free(before);             /* the trace never saw it allocated */
	free(malloc(2012));
	mtrace_stop();
	printf("%s\n", mtrace_file() ? "still open?" : "done");
	return 0;
}
