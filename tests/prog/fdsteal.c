/* fdsteal - a program that takes the tracer's descriptor number over: it finds the trace among
 * its descriptors, closes it, puts a file of its own on that number (dup2), writes to it and
 * ends after too few calls for the trace to grow.  The tracer must leave that file alone at the
 * end (no header written into it, no truncation, no close): it finishes its trace by opening
 * it again by name.
 *   fdsteal OWN_FILE TRACE_BASE */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	int fd = -1;
	DIR *d = opendir("/proc/self/fd");
	for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
		char link[64], to[4096];
		snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
		ssize_t n = readlink(link, to, sizeof to - 1);
		if (n > 0 && (to[n] = 0, !strncmp(to, argv[2], strlen(argv[2]))))
			fd = atoi(e->d_name);
	}
	if (d)
		closedir(d);
	if (fd < 0) {
		printf("no trace among the descriptors\n");
		return 3;
	}
	close(fd);
	int own = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (own < 0 || dup2(own, fd) < 0)
		return 4;
	close(own);
	char block[8192];
	memset(block, 'x', sizeof block);
	if (write(fd, block, sizeof block) != (ssize_t)sizeof block)
		return 5;
	for (int i = 0; i < 100; i++)
		free(malloc(100));
	printf("took %d\n", fd);
	return 0;
}
