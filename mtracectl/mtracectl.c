/* mtracectl - run a program with every allocator call traced.
 *
 * Sets LD_PRELOAD (ours first, so a preloaded allocator after it is the one traced) and the
 * MTRACE_CTL_* variables, runs the program, and at the end lists the trace file of every
 * process it became (forks and execs included), which the tracer appended to a manifest file.
 * Named mtracectl, not mtrace: glibc's libc-dev-bin installs an unrelated mtrace script.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "hint.h"
#include "report.h"
#include "send.h"
#include "signals.h"
#include "switch.h"
#include "tool.h"
#include "trace_reader.h"
#include "internal/mt-size.h"   /* MTRACE_CTL_MAX_SIZE's grammar, as the tracer reads it */

#ifndef MTRACE_LIBDIR
#define MTRACE_LIBDIR "/usr/local/lib"
#endif
#ifndef MTRACE_LIBDIR_FROM_BIN   /* the library directory as seen from the installed mtracectl's */
#define MTRACE_LIBDIR_FROM_BIN "../lib"
#endif

static const char usage_text[] =
	"Usage: mtracectl [OPTION]... [--] PROGRAM [ARGUMENT]...\n"
	"  or:  mtracectl --start|--stop|--status|--for=DURATION [-o BASE] PID\n"
	"  or:  mtracectl --send=DEST [OPTION]... [--] PROGRAM [ARGUMENT]...\n"
	"  or:  mtracectl --start --send=DEST [-o BASE] PID\n"
	"Run PROGRAM with every malloc, free, calloc, realloc, reallocarray,\n"
	"posix_memalign, aligned_alloc, memalign, valloc and pvalloc call traced, one\n"
	"trace file per process. With --dormant the tracer is loaded but records nothing\n"
	"until it is switched on from outside: --start PID, --stop PID, --status PID,\n"
	"--for=DURATION PID (start, wait, stop, print the trace's name; DURATION in s,\n"
	"or with ms, s, m or h after it).\n"
	"\n"
	"  -o, --output=BASE  trace files are BASE.<pid> (BASE.<pid>.<n> if taken), or\n"
	"                     DIR/mtrace.out.<pid> when BASE is a directory;\n"
	"                     default $MTRACE_CTL_FILE or /tmp/mtrace.out\n"
	"  -d, --durations    record how long every call took (costs a second clock\n"
	"                     read)\n"
	"      --stacks[=DEPTH]  record the call stack of every allocating call, DEPTH\n"
	"                     frames at most (default 64, at most 128)\n"
	"  -P, --private      leave the executable path and command line out of the\n"
	"                     traces\n"
	"      --no-thread    never start the thread that populates the trace's pages\n"
	"                     ahead (the program's own threads then do it, at their\n"
	"                     cost)\n"
	"  -S, --max-size=SIZE  stop tracing a process once its trace would grow past\n"
	"                     SIZE bytes (K, M, G, T after the number: KiB ... TiB); the\n"
	"                     program goes on, and the trace says where and why it\n"
	"                     stopped\n"
	"  -q, --quiet        print nothing but errors\n"
	"      --only=NAME[,NAME...]  trace only the processes whose program's file name\n"
	"                     begins with a NAME (python3: python3.11, not the shell\n"
	"                     scripts and tools that start it); the others are dormant\n"
	"      --dormant      load the tracer in PROGRAM (and its children) recording\n"
	"                     nothing\n"
	"      --wait=SECONDS how long --start, --stop and --for wait for PID's next\n"
	"                     allocator call, which carries the request out (default 5)\n"
	"      --lib=PATH     the preload library (default: found next to this program)\n"
	"      --send=DEST    send every trace, as it is written, to a collector\n"
	"                     (trace_recv): DEST is HOST:PORT, or |COMMAND run by sh -c\n"
	"                     with the stream on its standard input and output\n"
	"                     ('|ssh HOST trace_recv -o DIR -'); the program never waits\n"
	"                     for it; a dropped link is resumed where it was\n"
	"                     acknowledged\n"
	"      --send-compress=auto|none|slots  compress what is sent: slots packs each\n"
	"                     1 MiB range alone (3-4x on traces); auto (the default)\n"
	"                     packs when the collector reads it, slots requires it\n"
	"      --send-wait=SECONDS  after the program ended, how long to go on trying to\n"
	"                     deliver what is not acknowledged (default 60); then the\n"
	"                     local files keep it and mtracectl exits 125\n"
	"      --no-keep      with --send: give the local files' blocks back once the\n"
	"                     collector has them (holes punched: the files keep their\n"
	"                     size), so that the disk holds only what is in flight\n"
	"      --backlog=SIZE with --send: when more than SIZE bytes (K, M, G, T after\n"
	"                     the number) are not acknowledged, the link down too long,\n"
	"                     the traces stop, their headers saying why\n"
	"  -h, --help         show this help and exit\n"
	"  -V, --version      show the version and exit\n"
	"\n"
	"To trace another allocator, preload it after the tracer:\n"
	"  LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 mtracectl -- PROGRAM\n"
	"\n"
	"Every signal sent to mtracectl that it can catch goes on to PROGRAM; stopped\n"
	"(^Z, SIGTSTP), mtracectl stops once PROGRAM has, and continues it when\n"
	"continued. mtracectl waits for PROGRAM to end, then lists the traces and the\n"
	"command that makes a workload of one (next: trace2wl ...).  Its manifest of the\n"
	"traces is a file in $TMPDIR, else /tmp.  --for stops the recording before a\n"
	"signal ends it.\n"
	"\n"
	"Exit status: PROGRAM's own; 128+N if it was killed by signal N; 2 bad command\n"
	"line (mtracectl's own options: PROGRAM is not run); 125 if mtracectl failed, or\n"
	"no trace can be written where BASE says (checked before PROGRAM runs); 126 if\n"
	"PROGRAM cannot be traced (statically linked); 127 if it cannot be run.\n"
	"Switching PID: 0 done; 1 refused (already recording, nothing to stop); 2 bad\n"
	"command line; 3 no allocator call within the wait (the request stands); 125 no\n"
	"such process, no tracer in it, or not allowed to inspect it (the kernel's\n"
	"ptrace rules).\n";

#define EXIT_NOTRACE 126
#define EXIT_NORUN   127

static int quiet;

/* ---------------------------------------------------------------------------------------------
   Finding things
   ------------------------------------------------------------------------------------------- */

#define FOR_MAX_MS (30ull * 24 * 3600 * 1000)   /* --for: a window of 30 days at most */

/* --for's DURATION: digits, a fraction maybe, and a unit maybe ("10", "2.5", "10s", "500ms",
   "5m", "1h"): milliseconds, rounded, up to FOR_MAX_MS.  0, or -1 (nan, inf, a sign, an
   exponent, hexadecimal, spaces: strtod's other numbers are no durations). */
static int parse_duration_ms(const char *s, unsigned long *ms)
{
	uint64_t whole = 0, frac = 0, scale = 1, unit = 1000;
	const char *p = s;
	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++)
		if ((whole = whole * 10 + (uint64_t)(*p - '0')) > FOR_MAX_MS)
			return -1;
	if (*p == '.') {
		if (*++p < '0' || *p > '9')
			return -1;
		for (; *p >= '0' && *p <= '9'; p++)
			if (scale < 1000000)   /* (finer than a microsecond is lost) */
				frac = frac * 10 + (uint64_t)(*p - '0'), scale *= 10;
	}
	if (!strcmp(p, "ms"))
		unit = 1;
	else if (!strcmp(p, "m"))
		unit = 60000;
	else if (!strcmp(p, "h"))
		unit = 3600000;
	else if (*p && strcmp(p, "s"))
		return -1;
	uint64_t v = whole * unit + (frac * unit + scale / 2) / scale;
	if (v > FOR_MAX_MS)
		return -1;
	*ms = (unsigned long)v;
	return 0;
}

/* BASE made absolute from here (the process is elsewhere), a directory as DIR/mtrace.out. */
static const char *absolute_base(const char *base, char *buf, size_t cap)
{
	char cwd[PATH_MAX], real[PATH_MAX];
	struct stat st;
	if (base[0] != '/') {
		if (!getcwd(cwd, sizeof cwd) || snprintf(buf, cap, "%s/%s", cwd, base) >= (int)cap)
			tool_die(EXIT_TOOL, "%s: cannot make the trace name absolute", base);
	} else
		snprintf(buf, cap, "%s", base);
	if (stat(buf, &st) == 0 && S_ISDIR(st.st_mode) && realpath(buf, real) &&
	    snprintf(buf, cap, "%s/mtrace.out", strcmp(real, "/") ? real : "") >= (int)cap)
		tool_die(EXIT_TOOL, "%s: too long a trace name", real);
	return buf;
}

static int readable(const char *path)
{
	return access(path, R_OK) == 0;
}

static const char *find_lib(const char *given, char *buf, size_t cap)
{
	if (given)
		return given;
	const char *env = getenv("MTRACE_CTL_LIB");
	if (env && *env)
		return env;
	/* where it was installed, seen from this program (so also in a DESTDIR staging tree, or an
	   installation moved elsewhere), then the build tree's ../lib */
	char self[PATH_MAX - 64];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = 0;
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = 0;
			static const char *const rel[] = { MTRACE_LIBDIR_FROM_BIN, "../lib" };
			for (int i = 0; i < 2; i++) {
				snprintf(buf, cap, "%s/%s/libmtracectl.so", self, rel[i]);
				if (readable(buf))
					return buf;
			}
		}
	}
	snprintf(buf, cap, "%s/libmtracectl.so", MTRACE_LIBDIR);
	return buf;
}

/* PROGRAM as execvp would find it, or NULL. */
static const char *find_program(const char *prog, char *buf, size_t cap)
{
	if (strchr(prog, '/'))
		return prog;
	const char *path = getenv("PATH");
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t len = colon ? (size_t)(colon - path) : strlen(path);
		snprintf(buf, cap, "%.*s/%s", (int)len, len ? path : ".", prog);
		if (access(buf, X_OK) == 0)
			return buf;
		path += len + (colon != NULL);
	}
	return NULL;
}

/* An ELF executable without a PT_INTERP segment is statically linked: the dynamic loader never
   runs for it, so LD_PRELOAD cannot reach its allocator. */
static int is_static_elf(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	Elf64_Ehdr eh;
	int result = 0;
	if (pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh &&
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
	    eh.e_type == ET_EXEC && eh.e_phentsize == sizeof(Elf64_Phdr)) {
		result = 1;
		for (unsigned i = 0; i < eh.e_phnum; i++) {
			Elf64_Phdr ph;
			if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + i * sizeof ph)) !=
			    (ssize_t)sizeof ph)
				break;
			if (ph.p_type == PT_INTERP || ph.p_type == PT_DYNAMIC) {
				result = 0;
				break;
			}
		}
	}
	close(fd);
	return result;
}

/* The traces' directory must take files before the program runs: else it would run to its end
   untraced, the tracer only warning from inside it.  A file made and removed there is the test
   (permissions, a read-only filesystem, an ACL or a full inode table all show).  base: the
   absolute BASE (ending in '/' for a directory); given: what the user named it as, for the
   message. */
static void check_output_place(const char *base, const char *given)
{
	char dir[PATH_MAX + 2], probe[PATH_MAX + 32];
	const char *slash = strrchr(base, '/');
	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - base) + 1 : 0, base);
	if (!slash)
		snprintf(dir, sizeof dir, "./");
	struct stat st;
	int fd = -1, e = stat(dir, &st) < 0 ? errno : !S_ISDIR(st.st_mode) ? ENOTDIR : 0;
	if (!e) {
		snprintf(probe, sizeof probe, "%s.mtracectl-XXXXXX", dir);
		fd = mkstemp(probe);
		e = fd < 0 ? errno : 0;
	}
	if (e) {
		size_t n = strlen(dir);
		if (n > 1)
			dir[n - 1] = 0;   /* (its '/' off, as a directory is named) */
		tool_die(EXIT_TOOL, "%s: no trace can be written in %s: %s (the program was not "
			 "run)", given, dir, strerror(e));
	}
	close(fd);
	unlink(probe);
}

/* ---------------------------------------------------------------------------------------------
   The manifest: the file every process of the program appends its trace's name to
   ------------------------------------------------------------------------------------------- */

static char manifest[PATH_MAX];   /* (static: removed at exit, tool_temp_add) */

/* In $TMPDIR, else /tmp; absolute, as every process of the program opens it from wherever it
   has moved to */
static void make_manifest(void)
{
	const char *env = getenv("TMPDIR");
	char dir[PATH_MAX];
	int e = 0;
	for (int i = 0; i < 2; i++) {
		if (i == 0 && (!env || !*env || !realpath(env, dir)))
			continue;
		if (i == 1)
			snprintf(dir, sizeof dir, "/tmp");
		if (snprintf(manifest, sizeof manifest, "%s/mtracectl.XXXXXX",
			     strcmp(dir, "/") ? dir : "") >= (int)sizeof manifest)
			continue;
		int fd = mkstemp(manifest);
		if (fd >= 0) {
			close(fd);
			tool_temp_add(manifest);
			return;
		}
		e = errno;
	}
	tool_die(EXIT_TOOL, "cannot create a temporary file in %s%s/tmp: %s",
		 env && *env ? env : "", env && *env ? " (TMPDIR) or " : "",
		 strerror(e ? e : ENAMETOOLONG));
}

int main(int argc, char **argv)
{
	tool_set_name("mtracectl", argv);
	/* the long-only options' codes: below any letter's */
	enum { OPT_LIB = 1, OPT_NO_THREAD, OPT_DORMANT, OPT_START, OPT_STOP, OPT_STATUS, OPT_FOR,
	       OPT_WAIT, OPT_ONLY, OPT_STACKS, OPT_SEND, OPT_SEND_WAIT, OPT_NO_KEEP,
	       OPT_SEND_COMPRESS,
	       OPT_BACKLOG };
	static const struct option longopts[] = {
		{ "output", required_argument, 0, 'o' }, { "durations", no_argument, 0, 'd' },
		{ "private", no_argument, 0, 'P' }, { "quiet", no_argument, 0, 'q' },
		{ "lib", required_argument, 0, OPT_LIB }, { "help", no_argument, 0, 'h' },
		{ "version", no_argument, 0, 'V' }, { "no-thread", no_argument, 0, OPT_NO_THREAD },
		{ "max-size", required_argument, 0, 'S' },
		{ "dormant", no_argument, 0, OPT_DORMANT }, { "start", no_argument, 0, OPT_START },
		{ "stop", no_argument, 0, OPT_STOP }, { "status", no_argument, 0, OPT_STATUS },
		{ "for", required_argument, 0, OPT_FOR },
		{ "wait", required_argument, 0, OPT_WAIT },
		{ "only", required_argument, 0, OPT_ONLY },
		{ "stacks", optional_argument, 0, OPT_STACKS },
		{ "send", required_argument, 0, OPT_SEND },
		{ "send-wait", required_argument, 0, OPT_SEND_WAIT },
		{ "no-keep", no_argument, 0, OPT_NO_KEEP },
		{ "send-compress", required_argument, 0, OPT_SEND_COMPRESS },
		{ "backlog", required_argument, 0, OPT_BACKLOG },
		{ 0, 0, 0, 0 },
	};
	const char *output = NULL, *lib_opt = NULL, *max_size = NULL, *only = NULL;
	char stacks[16] = "";
	uint64_t cap;
	int durations = 0, private_hdr = 0, no_thread = 0, dormant = 0, remote = 0, c;
	unsigned long for_ms = 0;
	uint64_t wait_s = 5, send_wait_s = 60;
	struct send_opts so = { 0 };
	int compress_given = 0;
	/* '+': options end at PROGRAM, whose own options are its business */
	while ((c = getopt_long(argc, argv, "+o:dPqS:hV", longopts, NULL)) != -1) {
		int what = c == OPT_START ? 's' : c == OPT_STOP ? 'x' : c == OPT_STATUS ? 'i' : 'f';
		switch (c) {
		case 'o': output = optarg; break;
		case 'd': durations = 1; break;
		case 'P': private_hdr = 1; break;
		case OPT_NO_THREAD: no_thread = 1; break;
		case OPT_STACKS: {
			char *end;
			unsigned long d = optarg ? strtoul(optarg, &end, 10) :
				MTRACE_STACK_DEPTH_DEFAULT;
			if (optarg && (*end || !*optarg || optarg[0] == '-' || d == 0 ||
				       d > MTRACE_STACK_DEPTH_MAX))
				tool_die(EXIT_USAGE, "--stacks=%s: a depth from 1 to %u", optarg,
					 MTRACE_STACK_DEPTH_MAX);
			snprintf(stacks, sizeof stacks, "%lu", d);
			break;
		}
		case 'q': quiet = 1; break;
		case OPT_LIB: lib_opt = optarg; break;
		case 'S':
			if (mt_parse_size(optarg, &cap) < 0 || cap < MT_MAX_SIZE_MIN)
				tool_die(EXIT_USAGE, "--max-size wants a size of 5K or more "
					 "(bytes, or a number with K, M, G or T after it), "
					 "not '%s'", optarg);
			max_size = optarg;
			break;
		case OPT_DORMANT: dormant = 1; break;
		case OPT_ONLY:
			if (!*optarg || strchr(optarg, '/') || strstr(optarg, ",,") ||
			    optarg[0] == ',' || optarg[strlen(optarg) - 1] == ',' ||
			    strlen(optarg) > 1000)
				tool_die(EXIT_USAGE, "--only wants program file names separated by "
					 "commas (python3,node), not '%s'", optarg);
			only = optarg;
			break;
		case OPT_FOR:
			if (parse_duration_ms(optarg, &for_ms) < 0)
				tool_die(EXIT_USAGE, "--for wants a duration of up to 30 days (10, "
					 "2.5s, 500ms, 5m, 1h), not '%s'", optarg);
			/* fall through */
		case OPT_START: case OPT_STOP: case OPT_STATUS:
			if (remote && remote != what)
				tool_die(EXIT_USAGE,
					 "--start, --stop, --status and --for: one at a time");
			remote = what;
			break;
		case OPT_WAIT:
			if (parse_u64(optarg, &wait_s) < 0 || wait_s > 86400)
				tool_die(EXIT_USAGE, "--wait wants seconds, not '%s'", optarg);
			break;
		case OPT_SEND:
			if (!link_dest_ok(optarg))
				tool_die(EXIT_USAGE, "--send wants HOST:PORT or |COMMAND, not '%s'",
					 optarg);
			so.dest = optarg;
			break;
		case OPT_NO_KEEP: so.no_keep = 1; break;
		case OPT_SEND_COMPRESS:
			if (!strcmp(optarg, "auto"))
				so.compress = SEND_COMPRESS_AUTO;
			else if (!strcmp(optarg, "none"))
				so.compress = SEND_COMPRESS_NONE;
			else if (!strcmp(optarg, "slots"))
				so.compress = SEND_COMPRESS_SLOTS;
			else
				tool_die(EXIT_USAGE, "--send-compress wants auto, none or "
					 "slots, not '%s'", optarg);
			compress_given = 1;
			break;
		case OPT_BACKLOG:
			if (mt_parse_size(optarg, &so.backlog) < 0 || so.backlog == 0)
				tool_die(EXIT_USAGE, "--backlog wants a size (bytes, or a number with "
					 "K, M, G or T after it), not '%s'", optarg);
			break;
		case OPT_SEND_WAIT:
			if (parse_u64(optarg, &send_wait_s) < 0 || send_wait_s > 86400 * 30)
				tool_die(EXIT_USAGE, "--send-wait wants seconds, not '%s'", optarg);
			break;
		case 'h': tool_help(usage_text);
		case 'V': tool_version();
		default: fputs("Try 'mtracectl --help'.\n", stderr); return EXIT_USAGE;
		}
	}
	if ((so.no_keep || so.backlog || compress_given) && !so.dest)
		tool_die(EXIT_USAGE, "--no-keep, --backlog and --send-compress go with --send");
	so.quiet = quiet;
	so.give_up_s = (unsigned)send_wait_s;
	if (remote) {
		if (optind != argc - 1)
			tool_die(EXIT_USAGE,
				 "--start, --stop, --status and --for take one process id");
		char absb[PATH_MAX + 2];
		const char *b = output ? absolute_base(output, absb, sizeof absb) : NULL;
		if (so.dest && remote != 's')
			tool_die(EXIT_USAGE, "--send goes with --start, or a program to run");
		return so.dest ? send_started(&so, argv[optind], b, (unsigned)wait_s * 1000, quiet)
			       : switch_main(remote, argv[optind], b, for_ms,
					     (unsigned)wait_s * 1000, quiet, NULL, 0);
	}
	if (optind == argc) {
		fputs("mtracectl: no program given\nTry 'mtracectl --help'.\n", stderr);
		return EXIT_USAGE;
	}
	char **prog_argv = argv + optind;
	if (output && !*output)
		tool_die(EXIT_USAGE, "--output wants a file name");
	/* every process opens BASE.<pid> from wherever it has moved to (a script's cd): a relative
	   BASE is made absolute here, so that all the traces land, and are listed, in one place */
	const char *base = output ? output : getenv("MTRACE_CTL_FILE");
	char absbase[PATH_MAX + 1], cwd[PATH_MAX];
	if (base && *base && base[0] != '/') {
		if (!getcwd(cwd, sizeof cwd) ||
		    snprintf(absbase, sizeof absbase, "%s/%s", cwd, base) >= (int)sizeof absbase)
			tool_die(EXIT_TOOL, "%s: cannot make the trace name absolute: %s", base,
				 strerror(errno ? errno : ENAMETOOLONG));
		base = absbase;
	}
	/* -o DIR: the traces go into DIR (the library reads a base ending in '/' so) */
	struct stat bst;
	char dirbase[PATH_MAX + 2], real[PATH_MAX];
	if (base && *base && stat(base, &bst) == 0 && S_ISDIR(bst.st_mode) &&
	    realpath(base, real)) {
		snprintf(dirbase, sizeof dirbase, "%s/", strcmp(real, "/") ? real : "");
		base = dirbase;
	}

	char given[PATH_MAX + 64];   /* how the user named the traces' place, for the message */
	if (output)
		snprintf(given, sizeof given, "--output %s", output);
	else if (base && *base)
		snprintf(given, sizeof given, "MTRACE_CTL_FILE=%s", getenv("MTRACE_CTL_FILE"));
	else
		snprintf(given, sizeof given, "/tmp/mtrace.out (the default)");
	check_output_place(base && *base ? base : "/tmp/mtrace.out", given);

	char libbuf[PATH_MAX], progbuf[PATH_MAX];
	const char *lib = find_lib(lib_opt, libbuf, sizeof libbuf);
	if (!readable(lib))
		tool_die(EXIT_TOOL, "cannot find the preload library %s (use --lib)", lib);
	const char *prog = find_program(prog_argv[0], progbuf, sizeof progbuf);
	if (prog == NULL)
		tool_die(EXIT_NORUN, "%s: command not found", prog_argv[0]);
	if (is_static_elf(prog))
		tool_die(EXIT_NOTRACE, "%s is statically linked: LD_PRELOAD cannot reach its "
			 "allocator, so it cannot be traced", prog);

	/* absolute (every process of the program loads it, wherever it has moved to), and free of
	   LD_PRELOAD's separators, which ld.so would only warn about: the resolved path if the
	   given one has a space, tab or colon (a link to the library from a plain path works) */
	char lib_abs[PATH_MAX];
	if (realpath(lib, lib_abs) == NULL)
		tool_die(EXIT_TOOL, "%s: %s", lib, strerror(errno));
	if (lib[0] == '/' && strlen(lib) < sizeof lib_abs && !strpbrk(lib, " \t:"))
		memcpy(lib_abs, lib, strlen(lib) + 1);
	if (strpbrk(lib_abs, " \t:"))
		tool_die(EXIT_TOOL, "%s: LD_PRELOAD cannot name a path with a space, tab or colon "
			 "in it (install elsewhere, or give --lib a link to it from a plain path)",
			 lib_abs);
	const char *old = getenv("LD_PRELOAD");
	char *preload;
	if (asprintf(&preload, "%s%s%s", lib_abs, old && *old ? " " : "", old ? old : "") < 0)
		tool_die(EXIT_SYSTEM, "out of memory");

	make_manifest();
	int send_done = -1;
	pid_t sender = 0;
	if (so.dest) {   /* (before the environment is the program's) */
		sender = send_start(&so, manifest, NULL, -1, 0, &send_done);
		if (sender < 0)
			tool_die(EXIT_TOOL, "cannot start the sender: %s", strerror(errno));
	}

	setenv("LD_PRELOAD", preload, 1);
	setenv("MTRACE_CTL_MANIFEST", manifest, 1);
	setenv("MTRACE_CTL_QUIET", "1", 1);   /* we report at the end; failures still print */
	if (base && *base)
		setenv("MTRACE_CTL_FILE", base, 1);
	if (durations)
		setenv("MTRACE_CTL_DURATIONS", "1", 1);
	if (private_hdr)
		setenv("MTRACE_CTL_PRIVATE", "1", 1);
	if (stacks[0])
		setenv("MTRACE_CTL_STACKS", stacks, 1);
	if (no_thread)
		setenv("MTRACE_CTL_NOTHREAD", "1", 1);
	if (max_size)
		setenv("MTRACE_CTL_MAX_SIZE", max_size, 1);
	if (dormant)
		setenv("MTRACE_CTL_START", "0", 1);
	if (only)
		setenv("MTRACE_CTL_ONLY", only, 1);

	/* the child's errno comes through it if its exec fails (closed by a successful one): a
	   program that never ran has no traces to report */
	int exec_pipe[2];
	if (pipe2(exec_pipe, O_CLOEXEC) < 0)
		tool_die(EXIT_TOOL, "pipe: %s", strerror(errno));
	sigset_t old_mask;
	forward_setup(&old_mask);
	pid_t pid = fork();
	if (pid < 0)
		tool_die(EXIT_TOOL, "fork: %s", strerror(errno));
	if (pid == 0) {
		forward_undo(&old_mask);
		close(exec_pipe[0]);
		execv(prog, prog_argv);
		int e = errno;
		fprintf(stderr, "mtracectl: cannot run %s: %s\n", prog, strerror(e));
		ssize_t told = write(exec_pipe[1], &e, sizeof e);
		(void)told;   /* (if the pipe fails, the parent reports as after a run) */
		_exit(e == ENOENT ? EXIT_NORUN : EXIT_NOTRACE);
	}
	close(exec_pipe[1]);
	int exec_errno;
	ssize_t got;
	while ((got = read(exec_pipe[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR)
		;
	close(exec_pipe[0]);
	int ran = got != (ssize_t)sizeof exec_errno;
	/* like system(), the terminal's ^C and ^\ are for the program; signals sent to us go on
	   to it; either way we stay to report */
	int status = wait_program(pid, &old_mask);
	if (status < 0)
		tool_die(EXIT_TOOL, "waiting for %s: %s", prog_argv[0], strerror(errno));
	int undelivered = 0;
	if (sender > 0) {   /* the tree ended: the sender finishes the files and delivers them */
		close(send_done);
		undelivered = send_wait(sender) != 0;
	}
	if (!quiet && ran)
		report_traces(manifest);
	tool_remove_temps();
	if (undelivered)
		return EXIT_TOOL;
	if (WIFSIGNALED(status)) {
		/* as a shell: SIGPIPE is how a pipeline's writer ends when its reader has had
		   enough (prog | head), and SIGINT is the user's own ^C - neither is news */
		if (!quiet && WTERMSIG(status) != SIGPIPE && WTERMSIG(status) != SIGINT)
			fprintf(stderr, "mtracectl: %s was killed by signal %d (%s)\n",
				prog_argv[0], WTERMSIG(status), strsignal(WTERMSIG(status)));
		return 128 + WTERMSIG(status);
	}
	return WEXITSTATUS(status);
}
