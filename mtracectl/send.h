/* send.h - mtracectl --send: a process that follows the traces of the traced tree and sends
 * what is committed of them to a collector (send.c), over a link (send_link.c). */
#ifndef SEND_H
#define SEND_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define EXIT_TOOL 125   /* mtracectl's own failure (not the program's status) */

struct link {
	const char *dest;       /* HOST:PORT, or |COMMAND */
	int fd;                 /* -1: down */
	pid_t child;            /* COMMAND's process (group), or 0 */
	unsigned char in[4096]; /* what the collector sent, not yet a whole frame */
	size_t nin;
};

/* 1 if dest is HOST:PORT or |COMMAND */
int link_dest_ok(const char *dest);
/* Connect (or run COMMAND): 0, or -1 with why said */
int link_open(struct link *l, char *why, size_t cap);
void link_close(struct link *l);

enum send_compress {
	SEND_COMPRESS_AUTO,     /* the slots codec when the collector reads it, else none */
	SEND_COMPRESS_NONE,
	SEND_COMPRESS_SLOTS     /* required: a collector that cannot read it is not sent to */
};

struct send_opts {
	const char *dest;
	int compress;           /* enum send_compress */
	uint64_t backlog;       /* --backlog: unacknowledged bytes that stop the traces; 0: none */
	int no_keep;            /* --no-keep: punch out of the local files what is acknowledged */
	int quiet;
	unsigned give_up_s;     /* after the tree ended, how long to try to deliver the rest */
};

/* Start the sender process.  It follows the files named in manifest (one a line, as the
   tracers append them), or when manifest is NULL the one file `file` of process `pid`, open as
   file_fd (the caller's to close).  Returns its pid; *done_fd is the descriptor to close once
   the traced tree has ended. */
pid_t send_start(const struct send_opts *o, const char *manifest, const char *file, int file_fd,
		 pid_t pid, int *done_fd);
/* --backlog (send_stop.c).  In mtracectl, an ancestor of the traced tree: a thread that makes
   the stop requests the sender writes to *sender_end (0, or -1 with errno), and its end once
   the sender has ended.  In the sender: where to ask (-1: ask the tracer itself), and ask. */
int send_stopper_start(int *sender_end);
void send_stopper_join(void);
void send_stop_through(int fd);
int send_ask_stop(pid_t pid, char *err, size_t cap);
/* mtracectl --start --send=DEST PID (send_pid.c): the exit status */
int send_started(const struct send_opts *so, const char *pid_arg, const char *base,
		 unsigned wait_ms, int quiet);
/* Wait for the sender: 0 when everything was delivered, else non-zero (it said why) */
int send_wait(pid_t sender);
#endif
