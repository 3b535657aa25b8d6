/* fdcheck - a program that expects its first open() to return 3 and, like a daemon, then
 * closes every descriptor (stderr too), opens a log that gets a low number, and keeps
 * allocating until the trace must grow.  Prints what it saw; the log must hold only its lines. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd = open("/dev/null", O_RDONLY);
	printf("first open returned %d\n", fd);
	fflush(stdout);
	close(fd);
	if (argc < 2)
		return 0;
	for (int i = 0; i < 1024; i++)
		close(i);   /* a daemon's closefrom(0), our descriptors included */
	int log = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);   /* gets fd 0 */
	dup2(log, 2);   /* and stderr is now the log */
	dprintf(log, "daemon log line\n");
	for (long i = 0; i < 300000; i++)   /* enough records to need more trace file */
		free(malloc(16 + i % 100));
	dprintf(log, "daemon done\n");
	return 0;
}
