/* libctlprobe - preloaded beside an allocator: at exit, appends to $CTLPROBE_OUT what the
 * allocator says of the options a program may set as it runs (jemalloc's background thread,
 * mimalloc's options 14 and 3), or "none" where it is neither: the settings a replay ran with,
 * as the allocator took them. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int mallctl(const char *, void *, size_t *, void *, size_t) __attribute__((weak));
long mi_option_get(int) __attribute__((weak));

__attribute__((destructor)) static void report(void)
{
	const char *out = getenv("CTLPROBE_OUT");
	if (!out)
		return;
	char line[128];
	bool on = false;
	size_t len = sizeof on;
	if (mallctl && mallctl("background_thread", &on, &len, NULL, 0) == 0)
		snprintf(line, sizeof line, "jemalloc background_thread %d\n", (int)on);
	else if (mi_option_get)
		snprintf(line, sizeof line, "mimalloc 14 %ld 3 %ld\n", mi_option_get(14),
			 mi_option_get(3));
	else
		snprintf(line, sizeof line, "none\n");
	int fd = open(out, O_WRONLY | O_APPEND | O_CREAT, 0600);
	if (fd >= 0) {
		ssize_t w = write(fd, line, strlen(line));
		(void)w;
		close(fd);
	}
}
