/* switch.c - mtracectl --start, --stop, --status and --for: a dormant tracer in a running
 * process, switched from outside (include/mtrace-control.h).
 *
 * The control block is found where the process's dynamic linker put the tracer: the mapping
 * of libmtracectl.so (or libmtrace.so) in /proc/PID/maps gives its load address, the library's
 * dynamic symbol table the offset of mtrace_control.  It is read and written with
 * process_vm_readv/writev: the kernel decides who may (whoever may ptrace the process).
 */
#define _GNU_SOURCE
#include <elf.h>
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
#include "mtrace-control.h"
#include "switch.h"
#include "tool.h"

/* ---------------------------------------------------------------------------------------------
   Finding the control block
   ------------------------------------------------------------------------------------------- */

static int is_tracer(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	return strncmp(b, "libmtracectl.so", 15) == 0 || strncmp(b, "libmtrace.so", 12) == 0;
}

/* The tracer's mapping at file offset 0 in process pid: its address and path.  0, or -1. */
static int tracer_mapping(pid_t pid, uint64_t *base, char *path, size_t cap)
{
	char maps[64], line[PATH_MAX + 256];
	snprintf(maps, sizeof maps, "/proc/%d/maps", (int)pid);
	FILE *f = fopen(maps, "re");
	if (!f)
		return -1;
	int found = 0;
	while (!found && fgets(line, sizeof line, f)) {
		unsigned long long lo, hi, off;
		char *p = strchr(line, '/');
		if (!p || sscanf(line, "%llx-%llx %*s %llx", &lo, &hi, &off) != 3 || off != 0)
			continue;
		p[strcspn(p, "\n")] = 0;
		if (strstr(p, " (deleted)") || !is_tracer(p))
			continue;
		*base = lo;
		snprintf(path, cap, "%s", p);
		found = 1;
	}
	fclose(f);
	if (!found)
		errno = ENOENT;
	return found ? 0 : -1;
}

/* Read n bytes at off of fd: 0, or -1. */
static int read_at(int fd, void *buf, size_t n, uint64_t off)
{
	return pread(fd, buf, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

/* The value of dynamic symbol name in the ELF file fd less the address of its first loaded
   segment: what to add to the load address.  0 and *value, or -1.  ELF32 and ELF64, in the
   reader's byte order (the process is this machine's). */
static int symbol_offset(int fd, const char *name, uint64_t *value)
{
	unsigned char ident[EI_NIDENT];
	if (read_at(fd, ident, sizeof ident, 0) < 0 || memcmp(ident, ELFMAG, SELFMAG) != 0)
		return -1;
	int is64 = ident[EI_CLASS] == ELFCLASS64;
	uint64_t shoff, phoff;
	unsigned shnum, shentsize, phnum, phentsize;
	if (is64) {
		Elf64_Ehdr e;
		if (read_at(fd, &e, sizeof e, 0) < 0)
			return -1;
		shoff = e.e_shoff, shnum = e.e_shnum, shentsize = e.e_shentsize;
		phoff = e.e_phoff, phnum = e.e_phnum, phentsize = e.e_phentsize;
	} else {
		Elf32_Ehdr e;
		if (read_at(fd, &e, sizeof e, 0) < 0)
			return -1;
		shoff = e.e_shoff, shnum = e.e_shnum, shentsize = e.e_shentsize;
		phoff = e.e_phoff, phnum = e.e_phnum, phentsize = e.e_phentsize;
	}
	if (shnum > 4096 || phnum > 4096)
		return -1;
	/* the first PT_LOAD's address: the load address is where it went */
	uint64_t first = UINT64_MAX;
	for (unsigned i = 0; i < phnum; i++) {
		uint64_t at = phoff + (uint64_t)i * phentsize, type, vaddr, offset;
		if (is64) {
			Elf64_Phdr ph;
			if (read_at(fd, &ph, sizeof ph, at) < 0)
				return -1;
			type = ph.p_type, vaddr = ph.p_vaddr, offset = ph.p_offset;
		} else {
			Elf32_Phdr ph;
			if (read_at(fd, &ph, sizeof ph, at) < 0)
				return -1;
			type = ph.p_type, vaddr = ph.p_vaddr, offset = ph.p_offset;
		}
		if (type == PT_LOAD && offset == 0 && vaddr < first)
			first = vaddr;
	}
	if (first == UINT64_MAX)
		return -1;
	for (unsigned i = 0; i < shnum; i++) {
		uint64_t at = shoff + (uint64_t)i * shentsize, size, off, entsize, link;
		unsigned type;
		if (is64) {
			Elf64_Shdr sh;
			if (read_at(fd, &sh, sizeof sh, at) < 0)
				return -1;
			type = sh.sh_type, size = sh.sh_size, off = sh.sh_offset,
			entsize = sh.sh_entsize, link = sh.sh_link;
		} else {
			Elf32_Shdr sh;
			if (read_at(fd, &sh, sizeof sh, at) < 0)
				return -1;
			type = sh.sh_type, size = sh.sh_size, off = sh.sh_offset,
			entsize = sh.sh_entsize, link = sh.sh_link;
		}
		if (type != SHT_DYNSYM || entsize == 0 || link >= shnum)
			continue;
		uint64_t stroff;
		if (is64) {
			Elf64_Shdr str;
			if (read_at(fd, &str, sizeof str, shoff + link * (uint64_t)shentsize) < 0)
				return -1;
			stroff = str.sh_offset;
		} else {
			Elf32_Shdr str;
			if (read_at(fd, &str, sizeof str, shoff + link * (uint64_t)shentsize) < 0)
				return -1;
			stroff = str.sh_offset;
		}
		size_t want = strlen(name) + 1;
		for (uint64_t k = 0; k < size / entsize && k < 1000000; k++) {
			uint64_t nameoff, val;
			if (is64) {
				Elf64_Sym sy;
				if (read_at(fd, &sy, sizeof sy, off + k * entsize) < 0)
					return -1;
				nameoff = sy.st_name, val = sy.st_value;
			} else {
				Elf32_Sym sy;
				if (read_at(fd, &sy, sizeof sy, off + k * entsize) < 0)
					return -1;
				nameoff = sy.st_name, val = sy.st_value;
			}
			char got[64];
			if (want <= sizeof got && read_at(fd, got, want, stroff + nameoff) == 0 &&
			    memcmp(got, name, want) == 0 && val) {
				*value = val - first;
				return 0;
			}
		}
	}
	return -1;
}

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

/* The address of process pid's control block, checked.  0, or -1 with the reason in err. */
int switch_find(pid_t pid, uint64_t *addr, char *err, size_t cap)
{
	char path[PATH_MAX], file[PATH_MAX + 64];
	uint64_t base, off;
	if (kill(pid, 0) < 0 && errno == ESRCH) {
		snprintf(err, cap, "no process %d", (int)pid);
		return -1;
	}
	if (tracer_mapping(pid, &base, path, sizeof path) < 0) {
		if (errno == EACCES || errno == EPERM)
			snprintf(err, cap, "process %d: you may not inspect it (%s): switch it "
				 "as its user, or as root", (int)pid, strerror(errno));
		else
			snprintf(err, cap, "process %d has no tracer loaded (start it with "
				 "mtracectl --dormant, or MTRACE_CTL_START=0 and the preload)",
				 (int)pid);
		return -1;
	}
	/* the library as the process sees it (its mount namespace), else by its path here */
	snprintf(file, sizeof file, "/proc/%d/root%s", (int)pid, path);
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || symbol_offset(fd, MTRACE_CONTROL_SYMBOL, &off) < 0) {
		snprintf(err, cap, "process %d: %s has no %s (a tracer too old to be switched from "
			 "outside?)", (int)pid, path, MTRACE_CONTROL_SYMBOL);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	*addr = base + off;
	char magic[8];
	uint32_t size;
	if (peek(pid, *addr, magic, sizeof magic) < 0 ||
	    peek(pid, *addr + offsetof(struct mtrace_control, size), &size, sizeof size) < 0) {
		snprintf(err, cap, "process %d: you may not inspect it (%s): switch it as its "
			 "user, or as root", (int)pid, strerror(errno));
		return -1;
	}
	if (memcmp(magic, MTRACE_CONTROL_MAGIC, sizeof magic) != 0 ||
	    size != sizeof(struct mtrace_control)) {
		snprintf(err, cap, "process %d: its tracer speaks another version of the protocol "
			 "(use the mtracectl that came with it)", (int)pid);
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------------------------------------
   Requests
   ------------------------------------------------------------------------------------------- */

int switch_read(pid_t pid, uint64_t addr, struct mtrace_control *c)
{
	return peek(pid, addr, c, sizeof *c);
}

/* Ask for cmd (with base), and wait up to wait_ms for it to be carried out: 1 done (c holds the
   process's answer), 2 the process ended meanwhile, 0 not yet, -1 on error (errno). */
int switch_request(pid_t pid, uint64_t addr, unsigned cmd, const char *base, unsigned wait_ms,
		   struct mtrace_control *c)
{
	if (switch_read(pid, addr, c) < 0)
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
		if (switch_read(pid, addr, c) < 0) {
			if (errno == ESRCH)   /* it ended: its exit finished whatever it recorded */
				return 2;
			return -1;
		}
		if (c->done == req)
			return 1;
		if (waited >= wait_ms)
			return 0;
		struct timespec d = { 0, 10000000 };
		nanosleep(&d, NULL);
	}
}

/* ---------------------------------------------------------------------------------------------
   mtracectl --start, --stop, --status, --for
   ------------------------------------------------------------------------------------------- */

#define EXIT_REFUSED  1    /* the process refused the request (already recording, say) */
#define EXIT_NOANSWER 3    /* no allocator call within the wait: the request stands */
#define EXIT_UNREACH  125  /* no such process, no tracer in it, not allowed to inspect it */

/* "FILE, N bytes" of a trace, or just FILE */
static const char *describe(const char *file, char *buf, size_t cap)
{
	struct stat st;
	char n[32];
	if (stat(file, &st) == 0)
		snprintf(buf, cap, "%s, %s bytes", file,
			 fmt_commas(n, (unsigned long long)st.st_size));
	else
		snprintf(buf, cap, "%s", file);
	return buf;
}

static int answer(pid_t pid, const struct mtrace_control *c, const char *what, int quiet)
{
	char d[PATH_MAX + 200];
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

int switch_main(int what, const char *pid_arg, const char *base, unsigned long for_ms,
		unsigned wait_ms, int quiet)
{
	char err[PATH_MAX + 300];
	uint64_t p, addr;
	if (parse_u64(pid_arg, &p) < 0 || p == 0 || p > 4194304)
		tool_die(EXIT_USAGE, "'%s' is not a process id", pid_arg);
	pid_t pid = (pid_t)p;
	if (switch_find(pid, &addr, err, sizeof err) < 0) {
		fprintf(stderr, "mtracectl: %s\n", err);
		return EXIT_UNREACH;
	}
	struct mtrace_control c;
	if (what == 'i') {
		if (switch_read(pid, addr, &c) < 0)
			tool_die(EXIT_UNREACH, "process %d: %s", (int)pid, strerror(errno));
		char d[PATH_MAX + 200];
		if (c.state == MTRACE_STATE_RECORDING)
			printf("mtracectl: process %d: recording to %s\n", (int)pid,
			       describe(c.file, d, sizeof d));
		else if (c.file[0])
			printf("mtracectl: process %d: dormant; its last trace %s\n", (int)pid,
			       describe(c.file, d, sizeof d));
		else
			printf("mtracectl: process %d: dormant\n", (int)pid);
		if (c.request != c.done)
			printf("mtracectl: process %d: a request waits for its next allocator "
			       "call\n", (int)pid);
		return 0;
	}
	unsigned cmd = what == 'x' ? MTRACE_CMD_STOP : MTRACE_CMD_START;
	int k = switch_request(pid, addr, cmd, base, wait_ms, &c);
	if (k < 0)
		tool_die(EXIT_UNREACH, "process %d: %s", (int)pid, strerror(errno));
	if (k == 2) {
		printf("mtracectl: process %d has ended (its exit finished its trace)\n", (int)pid);
		return 0;
	}
	if (k == 0) {
		fprintf(stderr, "mtracectl: process %d made no allocator call in %u ms: the "
			"request stands, and takes effect at its next call\n", (int)pid, wait_ms);
		return EXIT_NOANSWER;
	}
	int rc = answer(pid, &c, cmd == MTRACE_CMD_STOP ? "stop" : "start", quiet || what == 'f');
	if (rc || what != 'f')
		return rc;
	/* --for: the window, then its stop */
	struct timespec d = { (time_t)(for_ms / 1000), (long)(for_ms % 1000) * 1000000 };
	while (nanosleep(&d, &d) < 0 && errno == EINTR)
		;
	k = switch_request(pid, addr, MTRACE_CMD_STOP, NULL, wait_ms, &c);
	if (k == 2) {   /* it ended during the window: its exit finished the trace */
		printf("%s\n", c.file);
		return 0;
	}
	if (k <= 0) {
		fprintf(stderr, "mtracectl: process %d %s: the stop waits for its next allocator "
			"call\n", (int)pid,
			k < 0 ? strerror(errno) : "made no allocator call since");
		return k < 0 ? EXIT_UNREACH : EXIT_NOANSWER;
	}
	if (c.error)
		return answer(pid, &c, "stop", quiet);
	printf("%s\n", c.file);   /* (the trace's name alone: for a script) */
	return 0;
}
