/* ownfiles - programs whose descriptors, files, root and user change under the tracer, which
 * must never write into the program's files nor close its descriptors (tests/t_ownfiles.sh).
 * Each mode runs correctly untraced; traced it must end the same way.
 *
 *   closer FILE     two threads allocate (3,000,000 pairs between them, the trace grows) and
 *                   one sets a mallopt parameter 200,000 times (the header is rewritten), while
 *                   another, until they are done, closes every descriptor from 3 up
 *                   (close_range) and opens FILE again, writes its 4,096 bytes and reads them
 *                   back; prints "file intact" or what went wrong (the file changed, EBADF)
 *   daemon DATA [keep]   a daemon: closes 0-2, opens /dev/null twice and DATA, which becomes
 *                   its stderr (keep: leaves 0-2 alone and writes to DATA as it is), writes a
 *                   line, removes its own trace file and allocates until the trace must grow
 *                   (the tracer gives up on it), writes a second line; DATA must hold only
 *                   the program's two lines
 *   forks N         a thread maps and unmaps 1 MiB (each munmap takes a memory sample when
 *                   one is due) while a 25 us timer's handler forks in it, until N fork
 *                   children have each listed /proc/self/fd; prints how many children held
 *                   a descriptor their parent did not have at its start
 *   drop [closeall] (root) 1,000 malloc(1001), then setgroups, setresgid and setresuid to
 *                   65534 (nobody), (closeall: closes every descriptor from 3 up,) 400,000
 *                   malloc(1002), a fork child making 1,000 malloc(1003); prints "uid 65534"
 *   chroot DIR      (root) 1,000 malloc(1001), chroot(DIR), a fork child making 10,000
 *                   malloc(1003), then 300,000 malloc(1002); prints "chrooted"
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "hostile.h"

static void sized(long n, size_t size)
{
	for (long i = 0; i < n; i++) {
		void *volatile p = malloc(size);
		free(p);
	}
}

/* ---------------------------------------------------------------------------------------------
   closer: the program's descriptors closed and taken again while the tracer works
   ------------------------------------------------------------------------------------------- */

static volatile int busy_threads;

static void *alloc_thread(void *arg)
{
	pairs((long)(intptr_t)arg, 64);
	__atomic_sub_fetch(&busy_threads, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *mallopt_thread(void *arg)
{
	for (long i = 0; i < (long)(intptr_t)arg; i++)
		mallopt(M_TOP_PAD, 128 * 1024);
	__atomic_sub_fetch(&busy_threads, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int closer_mode(const char *path)
{
	static char mine[4096], back[4096];
	memset(mine, 'P', sizeof mine);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || pwrite(fd, mine, sizeof mine, 0) != (ssize_t)sizeof mine)
		return 2;
	busy_threads = 3;
	pthread_t t[3];
	pthread_create(&t[0], NULL, alloc_thread, (void *)(intptr_t)1500000);
	pthread_create(&t[1], NULL, alloc_thread, (void *)(intptr_t)1500000);
	pthread_create(&t[2], NULL, mallopt_thread, (void *)(intptr_t)200000);
	long rounds = 0, ebadf = 0, changed = 0;
	while (__atomic_load_n(&busy_threads, __ATOMIC_ACQUIRE) > 0 && rounds < 50000000) {
		rounds++;
		syscall(SYS_close_range, 3u, ~0u, 0u);
		fd = open(path, O_RDWR);
		if (fd < 0)
			return 2;
		if (pwrite(fd, mine, sizeof mine, 0) != (ssize_t)sizeof mine)
			ebadf += errno == EBADF;
		struct stat st;
		if (fstat(fd, &st) != 0 || pread(fd, back, sizeof back, 0) != (ssize_t)sizeof back)
			ebadf += errno == EBADF;
		else if (st.st_size != (off_t)sizeof mine || memcmp(back, mine, sizeof mine) != 0)
			changed++;
	}
	if (close(fd) != 0)
		ebadf += errno == EBADF;
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	if (ebadf || changed)
		printf("%ld of %ld rounds found the file changed, %ld calls failed with EBADF\n",
		       changed, rounds, ebadf);
	else
		printf("file intact\n");
	return 0;
}

/* ---------------------------------------------------------------------------------------------
   daemon: stderr replaced by a data file, then a reason for the tracer to warn
   ------------------------------------------------------------------------------------------- */

static int daemon_mode(const char *data, int keep)
{
	sized(1000, 1001);
	const char *(*trace_file)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "mtrace_file");
	const char *trace = trace_file ? trace_file() : NULL;
	int fd = 2;
	if (!keep) {
		close(0);
		close(1);
		close(2);
		if (open("/dev/null", O_RDONLY) != 0 || open("/dev/null", O_WRONLY) != 1)
			return 2;
		fd = open(data, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd != 2)
			return 3;
	}
	dprintf(fd, "program data\n");
	if (trace)
		unlink(trace);
	sized(400000, 1002);   /* 25 MB of trace: it must grow */
	dprintf(fd, "program done\n");
	return 0;
}

/* ---------------------------------------------------------------------------------------------
   forks: what a fork child finds in its descriptor table
   ------------------------------------------------------------------------------------------- */

/* How many descriptors beyond 0-2 the process holds, by system calls alone: a fork child that
   makes no allocator call, and leaves by exit_group, costs the tracer a small file only. */
static int extra_fds(void)
{
	int d = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/fd", O_RDONLY | O_DIRECTORY, 0);
	if (d < 0)
		return 100;
	char buf[4096];
	int n = 0;
	for (long got; (got = syscall(SYS_getdents64, d, buf, sizeof buf)) > 0;)
		for (long at = 0; at < got;) {
			struct dirent64 *e = (struct dirent64 *)(buf + at);
			int fd = atoi(e->d_name);
			n += e->d_name[0] != '.' && fd > 2 && fd != d;
			at += e->d_reclen;
		}
	syscall(SYS_close, d);
	return n;
}

/* A thread that maps and unmaps 1 MiB over and over (before each munmap the tracer takes a
   memory sample once a tenth of its interval has passed) with a 25 us timer whose handler,
   every fourth tick, forks: a child made while the thread was in the middle of a sample. */
static int fork_before = -1, fork_left, fork_ticks, fork_holding;

static void fork_tick(int sig)
{
	(void)sig;
	if (fork_left <= 0 || ++fork_ticks % 4)
		return;
	int e = errno, st;
	pid_t c = fork();
	if (c == 0)
		syscall(SYS_exit_group, extra_fds());
	if (c > 0 && waitpid(c, &st, 0) == c) {
		fork_holding += !WIFEXITED(st) || WEXITSTATUS(st) != fork_before;
		fork_left--;
	}
	errno = e;
}

static void *sampled(void *arg)
{
	(void)arg;
	struct sigevent ev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGUSR1 };
	ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);   /* (sigev_notify_thread_id) */
	timer_t tm;
	struct itimerspec every = { { 0, 25000 }, { 0, 25000 } };
	if (timer_create(CLOCK_MONOTONIC, &ev, &tm) != 0 || timer_settime(tm, 0, &every, NULL) != 0)
		return (void *)1;
	for (long i = 0; i < 100000000 && __atomic_load_n(&fork_left, __ATOMIC_RELAXED) > 0; i++) {
		char *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		if (p == MAP_FAILED)
			break;
		p[0] = 1;
		munmap(p, 1 << 20);
	}
	timer_delete(tm);
	return NULL;
}

static int forks_mode(int n)
{
	fork_before = extra_fds();   /* (what the process inherited) */
	fork_left = n;
	struct sigaction sa = { .sa_handler = fork_tick };
	sigaction(SIGUSR1, &sa, NULL);
	pthread_t t;
	void *r;
	if (pthread_create(&t, NULL, sampled, NULL) != 0 || pthread_join(t, &r) != 0 || r != NULL)
		return 2;
	printf("%d of %d children held a descriptor of the tracer's\n", fork_holding,
	       n - fork_left);
	return 0;
}

/* ---------------------------------------------------------------------------------------------
   drop, chroot: the file out of reach by name
   ------------------------------------------------------------------------------------------- */

static int child_then_wait(long calls, size_t size)
{
	pid_t c = fork();
	if (c == 0) {
		sized(calls, size);
		exit(0);
	}
	int st;
	return c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int drop_mode(int closeall)
{
	sized(1000, 1001);
	gid_t none[1] = { 65534 };
	if (setgroups(1, none) != 0 || setresgid(65534, 65534, 65534) != 0 ||
	    setresuid(65534, 65534, 65534) != 0) {
		perror("drop");
		return 2;
	}
	if (closeall)
		syscall(SYS_close_range, 3u, ~0u, 0u);
	sized(400000, 1002);
	if (child_then_wait(1000, 1003) != 0)
		return 3;
	printf("uid %d\n", (int)geteuid());
	return 0;
}

static int chroot_mode(const char *dir)
{
	sized(1000, 1001);
	if (chroot(dir) != 0 || chdir("/") != 0) {
		perror("chroot");
		return 2;
	}
	if (child_then_wait(10000, 1003) != 0)
		return 3;
	sized(300000, 1002);
	printf("chrooted\n");
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *mode = argc > 1 ? argv[1] : "", *arg = argc > 2 ? argv[2] : "";
	if (strcmp(mode, "closer") == 0 && *arg)
		return closer_mode(arg);
	if (strcmp(mode, "daemon") == 0 && *arg)
		return daemon_mode(arg, argc > 3 && strcmp(argv[3], "keep") == 0);
	if (strcmp(mode, "forks") == 0)
		return forks_mode(atoi(arg));
	if (strcmp(mode, "drop") == 0)
		return drop_mode(strcmp(arg, "closeall") == 0);
	if (strcmp(mode, "chroot") == 0 && *arg)
		return chroot_mode(arg);
	fprintf(stderr, "usage: %s closer FILE | daemon DATA [keep] | forks N | drop [closeall] | "
		"chroot DIR\n", argv[0]);
	return 2;
}
