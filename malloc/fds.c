/* fds.c - the tracer's descriptors, checked before every use: it never writes into, reads from
 * or closes a descriptor that is the program's.
 *
 * Any thread of the program may close any number at any moment (close_range(3, ~0U), a
 * daemon's closefrom) and open a file of its own, which gets the lowest free number: a number
 * the tracer opened may name the program's file an instant later.  So every use of one of ours
 * (a write, fallocate, ftruncate, mmap, read, close) comes right after an fstat that finds the
 * device and inode it was opened on; a number that fails the check is the program's, and is
 * neither used nor closed by us again.  The trace's descriptor is moved up near the top of the
 * table (F_DUPFD_CLOEXEC), which the program's open() does not reach while lower numbers are
 * free.  Every descriptor is close-on-exec and, but for those kept below, open only while the
 * lock is held: fork(), whose handlers take the lock, copies none.
 *
 * What remains: the few microseconds between the open of a file (at the lowest free number)
 * and its move up or its close, and those between a check and the call after it.  A thread
 * of the program that closes that very number and opens a file of its own there in between
 * has it used, or closed, by us.
 *
 * A chroot, or a change of user or groups, may put the file out of reach by name.  The tracer
 * sees those calls first (sandbox.c) and from then on keeps three descriptors between calls,
 * high in the table and checked in the same way: the trace file's, its directory's (O_PATH:
 * a fork child creates its file there) and the manifest's.  If the program closes them the
 * file is looked for by name once more; failing that, the trace ends, its header (a shared
 * mapping of the file's first page, which needs no descriptor) saying why.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include "mt_int.h"

struct mt_fd {
	int fd;                 /* -1: none */
	uint64_t dev, ino;      /* the file it was opened on */
};

static struct mt_fd file = { -1, 0, 0 };      /* the trace file, in the program's table */
static int own_fd = -1;       /* the same file in the populating thread's own table */
static struct mt_fd dir = { -1, 0, 0 }, manifest = { -1, 0, 0 };   /* kept (mt_fds_keep_access) */
static char dir_path[sizeof mt_names.base];    /* dir's path, without the last '/' */
static size_t dir_len;
enum { KEEP_ROOT = 1, KEEP_IDS = 2 };
static int keep;              /* descriptors are kept between calls, since a chroot or a change
                                 of user or groups */
static int lost_errno;        /* why the file could not be opened again */

int mt_fds_is(int fd, uint64_t dev, uint64_t ino)
{
	struct stat st;
	return fd >= 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_dev == dev &&
	       (uint64_t)st.st_ino == ino;
}

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static void close_if_ours(int fd, uint64_t dev, uint64_t ino)
{
	int e = errno;
	if (mt_fds_is(fd, dev, ino))
		close(fd);
	errno = e;
}

/* at/name opened; the descriptor if it still names the file at that name (a thread of the
   program may have closed the number and opened a file of its own there already), else -1
   (EAGAIN: the number is left alone). */
static int open_named(int at, const char *name, int flags, mode_t mode, struct mt_fd *f)
{
	struct stat a, b;
	int fd = openat(at, name, flags | O_CLOEXEC, mode);
	if (fd < 0)
		return -1;
	if (fstat(fd, &a) != 0 ||
	    fstatat(at, name, &b, flags & O_NOFOLLOW ? AT_SYMLINK_NOFOLLOW : 0) != 0 ||
	    !same_file(&a, &b)) {
		errno = EAGAIN;
		return -1;
	}
	*f = (struct mt_fd){ fd, a.st_dev, a.st_ino };
	return fd;
}

/* Near the top of the table, below RLIMIT_NOFILE and 1024 (the kernel grows a table to hold
   its highest number), or -1 where the table is too small to be out of the program's way. */
static int high_floor(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return -1;
	rlim_t top = rl.rlim_cur < 1024 ? rl.rlim_cur : 1024;
	return top >= 64 ? (int)(top - top / 8) : -1;
}

/* f->fd (just opened) moved up: 0, or -1 if the number was the program's already. */
static int move_up(struct mt_fd *f)
{
	int floor = high_floor();
	if (floor <= f->fd)
		return 0;
	int h = fcntl(f->fd, F_DUPFD_CLOEXEC, floor);
	if (h < 0)
		return 0;   /* (no number free up there: it stays where it is) */
	if (!mt_fds_is(h, f->dev, f->ino)) {
		close(h);
		return -1;
	}
	close_if_ours(f->fd, f->dev, f->ino);
	f->fd = h;
	return 0;
}

/* ---------------------------------------------------------------------------------------------
   /proc files and the manifest: opened, used and closed under the lock
   ------------------------------------------------------------------------------------------- */

/* Under lock, or in the populating thread's own table: a small file into buf, NUL-terminated;
   its length, or -1.  A read shorter than asked is the end (a /proc file is made whole for
   each read, a command line a page at a time).  errno is left alone. */
ssize_t mt_fds_read_proc(const char *path, char *buf, size_t cap)
{
	MT_ASSERT_LOCKED();
	int e = errno;
	struct mt_fd f;
	size_t n = 0;
	if (open_named(AT_FDCWD, path, O_RDONLY, 0, &f) >= 0) {
		/* until EOF or a full buffer: a /proc read may stop short of the end (one
		 * page, one record); checked by open_named now, again before each further read */
		for (;;) {
			size_t want = cap - 1 - n;
			ssize_t r = read(f.fd, buf + n, want);
			if (r <= 0)
				break;
			n += (size_t)r;
			if (n + 1 == cap || !mt_fds_is(f.fd, f.dev, f.ino))
				break;
		}
		close_if_ours(f.fd, f.dev, f.ino);
	}
	buf[n] = 0;
	errno = e;
	return n ? (ssize_t)n : -1;
}

/* Under lock: a line at the end of the manifest (MTRACE_CTL_MANIFEST), in one write. */
void mt_fds_manifest_add(const struct iovec *iov, int n)
{
	MT_ASSERT_LOCKED();
	struct mt_fd f = manifest;
	if (!mt_names.manifest[0])
		return;
	if (!mt_fds_is(f.fd, f.dev, f.ino)) {
		manifest.fd = -1;
		if (open_named(AT_FDCWD, mt_names.manifest, O_WRONLY | O_APPEND | O_NOFOLLOW, 0,
			       &f) < 0)
			return;
	}
	if (mt_fds_is(f.fd, f.dev, f.ino)) {
		ssize_t w = writev(f.fd, iov, n);
		(void)w;
	}
	if (f.fd != manifest.fd)
		close_if_ours(f.fd, f.dev, f.ino);
}

/* ---------------------------------------------------------------------------------------------
   The trace file
   ------------------------------------------------------------------------------------------- */

/* Under lock: where path is opened from: the kept directory if path is a name in it (the
   kept descriptor, *name the last part of path), else the working directory (path). */
static int dir_at(const char *path, const char **name)
{
	*name = path;
	if (dir.fd < 0 || mt_tls.own_files || strncmp(path, dir_path, dir_len) != 0 ||
	    path[dir_len] != '/' || strchr(path + dir_len + 1, '/'))
		return AT_FDCWD;
	if (!mt_fds_is(dir.fd, dir.dev, dir.ino)) {
		dir.fd = -1;   /* the program closed it: the path, as it resolves now */
		return AT_FDCWD;
	}
	*name = path + dir_len + 1;
	return dir.fd;
}

/* Under lock: the trace file opened again by name; -1 with errno if it cannot be (ESTALE: the
   name is another file's now). */
static int reopen(void)
{
	for (int i = 0; i < 8; i++) {
		const char *name;
		struct mt_fd f;
		int at = dir_at(mt_file.path, &name);
		if (open_named(at, name, O_RDWR | O_NOFOLLOW, 0, &f) < 0) {
			if (errno == EAGAIN)
				continue;   /* the number was taken from us: again */
			return -1;
		}
		if (f.dev != file.dev || f.ino != file.ino) {
			close_if_ours(f.fd, f.dev, f.ino);
			errno = ESTALE;
			return -1;
		}
		if (mt_tls.own_files || move_up(&f) == 0)
			return f.fd;
	}
	errno = EAGAIN;
	return -1;
}

/* Under lock: the trace file's descriptor, checked, opened again if the program closed it;
   -1 with errno ESTALE if the file cannot be had (mt_fds_lost says why). */
static int file_fd(void)
{
	int *slot = mt_tls.own_files ? &own_fd : &file.fd;
	if (*slot >= 0 && mt_fds_is(*slot, file.dev, file.ino))
		return *slot;
	*slot = -1;   /* closed by the program, or its own now: not ours to close */
	int fd = reopen();
	if (fd < 0) {
		lost_errno = errno;
		errno = ESTALE;
	}
	return *slot = fd;
}

/* A call on the trace file's descriptor, checked just before it; if the program closed the
   descriptor in between (EBADF), the file is had again and the call made once more. */
#define FILE_CALL(type, call)                                                 \
	for (int try_ = 0;; try_++) {                                         \
		int fd = file_fd();                                           \
		if (fd < 0)                                                   \
			return (type)-1;                                      \
		type r_ = (call);                                             \
		if (r_ != (type)-1 || errno != EBADF || try_ == 7)            \
			return r_;                                            \
	}

ssize_t mt_fds_pwrite(const void *buf, size_t n, uint64_t off)
{
	MT_ASSERT_LOCKED();
	FILE_CALL(ssize_t, pwrite(fd, buf, n, (off_t)off))
}

int mt_fds_fallocate(int mode, uint64_t off, uint64_t len)
{
	MT_ASSERT_LOCKED();
	FILE_CALL(int, fallocate(fd, mode, (off_t)off, (off_t)len))
}

int mt_fds_truncate(uint64_t len)
{
	MT_ASSERT_LOCKED();
	FILE_CALL(int, ftruncate(fd, (off_t)len))
}

int mt_fds_sync(void)
{
	MT_ASSERT_LOCKED();
	FILE_CALL(int, fdatasync(fd))
}

void *mt_fds_map(void *at, size_t len, int prot, int flags, uint64_t off)
{
	MT_ASSERT_LOCKED();
	FILE_CALL(void *, mt_libc.mmap(at, len, prot, flags, fd, (int64_t)off))
}

/* Under lock: create path (O_EXCL, mode 0600, never through a symbolic link) as the trace
   file, in the kept directory if it is there.  0, or -1 with errno (EEXIST: the name is
   taken). */
int mt_fds_create(const char *path)
{
	MT_ASSERT_LOCKED();
	const char *name;
	struct stat st;
	mt_fds_release();
	int at = dir_at(path, &name);
	int fd = openat(at, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return -1;
	file = (struct mt_fd){ fd, st.st_dev, st.st_ino };
	/* (a number that is the program's already: the file is opened by name when needed) */
	if (!mt_fds_is(fd, file.dev, file.ino) || move_up(&file) < 0)
		file.fd = -1;
	return 0;
}

/* Under lock: the file that could not be written is removed (by name: it is ours, created
   with O_EXCL a moment ago). */
void mt_fds_remove(const char *path)
{
	MT_ASSERT_LOCKED();
	const char *name;
	mt_fds_release();
	int at = dir_at(path, &name);
	unlinkat(at, name, 0);
}

/* Under lock: the file is done with (finished, or another comes): its descriptor closed. */
static void release(void)
{
	close_if_ours(file.fd, file.dev, file.ino);
	file.fd = -1;
}

void mt_fds_release(void)
{
	MT_ASSERT_LOCKED();
	release();
}

/* Under lock, as it is let go: the descriptor closed, unless it is kept. */
void mt_fds_close(void)
{
	MT_ASSERT_LOCKED();
	if (mt_tls.own_files) {
		if (own_fd >= 0) {
			int e = errno;
			close(own_fd);   /* (in a table the program cannot touch) */
			own_fd = -1;
			errno = e;
		}
	} else if (!keep)
		mt_fds_release();
}

/* Under lock: the file cannot be had any more (a call above returned ESTALE): tracing ends,
   saying why. */
void mt_fds_lost(void)
{
	MT_ASSERT_LOCKED();
	if (keep)
		mt_file_fail(MTRACE_STOP_UNREACHABLE, "the trace file cannot be reached any more: the "
			"program changed its root directory or its user, then closed the tracer's "
			"descriptors", lost_errno);
	else
		mt_file_fail(MTRACE_STOP_CLOSED, "the trace file was removed or replaced and cannot be "
			"opened again", lost_errno);
}

/* ---------------------------------------------------------------------------------------------
   chroot, changes of user or groups
   ------------------------------------------------------------------------------------------- */

/* Under lock: the trace's directory (of the base: children's files go there too). */
static void keep_dir(void)
{
	const char *slash = strrchr(mt_names.base, '/');
	struct mt_fd d;
	if (slash == NULL || mt_fds_is(dir.fd, dir.dev, dir.ino))
		return;
	dir.fd = -1;
	dir_len = (size_t)(slash - mt_names.base);
	memcpy(dir_path, mt_names.base, dir_len);
	dir_path[dir_len] = 0;
	if (open_named(AT_FDCWD, dir_len ? dir_path : "/", O_PATH | O_DIRECTORY, 0, &d) >= 0 &&
	    move_up(&d) == 0)
		dir = d;
}

/* The program is about to change its root directory (ids 0), or its user or groups (ids 1):
   what reaches the file by name now may not afterwards, so from now on its descriptors are
   kept.  Not under lock; errno is left alone. */
void mt_fds_keep_access(int ids)
{
	if (!mt_run.hot_set || __atomic_load_n(&mt_sandbox.sandboxed, __ATOMIC_ACQUIRE))
		return;
	int e = errno;
	uint8_t busy = mt_tls.busy;
	mt_tls.busy = 1;
	if (mt_new_process_due())
		mt_new_process();
	if (getpid() == mt_file.pid) {   /* (not a vfork child, which shares our memory) */
		struct mt_lock_state ls;
		mt_lock(&ls);
		keep |= ids ? KEEP_IDS : KEEP_ROOT;
		keep_dir();
		struct mt_fd m;
		if (mt_names.manifest[0] && !mt_fds_is(manifest.fd, manifest.dev, manifest.ino) &&
		    open_named(AT_FDCWD, mt_names.manifest, O_WRONLY | O_APPEND | O_NOFOLLOW, 0,
			       &m) >= 0 && move_up(&m) == 0)
			manifest = m;
		if (mt_file.have_file && !mt_file.failed)
			file_fd();
		mt_unlock(&ls);
	}
	mt_tls.busy = busy;
	errno = e;
}

/* A change of user was seen: a child that cannot create its file is no surprise. */
int mt_fds_ids_changed(void)
{
	return (keep & KEEP_IDS) != 0;
}

/* In a new process: the parent's file is not its own.  (The kept directory and manifest
   are: their descriptors are the child's copies.) */
void mt_fds_fork_child(void)
{
	own_fd = -1;   /* (in the populating thread's table, which the child has not) */
	release();   /* (alone in the process, the lock made anew: none is held) */
}
