/* mtrace.h - control API of the malloc tracer.
 *
 * Link with -lmtrace to trace only a region of a program:
 *
 *     mtrace_init("/tmp/region.trace");   // file name base; the pid is appended
 *     mtrace_start();
 *     ... the calls to trace ...
 *     mtrace_stop();
 *
 * Under LD_PRELOAD=libmtracectl.so the same functions are exported by the preload, which has
 * already called mtrace_init(NULL) and mtrace_start() in its constructor.
 *
 * Every function returns 0 on success and -1 with errno set on failure, and is safe to call from
 * any thread.  None of them ever makes the traced program's own allocator calls fail.
 */
#ifndef MTRACE_H
#define MTRACE_H

#ifdef __cplusplus
extern "C" {
#endif

#define MTRACE_VERSION "0.1.0"

/* Choose the trace file and create it (it is not recording yet).  The file is BASE.<pid>, or
   BASE.<pid>.<n> with the first free n if that name is taken; it is created with O_EXCL,
   O_NOFOLLOW and mode 0600.  BASE NULL means the previous base, else $MTRACE_CTL_FILE, else
   /tmp/mtrace.out (MTRACE_CTL_FILE is ignored in secure mode).  A relative BASE is taken from
   the working directory of this call: children forked after a chdir write beside the parent.
   Fails with EBUSY while a file is already open. */
int mtrace_init(const char *base);

/* Start recording (calls mtrace_init(NULL) first if no file is open). */
int mtrace_start(void);

/* Stop recording and close the file: its header is completed and its length trimmed to what
   was written.  A later mtrace_start() opens a new file. */
int mtrace_stop(void);

/* Suspend and resume recording into the same file, in every thread. */
int mtrace_pause(void);
int mtrace_unpause(void);

/* Make everything recorded so far durable (msync + fdatasync). */
int mtrace_sync(void);

/* Discard everything recorded so far; recording goes on (or stays paused) into the same file. */
int mtrace_reset(void);

/* The name of the open trace file, or NULL. */
const char *mtrace_file(void);

/* Number of records written since the file was opened (approximate while other threads run). */
unsigned long long mtrace_count(void);

#ifdef __cplusplus
}
#endif
#endif
