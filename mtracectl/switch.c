/* switch.c - mtracectl --start, --stop, --status and --for: a dormant tracer in a running
 * process, switched from outside (include/mtrace-control.h).
 *
 * The control block is found where the process's dynamic linker put the tracer: the mapping
 * of libmtracectl.so (or libmtrace.so) in /proc/PID/maps gives its load address, the library's
 * dynamic symbol table the offset of mtrace_control (elfsym.c).  It is read and written with
 * process_vm_readv/writev: the kernel decides who may (whoever may ptrace the process).  The
 * process may be hostile, and mtracectl root: every read of the block is checked, and what it
 * says is printed escaped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "elfsym.h"
#include "mtrace-control.h"
#include "signals.h"
#include "switch.h"
#include "tool.h"

static int peek(pid_t pid, uint64_t addr, void *buf, size_t n)
{
	struct iovec l = { buf, n }, r = { (void *)(uintptr_t)addr, n };
	return process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)n ? 0 : -1;
}

static int poke(pid_t pid, uint64_t addr, const void *buf, size_t n)
{
	struct iovec l = { (void *)buf, n }, r = { (void *)(uintptr_t)addr, n };
	return process_vm_writev(pid, &l, 1, &r, 1, 0) == (ssize_t)n ? 0 : -1;
}

/* ---------------------------------------------------------------------------------------------
   What the process says, shown: its bytes are its own choice
   ------------------------------------------------------------------------------------------- */

/* s with every byte but printable ASCII, and the backslash, as \ooo: a name cannot move the
   cursor, recolour the terminal or start a line of its own.  Into buf, 4 bytes a byte of s and
   one more; returns buf. */
static char *shown(const char *s, char *buf, size_t cap)
{
	size_t n = 0;
	for (; *s && n + 5 <= cap; s++) {
		unsigned char c = (unsigned char)*s;
		if (c >= 0x20 && c < 0x7f && c != '\\')
			buf[n++] = (char)c;
		else
			n += (size_t)snprintf(buf + n, cap - n, "\\%03o", c);
	}
	buf[n] = 0;
	return buf;
}

#define SHOWN_CAP(field) (4 * sizeof(field) + 1)

/* ---------------------------------------------------------------------------------------------
   Finding the control block
   ------------------------------------------------------------------------------------------- */

static int is_tracer(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	return strncmp(b, "libmtracectl.so", 15) == 0 || strncmp(b, "libmtrace.so", 12) == 0;
}

/* The tracer's mapping at file offset 0 in process pid: its addresses and path.  0, or -1. */
static int tracer_mapping(pid_t pid, uint64_t *lo, uint64_t *hi, char *path, size_t cap)
{
	char maps[64], line[PATH_MAX + 256];
	snprintf(maps, sizeof maps, "/proc/%d/maps", (int)pid);
	FILE *f = fopen(maps, "re");
	if (!f)
		return -1;
	int found = 0, whole = 1;
	while (!found && fgets(line, sizeof line, f)) {
		int was_whole = whole;
		whole = strchr(line, '\n') != NULL;
		if (!was_whole)   /* (the rest of a line too long to be one of ours) */
			continue;
		unsigned long long l, h, off;
		char *p = strchr(line, '/');
		if (!whole || !p || sscanf(line, "%llx-%llx %*s %llx", &l, &h, &off) != 3 || off)
			continue;
		p[strcspn(p, "\n")] = 0;
		if (strstr(p, " (deleted)") || !is_tracer(p))
			continue;
		*lo = l, *hi = h;
		snprintf(path, cap, "%s", p);
		found = 1;
	}
	fclose(f);
	if (!found)
		errno = ENOENT;
	return found ? 0 : -1;
}

/* The tracer's file, for reading: the very file mapped (/proc/PID/map_files, for root), else
   by its name as the process sees it (its mount namespace), else as we do.  A name another
   process chose may be a FIFO, whose open would block, or a device, whose open may act: each
   is looked at through O_PATH first, and opened only if it is a regular file.  The fd, or -1
   with why. */
static int open_mapped(pid_t pid, uint64_t lo, uint64_t hi, const char *path, char *why,
		       size_t cap)
{
	char names[3][PATH_MAX + 64];
	snprintf(names[0], sizeof names[0], "/proc/%d/map_files/%llx-%llx", (int)pid,
		 (unsigned long long)lo, (unsigned long long)hi);
	snprintf(names[1], sizeof names[1], "/proc/%d/root%s", (int)pid, path);
	snprintf(names[2], sizeof names[2], "%s", path);
	snprintf(why, cap, "cannot open it: %s", strerror(ENOENT));
	for (int i = 0; i < 3; i++) {
		int pfd = open(names[i], O_PATH | O_CLOEXEC);
		if (pfd < 0) {
			snprintf(why, cap, "cannot open it: %s", strerror(errno));
			continue;
		}
		struct stat st;
		char self[64];
		int fd = -1;
		if (fstat(pfd, &st) < 0 || !S_ISREG(st.st_mode))
			snprintf(why, cap, "not a regular file");
		else {
			snprintf(self, sizeof self, "/proc/self/fd/%d", pfd);
			fd = open(self, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		}
		close(pfd);
		return fd;   /* (the first found is the one mapped: no other name is better) */
	}
	return -1;
}

/* What is wrong with a control block read from the process, or NULL */
static const char *malformed(const struct mtrace_control *c)
{
	if (memcmp(c->magic, MTRACE_CONTROL_MAGIC, sizeof c->magic) != 0 ||
	    c->size != sizeof(struct mtrace_control))
		return "another version of the protocol";
	if (!memchr(c->file, 0, sizeof c->file))
		return "a trace's name with no end";
	if (c->state != MTRACE_STATE_DORMANT && c->state != MTRACE_STATE_RECORDING)
		return "an unknown state";
	if (c->error < 0 || c->error > 4095)
		return "an error number out of range";
	return NULL;
}

/* Is process pid an mtracectl (its executable ours)?  Its first child then, the program it
   runs (0: not known), else -1.  `pgrep -f PROGRAM` finds the mtracectl that runs it too. */
static pid_t mtracectl_child(pid_t pid)
{
	char path[64], exe[PATH_MAX], self[PATH_MAX], kids[64];
	snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(path, exe, sizeof exe - 1), m = readlink("/proc/self/exe", self,
								       sizeof self - 1);
	if (n <= 0 || n != m || memcmp(exe, self, (size_t)n))
		return -1;
	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t k = read(fd, kids, sizeof kids - 1);
	close(fd);
	kids[k > 0 ? k : 0] = 0;
	long child = strtol(kids, NULL, 10);
	return child > 0 && child <= INT_MAX ? (pid_t)child : 0;
}

/* The address of process pid's control block, checked.  0, or -1 with the reason in err. */
static int switch_find(pid_t pid, uint64_t *addr, char *err, size_t cap)
{
	char path[PATH_MAX], why[256], esc[SHOWN_CAP(path)];
	uint64_t lo, hi, off;
	if (kill(pid, 0) < 0 && errno == ESRCH) {
		snprintf(err, cap, "no process %d", (int)pid);
		return -1;
	}
	if (tracer_mapping(pid, &lo, &hi, path, sizeof path) < 0) {
		pid_t child;
		if (errno == EACCES || errno == EPERM)
			snprintf(err, cap, "process %d: you may not inspect it (%s): switch it "
				 "as its user, or as root", (int)pid, strerror(errno));
		else if ((child = mtracectl_child(pid)) > 0)
			snprintf(err, cap, "process %d is mtracectl itself: the program it runs is "
				 "process %d", (int)pid, (int)child);
		else if (child == 0)
			snprintf(err, cap, "process %d is mtracectl itself: name the program it "
				 "runs", (int)pid);
		else
			snprintf(err, cap, "process %d has no tracer loaded (start it with "
				 "mtracectl --dormant, or MTRACE_CTL_START=0 and the preload)",
				 (int)pid);
		return -1;
	}
	int fd = open_mapped(pid, lo, hi, path, why, sizeof why);
	if (fd < 0 || elfsym_offset(fd, MTRACE_CONTROL_SYMBOL, &off, why, sizeof why) < 0) {
		snprintf(err, cap, "process %d: %s: %s (not a tracer that can be switched from "
			 "outside)", (int)pid, shown(path, esc, sizeof esc), why);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	*addr = lo + off;
	struct mtrace_control c;
	if (peek(pid, *addr, &c, sizeof c) < 0) {
		snprintf(err, cap, "process %d: you may not inspect it (%s): switch it as its "
			 "user, or as root", (int)pid, strerror(errno));
		return -1;
	}
	const char *bad = malformed(&c);
	if (bad) {
		snprintf(err, cap, "process %d: its tracer's control block holds %s (use the "
			 "mtracectl that came with its tracer)", (int)pid, bad);
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------------------------------------
   Requests
   ------------------------------------------------------------------------------------------- */

static const char *bad_block;   /* what the last read found wrong with the block */

/* The control block, read and checked: 0, or -1 with errno (EPROTO: bad_block says why) */
static int ctl_read(pid_t pid, uint64_t addr, struct mtrace_control *c)
{
	if (peek(pid, addr, c, sizeof *c) < 0)
		return -1;
	if ((bad_block = malformed(c)) != NULL) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

static sigset_t *watched;   /* --for: the signals that cut a wait short (blocked) */
static int caught;          /* the one that did */

/* Wait ms, or until a watched signal comes: 0, or -1 if one came */
static int pause_ms(unsigned long ms)
{
	struct timespec now, end;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)(ms / 1000);
	end.tv_nsec += (long)(ms % 1000) * 1000000;
	if (end.tv_nsec >= 1000000000)
		end.tv_sec++, end.tv_nsec -= 1000000000;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		struct timespec left = { end.tv_sec - now.tv_sec, end.tv_nsec - now.tv_nsec };
		if (left.tv_nsec < 0)
			left.tv_sec--, left.tv_nsec += 1000000000;
		if (left.tv_sec < 0 || (left.tv_sec == 0 && left.tv_nsec == 0))
			return 0;
		if (!watched) {
			nanosleep(&left, NULL);
			continue;
		}
		int sig = sigtimedwait(watched, NULL, &left);
		if (sig > 0) {
			caught = sig;
			return -1;
		}
	}
}

/* Ask for cmd (with base), and wait up to wait_ms for it to be carried out: 1 done (c holds the
   process's answer), 2 the process ended meanwhile, 0 not yet (or a watched signal came), -1 on
   error (errno). */
static int switch_request(pid_t pid, uint64_t addr, unsigned cmd, const char *base,
			  unsigned wait_ms, struct mtrace_control *c)
{
	if (ctl_read(pid, addr, c) < 0)
		return -1;
	uint32_t req = c->request + 1;
	if (req == c->done)   /* (never an old answer taken for this one's) */
		req++;
	memset(c->base, 0, sizeof c->base);
	snprintf(c->base, sizeof c->base, "%s", base ? base : "");
	c->cmd = cmd;
	c->check = mtrace_control_check(req, cmd, c->base);
	/* base, cmd and check first; the request, which the process acts on, last */
	if (poke(pid, addr + offsetof(struct mtrace_control, base), c->base, sizeof c->base) < 0 ||
	    poke(pid, addr + offsetof(struct mtrace_control, cmd), &c->cmd, sizeof c->cmd) < 0 ||
	    poke(pid, addr + offsetof(struct mtrace_control, check), &c->check,
		 sizeof c->check) < 0 ||
	    poke(pid, addr + offsetof(struct mtrace_control, request), &req, sizeof req) < 0)
		return -1;
	for (unsigned waited = 0;; waited += 10) {
		struct mtrace_control now;
		if (ctl_read(pid, addr, &now) < 0) {
			if (errno == ESRCH)   /* it ended: its exit finished whatever it recorded */
				return 2;
			return -1;
		}
		*c = now;   /* (only a block that holds to the protocol) */
		if (c->done == req)
			return 1;
		if (waited >= wait_ms || pause_ms(10) < 0)
			return 0;
	}
}

int switch_stop_backlog(pid_t pid, char *err, size_t cap)
{
	uint64_t addr;
	struct mtrace_control c;
	if (switch_find(pid, &addr, err, cap) < 0)
		return -1;
	if (switch_request(pid, addr, MTRACE_CMD_STOP_BACKLOG, NULL, 0, &c) < 0) {
		snprintf(err, cap, "process %d: %s", (int)pid, strerror(errno));
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------------------------------------
   mtracectl --start, --stop, --status, --for
   ------------------------------------------------------------------------------------------- */

#define EXIT_REFUSED  1    /* the process refused the request (already recording, say) */
#define EXIT_NOANSWER 3    /* no allocator call within the wait: the request stands */
#define EXIT_UNREACH  125  /* no such process, no tracer in it, not allowed to inspect it */

/* The exit status for a failed read or write of process pid's control block, said */
static int unreachable(pid_t pid)
{
	if (errno == EPROTO)
		fprintf(stderr, "mtracectl: process %d: its tracer's control block holds %s (use "
			"the mtracectl that came with its tracer)\n", (int)pid, bad_block);
	else
		fprintf(stderr, "mtracectl: process %d: %s\n", (int)pid, strerror(errno));
	return EXIT_UNREACH;
}

/* "FILE, N bytes" of a trace, or just FILE, shown */
static const char *describe(const char *file, char *buf, size_t cap)
{
	struct stat st;
	char n[32], esc[SHOWN_CAP(((struct mtrace_control *)0)->file)];
	shown(file, esc, sizeof esc);
	if (stat(file, &st) == 0 && S_ISREG(st.st_mode))
		snprintf(buf, cap, "%s, %s bytes", esc,
			 fmt_commas(n, (unsigned long long)st.st_size));
	else
		snprintf(buf, cap, "%s", esc);
	return buf;
}

#define DESCRIBED_CAP (SHOWN_CAP(((struct mtrace_control *)0)->file) + 64)

static int answer(pid_t pid, const struct mtrace_control *c, const char *what, int quiet)
{
	char d[DESCRIBED_CAP];
	if (c->error) {
		if (c->error == EALREADY)
			fprintf(stderr, "mtracectl: process %d %s: %s\n", (int)pid,
				c->state == MTRACE_STATE_RECORDING ? "is recording already" :
				"is not recording",
				c->state == MTRACE_STATE_RECORDING ?
				describe(c->file, d, sizeof d) : "nothing to stop");
		else
			fprintf(stderr, "mtracectl: process %d could not %s: %s\n", (int)pid, what,
				strerror(c->error));
		return EXIT_REFUSED;
	}
	if (!quiet)
		printf("mtracectl: process %d: %s %s\n", (int)pid,
		       c->state == MTRACE_STATE_RECORDING ? "recording to" : "trace finished:",
		       describe(c->file, d, sizeof d));
	return 0;
}

static int status(pid_t pid, uint64_t addr)
{
	struct mtrace_control c;
	char d[DESCRIBED_CAP];
	if (ctl_read(pid, addr, &c) < 0)
		return unreachable(pid);
	if (c.state == MTRACE_STATE_RECORDING)
		printf("mtracectl: process %d: recording to %s\n", (int)pid,
		       describe(c.file, d, sizeof d));
	else if (c.file[0])
		printf("mtracectl: process %d: dormant; its last trace %s\n", (int)pid,
		       describe(c.file, d, sizeof d));
	else
		printf("mtracectl: process %d: dormant\n", (int)pid);
	if (c.request != c.done)
		printf("mtracectl: process %d: a request waits for its next allocator call\n",
		       (int)pid);
	return 0;
}

/* The trace's name alone, for a script */
static void print_name(const struct mtrace_control *c)
{
	char esc[SHOWN_CAP(c->file)];
	printf("%s\n", shown(c->file, esc, sizeof esc));
}

/* --for: start, wait for_ms, stop, print the trace's name.  A signal that would end mtracectl
   meanwhile cuts the window short: the recording is stopped first, then the signal ends us. */
static int window(pid_t pid, uint64_t addr, const char *base, unsigned long for_ms,
		  unsigned wait_ms, int quiet)
{
	sigset_t ending, old;
	sig_ending_set(&ending);
	sigprocmask(SIG_BLOCK, &ending, &old);
	watched = &ending;
	struct mtrace_control c;
	int rc = 0, k = switch_request(pid, addr, MTRACE_CMD_START, base, wait_ms, &c);
	if (k < 0)
		rc = unreachable(pid);
	else if (k == 2)
		printf("mtracectl: process %d has ended (its exit finished its trace)\n", (int)pid);
	else if (k == 0) {
		/* not carried out yet (no allocator call, or a signal came first): withdrawn, a
		   stop in its place (carried out, or refused, at the next call), so that the
		   process never records with no one to stop it.  After a signal the start may
		   be under way: the stop has its wait. */
		watched = NULL;
		k = switch_request(pid, addr, MTRACE_CMD_STOP, NULL, caught ? wait_ms : 0, &c);
		if (k == 1 && !c.error)   /* (it had started after all) */
			print_name(&c);
		if (!caught) {
			fprintf(stderr, "mtracectl: process %d made no allocator call in %u ms: "
				"the start is withdrawn\n", (int)pid, wait_ms);
			rc = EXIT_NOANSWER;
		}
	} else if ((rc = answer(pid, &c, "start", 1)) == 0) {
		pause_ms(for_ms);
		watched = NULL;   /* (the stop has its wait, whatever comes) */
		k = switch_request(pid, addr, MTRACE_CMD_STOP, NULL, wait_ms, &c);
		if (k == 2)   /* it ended during the window: its exit finished the trace */
			print_name(&c);
		else if (k < 0)
			rc = unreachable(pid);
		else if (k == 0) {
			fprintf(stderr, "mtracectl: process %d made no allocator call since: the "
				"stop waits for its next one\n", (int)pid);
			rc = EXIT_NOANSWER;
		} else if (c.error)
			rc = answer(pid, &c, "stop", quiet);
		else
			print_name(&c);
	}
	int sig = caught;
	if (!sig) {   /* (one that came when nothing waited for it) */
		struct timespec zero = { 0, 0 };
		sig = sigtimedwait(&ending, NULL, &zero);
	}
	if (sig > 0) {
		fflush(stdout);
		signal(sig, SIG_DFL);
		raise(sig);   /* (blocked: taken as the mask is restored) */
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

int switch_main(int what, const char *pid_arg, const char *base, unsigned long for_ms,
		unsigned wait_ms, int quiet, char *started, size_t cap)
{
	char err[PATH_MAX * 4 + 600];
	uint64_t p, addr;
	if (parse_u64(pid_arg, &p) < 0 || p == 0 || p > 4194304)
		tool_die(EXIT_USAGE, "'%s' is not a process id", pid_arg);
	pid_t pid = (pid_t)p;
	if (switch_find(pid, &addr, err, sizeof err) < 0) {
		fprintf(stderr, "mtracectl: %s\n", err);
		return EXIT_UNREACH;
	}
	if (what == 'i')
		return status(pid, addr);
	if (what == 'f')
		return window(pid, addr, base, for_ms, wait_ms, quiet);
	unsigned cmd = what == 'x' ? MTRACE_CMD_STOP : MTRACE_CMD_START;
	struct mtrace_control c;
	int k = switch_request(pid, addr, cmd, base, wait_ms, &c);
	if (k < 0)
		return unreachable(pid);
	if (k == 2) {
		printf("mtracectl: process %d has ended (its exit finished its trace)\n", (int)pid);
		return 0;
	}
	if (k == 0) {
		fprintf(stderr, "mtracectl: process %d made no allocator call in %u ms: the "
			"request stands, and takes effect at its next call\n", (int)pid, wait_ms);
		return EXIT_NOANSWER;
	}
	int r = answer(pid, &c, cmd == MTRACE_CMD_STOP ? "stop" : "start", quiet);
	if (r == 0 && started && cmd == MTRACE_CMD_START)
		snprintf(started, cap, "%.*s", (int)sizeof c.file, c.file);
	return r;
}
