/* lat_hist.c - see lat_hist.h */
#include <errno.h>
#include <stdio.h>
#include "lat_hist.h"
#include "tool.h"

const char *const lat_class_names[LAT_CLASSES] = { "malloc", "calloc", "realloc", "free", "memalign" };

int lat_write_tsv(int fd, const char *title, const uint64_t (*b)[HIST_BUCKETS], const uint64_t *max)
{
	static char buf[1 << 16];   /* static: trace_run writes this with the allocator under test */
	size_t n = (size_t)snprintf(buf, sizeof buf, "# %s\nclass\tcycles\tcalls\tat_or_below\n", title);
	if (n >= sizeof buf)
		n = sizeof buf - 1;
	for (unsigned c = 0; c < LAT_CLASSES && b; c++) {
		uint64_t total = 0, seen = 0;
		for (unsigned i = 0; i < HIST_BUCKETS; i++)
			total += b[c][i];
		for (unsigned i = 0; i < HIST_BUCKETS; i++) {
			if (!b[c][i])
				continue;
			seen += b[c][i];
			uint64_t upper = hist_upper(i) < max[c] ? hist_upper(i) : max[c];
			if (n > sizeof buf - 128) {   /* (a row is under 80 bytes) */
				if (tool_write_all(fd, buf, n) < 0)
					return -1;
				n = 0;
			}
			n += (size_t)snprintf(buf + n, sizeof buf - n, "%s\t%llu\t%llu\t%.9g\n", lat_class_names[c],
					      (unsigned long long)upper, (unsigned long long)b[c][i],
					      (double)seen / (double)total);
		}
	}
	return tool_write_all(fd, buf, n);
}
