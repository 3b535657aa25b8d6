/* procstat.c - the process as the kernel reports it: for the populating thread (populate.c),
 * whether the seccomp filters in force are the program's own or were there when it started, and
 * whether the calling thread is alone in the process; a mapping of /proc/self/maps, for the
 * stack walk (walk.c) and the clock (the vDSO's data page, clock_watch.c).  /proc read through
 * mt_fds_read_proc (fds.c), or with system calls: no stdio, no allocation.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "mt_int.h"

/* ---------------------------------------------------------------------------------------------
   Seccomp: the filters in force at initialisation, to tell the program's own from inherited ones
   ------------------------------------------------------------------------------------------- */

static int seccomp_mode_at_init;
static long seccomp_filters_at_init = -1;

/* "Seccomp_filters:" of /proc/self/status (Linux 5.9), or -1.  Not under lock. */
static long seccomp_filters(void)
{
	static char buf[8192];   /* used at initialisation and by the one thread starting us */
	struct mt_lock_state ls;
	mt_lock(&ls);   /* (no fork copies the descriptor) */
	ssize_t n = mt_fds_read_proc("/proc/self/status", buf, sizeof buf);
	mt_unlock(&ls);
	if (n < 0)
		return -1;
	const char *p = strstr(buf, "\nSeccomp_filters:");
	if (p == NULL)
		return -1;
	p += sizeof "\nSeccomp_filters:" - 1;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p < '0' || *p > '9')
		return -1;
	return (long)mt_procstat_dec(&p);
}

void mt_procstat_init(void)
{
	seccomp_mode_at_init = mt_real_prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
	if (seccomp_mode_at_init > 0)
		seccomp_filters_at_init = seccomp_filters();
}

/* No filter, or only those the program was started under. */
int mt_procstat_seccomp_allows(void)
{
	int mode = mt_real_prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
	if (mode == 0)
		return 1;
	if (mode != 2 || seccomp_mode_at_init != 2 || seccomp_filters_at_init < 0)
		return 0;   /* strict mode, a filter installed since, or nothing to compare with */
	return seccomp_filters() == seccomp_filters_at_init;
}

/* ---------------------------------------------------------------------------------------------
   Is the thread alone in the process?
   ------------------------------------------------------------------------------------------- */

/* The digits at *s as a number (0 if none), *s moved past them. */
uint64_t mt_procstat_dec(const char **s)
{
	uint64_t v = 0;
	while (**s >= '0' && **s <= '9')
		v = v * 10 + (uint64_t)(*(*s)++ - '0');
	return v;
}

/* From /proc/self/stat: the main thread's state (field 3) and num_threads (field 20), which
   counts a main thread that has ended by pthread_exit (a zombie until the process ends).
   0, or -1 if unknown. */
static int stat_threads(char *state, uint64_t *threads)
{
	char buf[1024];
	if (mt_fds_read_proc("/proc/self/stat", buf, sizeof buf) < 0)
		return -1;
	const char *p = strrchr(buf, ')');   /* the command name may hold anything */
	if (p == NULL || p[1] != ' ')
		return -1;
	*state = p[2];
	p += 2;
	for (int field = 3; field < 20; field++) {   /* on to field 20 */
		p = strchr(p, ' ');
		if (p == NULL)
			return -1;
		p++;
	}
	*threads = mt_procstat_dec(&p);
	return 0;
}

/* 1 alone, 0 not or unknown. */
int mt_procstat_alone(void)
{
	char state;
	uint64_t threads;
	if (stat_threads(&state, &threads) < 0)
		return 0;
	return threads == 1 || (threads == 2 && state == 'Z');
}

int mt_procstat_threads(void)
{
	char state;
	uint64_t threads;
	return stat_threads(&state, &threads) < 0 ? 0 : (int)threads;
}

/* ---------------------------------------------------------------------------------------------
   A mapping of /proc/self/maps
   ------------------------------------------------------------------------------------------- */

/* Under lock (the descriptor: no fork() child inherits it): the mapping that holds addr (name
   NULL) or whose name is name, read with system calls through a buffer on the stack (a maps
   file may be longer than any buffer): 1 and [lo, hi), or 0.  A line's fields: lo-hi, then
   five separated by spaces (perms, offset, device, inode, name), the name to the line's end. */
int mt_procstat_mapping(uintptr_t addr, const char *name, uintptr_t *lo, uintptr_t *hi)
{
	MT_ASSERT_LOCKED();
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	char buf[2048];
	const size_t len = name ? strlen(name) : 0, miss = SIZE_MAX;
	uintptr_t a = 0, b = 0;
	size_t m = 0;   /* the characters of name the line's name matched so far, or miss */
	int field = 0, gap = 0, found = 0;
	for (unsigned reads = 0; reads < 65536 && !found; reads++) {
		long n = syscall(SYS_read, fd, buf, sizeof buf);
		if (n <= 0)
			break;
		for (long i = 0; i < n && !found; i++) {
			char ch = buf[i];
			int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ?
				ch - 'a' + 10 : -1;
			if (ch == '\n') {
				found = name && field == 6 && m == len;
				if (!found)
					field = gap = 0, a = b = 0, m = 0;
			} else if (field == 0 && d >= 0)
				a = a << 4 | (uintptr_t)d;
			else if (field == 0 && ch == '-')
				field = 1;
			else if (field == 1 && d >= 0)
				b = b << 4 | (uintptr_t)d;
			else if (field == 1) {
				field = 2;
				found = !name && addr >= a && addr < b;
			} else if (field < 6 && ch == ' ')
				gap = 1;
			else {
				if (gap)
					field++, gap = 0;
				if (field == 6 && name && m != miss)
					m = m < len && name[m] == ch ? m + 1 : miss;
			}
		}
	}
	syscall(SYS_close, fd);
	if (found) {
		*lo = a;
		*hi = b;
	}
	return found;
}
