/* tracefile.c - creating, naming and finishing the trace file; its header.
 *
 * No stdio anywhere in here: it may allocate, and it takes locks a program in the middle of a
 * printf may hold.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "mt_int.h"
#include "internal/mt-size.h"

struct mt_file_state mt_file;

_Static_assert(MT_MAX_SIZE_MIN >= MTRACE_HEADER_SIZE + MT_FIRST_CHUNK,
	       "a capped trace holds a header and a chunk");

static struct mtrace_file_header hdr;   /* the open file's header, rewritten as it changes */

static size_t append(char *buf, size_t at, size_t cap, const char *s)
{
	size_t n = strlen(s);
	if (at + n > cap)
		n = cap - at;
	memcpy(buf + at, s, n);
	return at + n;
}

/* Under lock: tracing stops for good (for this file); the program goes on untouched.  The
   header says so at once (its block exists, so this needs no space), for a process that never
   stops cleanly: readers then know the records end early, and why.  what: the warning, or
   NULL for an end that is no failure (a sandbox: the process is told nothing). */
void mt_file_fail(unsigned reason, const char *what, int err)
{
	MT_ASSERT_LOCKED();
	if (mt_file.failed)
		return;
	mt_file.failed = 1;
	mt_run_set_active(0);
	mt_run_new_gen();
	hdr.flags |= MTRACE_HF_STOPPED_EARLY;
	hdr.stop_reason = reason;
	hdr.stop_errno = err;
	mt_file_header_update(0);
	if (what != NULL)
		mt_msg_stopped(what, err);
}

/* ---------------------------------------------------------------------------------------------
   Header
   ------------------------------------------------------------------------------------------- */

/* The allocators' settings in the environment, each NAME=VALUE and a NUL, at s (at most cap
   bytes; one that does not fit whole is left out): how a replay can run as the program did. */
#define MT_SETTINGS_MAX 1024u
static uint32_t copy_settings(char *s, size_t cap)
{
	size_t n = 0;
	for (char **e = environ; e && *e; e++) {
		size_t len = strlen(*e);
		if (mtrace_is_setting(*e) && n + len + 1 <= cap) {
			memcpy(s + n, *e, len + 1);
			n += len + 1;
		}
	}
	return (uint32_t)n;
}

/* The settings the program made at run time through its allocator (allocctl.c) follow the
   environment's in the same strings, after an empty one; their room is kept whole in every
   header, so that they can change while the file is written. */
#define MT_RUNTIME_MAX 384u
static uint32_t env_settings_len;
static char runtime[MT_RUNTIME_MAX];   /* as in the header: the empty string, then them */

/* Under lock: runtime[] and the header's settings fields as noted now; did they change? */
static int runtime_settings(void)
{
	static char now[MT_RUNTIME_MAX];
	memset(now, 0, sizeof now);
	size_t n = mt_ctl_settings(now + 1, MT_RUNTIME_MAX - 1);
	hdr.settings_len = env_settings_len + (n ? 1 + (uint32_t)n : 0);
	hdr.settings_offset = hdr.settings_len ? MTRACE_HEADER_STRINGS : 0;
	if (!memcmp(now, runtime, sizeof now))
		return 0;
	memcpy(runtime, now, sizeof now);
	return 1;
}

static void header_init(char *page, pid_t ppid)
{
	mtrace_header_init(&hdr);
	hdr.flags = MTRACE_HF_CHUNK_BOUND | MTRACE_HF_CHUNK_PID | MTRACE_HF_MAPPINGS |
		    MTRACE_HF_RESIDENT | MTRACE_HF_LIVE |
		    (mt_mem.memory_ms ? MTRACE_HF_MEMORY : 0) |
		    (mt_run.durations ? MTRACE_HF_DURATIONS : 0) |
		    (mt_run.stacks ? MTRACE_HF_STACKS | MTRACE_HF_STACK_IDS : 0) |
		    (mt_real.is_glibc ? MTRACE_HF_GLIBC : 0) |
		    (mt_file.private_header ? MTRACE_HF_PRIVATE : 0) |
		    (mt_real.bypassed ? MTRACE_HF_BYPASSED : 0);
	hdr.start_time_ns = mt_clock_start();   /* (which may give the clock up for a count) */
	hdr.clock = (uint8_t)mt_clock_kind;
	hdr.start_ticks = mt_calib.start_ticks;
	hdr.ticks_per_sec = mt_calib.ticks_per_sec;
	hdr.pid = (int32_t)getpid();
	hdr.ppid = (int32_t)ppid;
	hdr.resident_min = (uint32_t)MT_RESIDENT_MIN;
	hdr.stack_depth = mt_run.stacks;
	if (mt_remote.window) {   /* (remote.c) */
		hdr.flags |= MTRACE_HF_MIDWAY;
		hdr.window = mt_remote.window;
		hdr.start_threads = (uint32_t)mt_remote.start_threads;
	}
	hdr.memory_interval_ms = mt_mem.memory_ms;
	/* (set before this file: a fork child's parent's) */
	hdr.mallopt_set = mt_mallopt.mallopt_set;
	memcpy(hdr.mallopt_value, mt_mallopt.mallopt_value, sizeof hdr.mallopt_value);

	memset(page, 0, MTRACE_HEADER_SIZE);
	/* the allocators' settings (not private: no path, no argument), then exe and cmdline,
	   all within the header page; a long command line is cut */
	char *s = page + MTRACE_HEADER_STRINGS;
	size_t room = MTRACE_HEADER_SIZE - MTRACE_HEADER_STRINGS;
	env_settings_len = copy_settings(s, MT_SETTINGS_MAX);
	s += env_settings_len + MT_RUNTIME_MAX;   /* (room kept for the run-time ones) */
	room -= env_settings_len + MT_RUNTIME_MAX;
	runtime_settings();
	memcpy(page + MTRACE_HEADER_STRINGS + env_settings_len, runtime, MT_RUNTIME_MAX);
	size_t an = strlen(mt_allocator_path);   /* < 256: room is 3.5 KiB less at most 1 KiB */
	if (an) {
		memcpy(s, mt_allocator_path, an);
		hdr.allocator_offset = (uint32_t)(s - page);
		hdr.allocator_len = (uint32_t)an;
		s += an + 1;
		room -= an + 1;
	}
	if (!mt_file.private_header) {
		ssize_t n = readlink("/proc/self/exe", s, room / 4);
		if (n > 0) {
			hdr.exe_offset = (uint32_t)(s - page);
			hdr.exe_len = (uint32_t)n;
			s += n + 1;
			room -= (size_t)n + 1;
		}
		hdr.cmdline_offset = (uint32_t)(s - page);
		ssize_t c = mt_fds_read_proc("/proc/self/cmdline", s, room);
		hdr.cmdline_len = c > 0 ? (uint32_t)c : 0;
	}
	memcpy(page, &hdr, sizeof hdr);
}

void mt_file_header_reset(uint64_t off)
{
	MT_ASSERT_LOCKED();
	hdr.reset_off = mt_file.reset_off = off;
	mt_file_header_update(0);
}

/* A program may call mallopt at any rate (200,000 times in t_ownfiles): written through the
   header's mapping, which needs no descriptor of ours open (each one opened is a moment a
   thread that closes every descriptor and opens its own could meet); a trace that has failed
   (a full disk among the reasons) keeps it for its last header. */
void mt_file_header_mallopt(void)
{
	MT_ASSERT_LOCKED();
	hdr.mallopt_set = mt_mallopt.mallopt_set;
	memcpy(hdr.mallopt_value, mt_mallopt.mallopt_value, sizeof hdr.mallopt_value);
	if (mt_file.hdr_map && !mt_file.failed)
		memcpy(mt_file.hdr_map, &hdr, sizeof hdr);
	else if (!mt_file.failed)
		mt_file_header_update(0);
}

/* As mt_file_header_mallopt, for the settings made through the allocator's own control interface
   (allocctl.c); their strings first, then the header that says how long they are. */
void mt_file_header_settings(void)
{
	MT_ASSERT_LOCKED();
	if (!runtime_settings() || mt_file.failed)
		return;
	uint64_t at = MTRACE_HEADER_STRINGS + env_settings_len;
	if (mt_file.hdr_map) {
		memcpy(mt_file.hdr_map + at, runtime, MT_RUNTIME_MAX);
		memcpy(mt_file.hdr_map, &hdr, sizeof hdr);
	} else if (mt_fds_pwrite(runtime, MT_RUNTIME_MAX, at) == MT_RUNTIME_MAX)
		mt_file_header_update(0);
}

/* The file's first page, mapped shared for the file's life: a trace ends with its header saying
   why even when no descriptor can be had any more (mt_file_header_update). */
static void header_map(void)
{
	void *m = mt_fds_map(NULL, MTRACE_HEADER_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	if (m != MAP_FAILED && mt_mlock.mlock_future)
		munlock(m, MTRACE_HEADER_SIZE);   /* (not the program's to lock: see mlock.c) */
	mt_file.hdr_map = m != MAP_FAILED ? m : NULL;
}

void mt_file_header_unmap(void)
{
	if (mt_file.hdr_map)
		mt_libc.munmap(mt_file.hdr_map, MTRACE_HEADER_SIZE);
	mt_file.hdr_map = NULL;
}

/* Under lock: rewrite the header with a refined clock rate, and as finished if asked. */
void mt_file_header_update(int finished)
{
	MT_ASSERT_LOCKED();
	if (!mt_file.have_file)
		return;
	hdr.clock = (uint8_t)mt_clock_kind;   /* (a clock that stopped is given up for a count) */
	hdr.ticks_per_sec = mt_clock_refine(hdr.ticks_per_sec);
	if (finished) {
		hdr.stop_ticks = mt_thread_ticks(&mt_tls.clk);
		if (!mt_file.failed)
			hdr.flags |= MTRACE_HF_FINISHED;
	}
	/* through a descriptor, which reports a full disk where rewriting a block takes a new one
	   (a copy-on-write filesystem, a quota): through the mapping that is a SIGBUS.  The
	   mapping only when no descriptor can be had (the file out of reach by name after a
	   chroot or a change of user, the descriptors kept for it closed by the program) */
	int e = errno;
	if (mt_fds_pwrite(&hdr, sizeof hdr, 0) < 0 && errno != ENOSPC && errno != EDQUOT &&
	    mt_file.hdr_map)
		memcpy(mt_file.hdr_map, &hdr, sizeof hdr);
	errno = e;
}

/* ---------------------------------------------------------------------------------------------
   Opening and finishing
   ------------------------------------------------------------------------------------------- */

/* BASE.<pid>, or BASE.<pid>.<n> with the first n not taken; never through a symlink.  A window
   switched on from outside is BASE.<pid>.w<N>, N of four digits at least: one process's windows
   sort in time. */
static int create_file(const char *base, char *path, size_t cap)
{
	char pid[24], win[24];
	pid[mt_fmt_u64(pid, (unsigned long long)getpid())] = 0;
	if (mt_remote.window) {
		char num[24];
		size_t k = mt_fmt_u64(num, mt_remote.window), z = k < 4 ? 4 - k : 0;
		memcpy(win, ".w0000", 2 + z);
		memcpy(win + 2 + z, num, k);
		win[2 + z + k] = 0;
	} else
		win[0] = 0;
	for (unsigned n = 0; n < 10000; n++) {
		size_t at = append(path, 0, cap - 1, base);
		at = append(path, at, cap - 1, ".");
		at = append(path, at, cap - 1, pid);
		at = append(path, at, cap - 1, win);
		if (n) {
			char num[24];
			num[mt_fmt_u64(num, n)] = 0;
			at = append(path, at, cap - 1, ".");
			at = append(path, at, cap - 1, num);
		}
		path[at] = 0;
		if (mt_fds_create(path) == 0)
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

/* The file's name, a line in the manifest (mtracectl's list); one write, whole (O_APPEND).
   No buffer on the stack: a fork child may run this on a handler's small stack. */
static void add_to_manifest(void)
{
	struct iovec line[2] = { { mt_file.path, strlen(mt_file.path) }, { "\n", 1 } };
	mt_fds_manifest_add(line, 2);
}

/* At initialisation: the process, and the settings every file of it takes. */
void mt_file_init(int private_header)
{
	mt_file.pid = getpid();
	mt_file.private_header = private_header;
	const char *cap = secure_getenv("MTRACE_CTL_MAX_SIZE");
	if (cap && *cap && mt_parse_size(cap, &mt_file.max_size) < 0)
		/* said when a file would open: a cap asked for is not ignored */
		mt_file.max_size_bad = 1;
}

/* In a new process: no file of its own yet. */
void mt_file_fork_child(void)
{
	mt_file.pid = getpid();
	mt_file.have_file = 0;
}

/* Under lock: the program took [lo, lo + len) over; if the header page was there, it is written
   from now on, not mapped. */
void mt_file_header_forget(const void *lo, size_t len)
{
	MT_ASSERT_LOCKED();
	uintptr_t a = (uintptr_t)lo, b = a + len, h = (uintptr_t)mt_file.hdr_map;
	if (h && a < h + MTRACE_HEADER_SIZE && h < b)
		mt_file.hdr_map = NULL;
}

/* Under lock.  Returns 0, or -1 with errno (after one warning). */
int mt_file_open(const char *base, pid_t ppid)
{
	MT_ASSERT_LOCKED();
	static char page[MTRACE_HEADER_SIZE];
	struct rlimit rl;
	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < MTRACE_HEADER_SIZE + MT_FIRST_CHUNK) {
		mt_msg_warn("not tracing: the file size limit (RLIMIT_FSIZE) is too small", NULL, 0);
		errno = EFBIG;
		return -1;
	}
	if (mt_file.max_size_bad) {
		mt_msg_warn("not tracing: MTRACE_CTL_MAX_SIZE is not a size (bytes, or a number "
			"with K, M, G or T after it)", NULL, 0);
		errno = EINVAL;
		return -1;
	}
	if (mt_file.max_size && mt_file.max_size < MT_MAX_SIZE_MIN) {
		mt_msg_warn("not tracing: MTRACE_CTL_MAX_SIZE is too small for a header and a "
			"first chunk", NULL, 0);
		errno = EFBIG;
		return -1;
	}
	if (create_file(base, mt_file.path, sizeof mt_file.path) < 0) {
		int e = errno;
		/* (after a change of user, a child may well not be allowed to: no warning) */
		if ((e == EACCES || e == EPERM) && mt_fds_ids_changed())
			mt_msg_info("not tracing: cannot create its trace file", mt_file.path);
		else
			mt_msg_warn("cannot create trace file", mt_file.path, e);
		errno = e;
		return -1;
	}
	mt_file.failed = 0;
	mt_file.pid = getpid();
	header_init(page, ppid);
	errno = 0;
	if (mt_fds_pwrite(page, MTRACE_HEADER_SIZE, 0) != MTRACE_HEADER_SIZE) {
		int e = errno ? errno : ENOSPC;
		mt_msg_warn("cannot write trace file", mt_file.path, e);
		mt_fds_remove(mt_file.path);
		errno = e;
		return -1;
	}
	header_map();
	mt_window_keep_old();   /* (by the last file's offsets) */
	mt_file.have_file = 1;
	mt_file.reset_off = 0;
	mt_file.file_id++;
	mt_run_new_gen();
	mt_on_file_opened();
	mt_msg_info("writing to", mt_file.path);
	add_to_manifest();
	return 0;
}

/* Under lock: stop recording, complete the header, trim the file, give it up. */
void mt_file_finish(struct mt_thread *self)
{
	MT_ASSERT_LOCKED();
	if (!mt_file.have_file)
		return;
	mt_run_set_active(0);
	mt_writer_release_locked(self);
	mt_run_new_gen();
	/* the large blocks still allocated and the memory as it ends, in a trace that holds
	   something (a fork child that only _exits maps no window for it) */
	int ends = !mt_file.failed && !mt_sandbox.sandboxed &&
		   mt_chunks.next_off > MTRACE_HEADER_SIZE;
	if (ends)
		mt_large_finish(self);
	if (ends && mt_mem.memory_ms) {
		unsigned n = 2;
		struct mtrace_slot *r = mt_writer_take_locked(self, &n);
		if (r)
			mt_memory_sample_last(self, r);
	}
	hdr.live_untracked = mt_large_untracked();
	uint64_t dropped = mt_stacks_dropped();
	hdr.stacks_dropped = dropped > UINT32_MAX ? UINT32_MAX : (uint32_t)dropped;
	unsigned long long recorded = mt_writer_count_records();   /* before the idle windows go */
	hdr.calls_recorded = recorded;
	mt_file_header_update(1);
	/* every chunk ever handed out lies below next_off, so writers still finishing a record
	   never touch the part cut off; if this fails the reserved tail stays: unwritten records,
	   which readers skip.  (A file that can no longer be had is left alone.) */
	if (mt_fds_truncate(mt_chunks.next_off) == 0)
		/* what threads still hold maps up to the old end: past the new one, a read (a leak
		   checker's, a core dump's) would be a SIGBUS a word */
		mt_window_close_range(mt_chunks.next_off, mt_wnd.reserved_end);
	mt_file_header_unmap();
	mt_fds_release();
	mt_window_unmap_idle();
	mt_file.have_file = 0;
	char num[24];
	num[mt_fmt_u64(num, recorded)] = 0;
	mt_msg_info(num, "entries recorded");
}
