/* trace_run - replay a workload against an allocator, timing every call and watching RSS. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cycles.h"
#include "replay.h"
#include "run_env.h"
#include "run_fidelity.h"
#include "run_report.h"
#include "tool.h"
#include "trace_reader.h"
#include "wl_input.h"

static const char usage_text[] =
	"Usage: trace_run [OPTION]... WORKLOAD\n"
	"Replay a workload (from trace2wl, or an original dj/malloc .wl file) with one thread per\n"
	"stream, timing each allocator call in cycles and sampling RSS over time.  WORKLOAD - reads\n"
	"standard input; a workload compressed with gzip, xz or zstd is decompressed first.\n"
	"\n"
	"  -m, --malloc=NAME       allocator: glibc (default), jemalloc, tcmalloc, mimalloc, or a\n"
	"                          path to a shared object (preloaded, in a fresh process);\n"
	"                          traced: the one the program ran on, with its settings\n"
	"  -C, --compare=A,B,...   replay with each allocator in a fresh process; one table;\n"
	"                          a column may have settings of its own, A(SETTING ...):\n"
	"                          glibc.NAME=V (tunable), M_NAME=V (mallopt), NAME=V (environment),\n"
	"                          e.g. 'glibc,glibc(M_ARENA_MAX=1),jemalloc(MALLOC_CONF=tcache:false)'\n"
	"  -r, --repeat=N          N runs in fresh processes (interleaved with --compare); medians;\n"
	"                          from 3 on, --compare marks ~ a ratio whose columns' runs overlap\n"
	"      --touch=MODE        after each allocation write to the block: resident (default:\n"
	"                          a byte a page of as much as the program had resident, where\n"
	"                          the workload says; else as pages), pages (one byte a page\n"
	"                          and the last byte), full (every byte), none\n"
	"      --pace[=F]          make each thread wait for the time its next call came in the\n"
	"                          program after an idle time (F times its speed; default 1)\n"
	"  -i, --interval=MS       sample VmRSS every MS milliseconds (default 10)\n"
	"  -l, --log=FILE          write the samples as TSV: time_ms vmrss_kb vmsize_kb ideal_kb\n"
	"                          calls anon_kb mapped_kb (and program_ms with --pace)\n"
	"                          (with --compare/--repeat: FILE.<allocator>, first run; a\n"
	"                          library by its file name, .N after it if two share one)\n"
	"  -L, --latency=FILE      write each call class's distribution of call times as TSV:\n"
	"                          class cycles calls at_or_below, a row per histogram bucket\n"
	"                          (trace_plot draws it; --compare/--repeat: as --log)\n"
	"  -M, --mallopt=NAME=VAL  call mallopt before the replay (glibc): M_MMAP_THRESHOLD,\n"
	"                          M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_MAX, M_ARENA_MAX,\n"
	"                          M_ARENA_TEST, M_PERTURB, M_MXFAST; may be repeated\n"
	"  -T, --tunables=STRING   GLIBC_TUNABLES for the replay (e.g. glibc.malloc.tcache_count=0)\n"
	"      --trim-every=N      call malloc_trim(0) after every N calls of each thread\n"
	"      --threads=N         at most N replay threads at once (default: as many as the\n"
	"                          program had threads alive at once, from the workload; 10000\n"
	"                          for workloads without that figure): streams beyond wait, in\n"
	"                          order, for a thread to come free (and one is added when a\n"
	"                          stream waits for one nobody has taken)\n"
	"      --timeout=S         end a replay in which no call completes for S seconds (an\n"
	"                          allocator that deadlocked) as a crash is, saying where\n"
	"                          (default 60; 0: never); --compare's other columns still print\n"
	"      --no-timing         do not time the calls (the timer costs more than a small\n"
	"                          malloc): for wall time and RSS alone; averages print as 0\n"
	"      --allow-failures    exit 0 when calls that succeeded in the program failed in\n"
	"                          the replay (they are reported all the same)\n"
	"      --csv, --json       the figures for scripts instead of the summary\n"
	"  -p, --progress          show the workload's check and the calls replayed on\n"
	"                          stderr from the start (by default only on a terminal,\n"
	"                          after the first second)\n"
	"  -h, --help              show this help and exit\n"
	"  -V, --version           show the version and exit\n"
	"\n"
	"The summary's first 12 lines keep the original trace_run layout, line for line: Kb\n"
	"is KiB; \"usec across N threads\" is the replay threads' user CPU time; Max RSS is how\n"
	"much the peak resident set grew during the replay (START -> END), in --compare too.\n"
	"Calls that failed in the replay where the program's succeeded are counted on a\n"
	"line of their own after those 12, and mark a --compare column '!' (no ratios).  A\n"
	"workload with the program's memory samples gets a line after them that sets the\n"
	"program's peak anonymous RSS growth beside this replay's.\n"
	"\n"
	"Exit status: 0 done; 1 the workload is missing, malformed or would deadlock;\n"
	"2 bad command line; 3 the allocator or the system failed us (a crash, --timeout,\n"
	"not enough memory); 4 calls failed in the replay that succeeded in the program.\n";

/* Some call failed in the replay that succeeded in the program (unless --allow-failures) */
#define EXIT_CALLS_FAILED 4

struct opts {
	const char *malloc_name, *compare, *log, *latency, *tunables, *format;
	const char *mallopts[32];
	int nmallopt, allow_failures;
	unsigned repeat;
	struct replay_opts ro;
};

/* ---------------------------------------------------------------------------------------------
   Runs in fresh processes (--repeat, --compare)
   ------------------------------------------------------------------------------------------- */

/* The timeline file of allocator a in a --compare list or --repeat runs (per_column):
   FILE.NAME, NAME the allocator or its library's file name, and .N (its place in the list)
   when an earlier one has the same NAME: two libraries given by path, or one allocator in two
   columns of its own settings, must not share one file.  Otherwise (one run, --malloc traced):
   FILE itself. */
static void log_name(char *buf, size_t cap, const char *log, const char *const *names, int a, int per_column)
{
	if (!per_column) {
		snprintf(buf, cap, "%s", log);
		return;
	}
	const char *slash = strrchr(names[a], '/'), *name = slash ? slash + 1 : names[a];
	int taken = 0;
	for (int b = 0; b < a; b++) {
		const char *s = strrchr(names[b], '/');
		taken |= !strcmp(s ? s + 1 : names[b], name);
	}
	if (taken)
		snprintf(buf, cap, "%s.%s.%d", log, name, a + 1);
	else
		snprintf(buf, cap, "%s.%s", log, name);
}

/* ---------------------------------------------------------------------------------------------
   A workload on standard input, compressed, or in the dj/malloc encoding is first made plain,
   in our encoding, in a temporary copy without a name (wl_input_plain: "/proc/self/fd/N"):
   the replay maps its workload, and --compare's runs and the re-execution for --malloc, which
   inherit the descriptor, read it again; no end of the tool, SIGKILL included, leaves it
   behind.  The translation happens here, before the re-execution, so that its tables never
   come from the allocator under test.  MTRACE_RUN_COPY names the copy across the
   re-execution and in --compare's runs, MTRACE_RUN_NAME what the user gave, for messages.
   ------------------------------------------------------------------------------------------- */

static const char *copy_of;   /* what the user named, when the workload is a copy of it */

/* The plain workload in our encoding for the user's WORKLOAD (wl_input_plain), or, after the
   re-execution or in a run of --compare, the copy the first process made; *shown: the name
   for messages. */
static const char *materialize(const char *workload, const char **shown, int progress)
{
	const char *copy = getenv("MTRACE_RUN_COPY"), *name = getenv("MTRACE_RUN_NAME");
	*shown = workload;
	if (copy && name && !strcmp(copy, workload)) {
		*shown = name;
		tool_display_as(workload, name);
		return workload;
	}
	const char *plain = wl_input_plain(workload, progress);
	if (strcmp(plain, workload))
		copy_of = workload;   /* (into the environment only to re-execute: setenv allocates) */
	return plain;
}

/* The timeline and the latency file are written beside their names and renamed into place
   when the replay succeeded: an interrupted or failed replay leaves none that looks whole. */
static char tmp_log[TOOL_TMP_CAP], tmp_latency[TOOL_TMP_CAP];

/* --log's or --latency's file: not standard output (the summary's), and, where each run of
   --compare or --repeat writes FILE.ALLOCATOR, a name to add to.  What to open. */
static const char *check_output_option(const char *opt, const char *path, const struct opts *o,
				       char *const *inputs)
{
	if (!strcmp(path, "-"))
		tool_die(EXIT_USAGE, "%s -: standard output carries the summary; name a file", opt);
	if ((o->compare || o->repeat > 1) && tool_output_in_place(path))
		tool_die(EXIT_USAGE, "%s %s: with --compare or --repeat each run writes a file named "
			 "after it (%s.ALLOCATOR): give a file name", opt, path, path);
	return tool_check_output(path, inputs, 1, 0);
}

/* --latency: the histograms the percentiles come from (lat_write_tsv: no allocator call) */
static void write_latency(const char *path, int fd, const struct replay_result *res, const char *alloc,
			  const char *timer)
{
	char title[512];
	snprintf(title, sizeof title, "trace_run latency: %s, %s", alloc, timer);
	int e = lat_write_tsv(fd, title, res->hist, res->hist_max) < 0 ? errno : 0;
	tool_output_finish(path, fd, tmp_latency, e);
}

/* Run this program again on the workload with ALLOC and --csv; parse its figures. */
static int child_run(const struct opts *o, const struct run_variant *col, const char *label,
		     const char *workload, const char *log, const char *latency, int64_t *f, char *why,
		     size_t cap)
{
	char *args[128];
	int n = 0;
	char bufs[9][4400];
	args[n++] = "trace_run";
	args[n++] = "--csv";
	snprintf(bufs[0], sizeof bufs[0], "--malloc=%s", col->alloc);
	args[n++] = bufs[0];
	snprintf(bufs[1], sizeof bufs[1], "--touch=%s", o->ro.touch == TOUCH_FULL ? "full" : o->ro.touch == TOUCH_NONE ? "none"
		 : o->ro.touch == TOUCH_PAGES ? "pages" : "resident");
	args[n++] = bufs[1];
	char pace[64];
	if (o->ro.pace > 0) {
		snprintf(pace, sizeof pace, "--pace=%.17g", o->ro.pace);
		args[n++] = pace;
	}
	snprintf(bufs[2], sizeof bufs[2], "--interval=%u", o->ro.interval_ms);
	args[n++] = bufs[2];
	if (o->ro.trim_every) {
		snprintf(bufs[3], sizeof bufs[3], "--trim-every=%llu", (unsigned long long)o->ro.trim_every);
		args[n++] = bufs[3];
	}
	if (o->tunables || col->tunables[0]) {   /* the column's after the common ones: they win */
		snprintf(bufs[4], sizeof bufs[4], "--tunables=%s%s%s", o->tunables ? o->tunables : "",
			 o->tunables && col->tunables[0] ? ":" : "", col->tunables);
		args[n++] = bufs[4];
	}
	if (log) {
		snprintf(bufs[5], sizeof bufs[5], "--log=%s", log);
		args[n++] = bufs[5];
	}
	if (latency) {
		snprintf(bufs[7], sizeof bufs[7], "--latency=%s", latency);
		args[n++] = bufs[7];
	}
	if (o->ro.no_timing)
		args[n++] = "--no-timing";
	if (o->ro.progress == 2)
		args[n++] = "--progress";
	if (o->ro.max_threads) {
		snprintf(bufs[6], sizeof bufs[6], "--threads=%u", o->ro.max_threads);
		args[n++] = bufs[6];
	}
	snprintf(bufs[8], sizeof bufs[8], "--timeout=%u", o->ro.timeout_s);
	args[n++] = bufs[8];
	args[n++] = "--allow-failures";   /* (its figures come back; the failures are judged here) */
	for (int i = 0; i < o->nmallopt; i++) {   /* (at most 32, and 16 of the column's) */
		args[n++] = "--mallopt";
		args[n++] = (char *)o->mallopts[i];
	}
	for (int i = 0; i < col->nmallopt; i++) {
		args[n++] = "--mallopt";
		args[n++] = (char *)col->mallopt[i];
	}
	args[n++] = "--";
	args[n++] = (char *)workload;
	args[n] = NULL;
	int pfd[2];
	if (pipe(pfd) < 0)
		tool_die(EXIT_SYSTEM, "pipe: %s", strerror(errno));
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		tool_die(EXIT_SYSTEM, "fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		unsetenv("MTRACE_RUN_ENV");
		if (copy_of) {   /* the copy it inherits, and what to call it */
			setenv("MTRACE_RUN_COPY", workload, 1);
			setenv("MTRACE_RUN_NAME", copy_of, 1);
		}
		setenv("MTRACE_RUN_PROGRESS", label, 1);
		setenv("MTRACE_RUN_COLUMN", col->label, 1);
		for (int i = 0; i < col->nenv; i++)
			putenv((char *)col->env[i]);   /* NAME=VALUE, for the new image */
		execv("/proc/self/exe", args);
		_exit(127);
	}
	close(pfd[1]);
	char out[8192];
	size_t len = 0;
	ssize_t k;
	while ((k = read(pfd[0], out + len, sizeof out - 1 - len)) > 0)
		len += (size_t)k;
	close(pfd[0]);
	out[len] = 0;
	int st;
	waitpid(pid, &st, 0);
	if (WIFSIGNALED(st)) {
		snprintf(why, cap, "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
		return -1;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		snprintf(why, cap, "exit status %d: its message is above", WEXITSTATUS(st));
		return -1;
	}
	snprintf(why, cap, "its figures could not be read");
	char *line = strchr(out, '\n');
	if (!line)
		return -1;
	line++;
	for (int i = 0; i < NFIELDS; i++) {
		if (report_parse_value(i, &line, &f[i]) < 0)
			return -1;
		line++;
	}
	return 0;
}

/* ---------------------------------------------------------------------------------------------
   The allocators' settings: the program's (the workload's header) and the replay's
   ------------------------------------------------------------------------------------------- */

/* This replay's, written as a trace header's are read: its environment's (MALLOC_*, ...; and
   GLIBC_TUNABLES, which --tunables replaces), a --compare column's (col, or NULL), and the
   mallopt parameters (M_NAME=VALUE) of --mallopt and the column; "" if none */
static void replay_settings(const struct opts *o, const struct run_variant *col, char *buf, size_t cap)
{
	size_t n = 0;
	buf[0] = 0;
	const char *ctun = col ? col->tunables : "";
#define ADD(...) (n < cap ? (n += (size_t)snprintf(buf + n, cap - n, __VA_ARGS__)) : 0)
	for (char **e = environ; e && *e; e++)
		if (mtrace_is_setting(*e) && !((o->tunables || ctun[0]) && !strncmp(*e, "GLIBC_TUNABLES=", 15)))
			ADD("%s%s", n ? " " : "", *e);
	for (int i = 0; col && i < col->nenv; i++)
		ADD("%s%s", n ? " " : "", col->env[i]);
	if (o->tunables || ctun[0])
		ADD("%sGLIBC_TUNABLES=%s%s%s", n ? " " : "", o->tunables ? o->tunables : "",
		    o->tunables && ctun[0] ? ":" : "", ctun);
	for (int i = 0; i < o->nmallopt; i++)
		ADD("%s%s", n ? " " : "", o->mallopts[i]);
	for (int i = 0; col && i < col->nmallopt; i++)
		ADD("%s%s", n ? " " : "", col->mallopt[i]);
#undef ADD
}

/* What the traced program ran on and with (the workload header's), for the lines below */
struct as_traced {
	char allocator[64];           /* its file name; "" unknown */
	char settings[384];
};

/* A line after the summary, when the program ran on another allocator than this replay, or
   either with settings: a maintainer comparing the two needs to know */
static void print_settings(const struct opts *o, const struct as_traced *t, const char *alloc,
			   const struct run_variant *col)
{
	char mine[2048];
	replay_settings(o, col, mine, sizeof mine);
	const char *slash = strrchr(alloc, '/'), *ours = slash ? slash + 1 : alloc;
	int other = t->allocator[0] && strcmp(allocator_name_of(t->allocator), allocator_name_of(alloc));
	if (t->settings[0] || mine[0] || other)
		printf("Allocator as traced: %s, with %s; this replay: %s, with %s\n",
		       t->allocator[0] ? t->allocator : "unknown", t->settings[0] ? t->settings : "no settings",
		       ours, mine[0] ? mine : "no settings");
}

/* Is every setting of a (NAME=VALUE separated by spaces) one of b's? */
static int settings_in(const char *a, const char *b)
{
	for (const char *w = a; *w;) {
		size_t n = strcspn(w, " ");
		int found = n == 0;
		for (const char *v = b; *v && !found;) {
			size_t m = strcspn(v, " ");
			found = m == n && !strncmp(v, w, n);
			v += m + (v[m] == ' ');
		}
		if (!found)
			return 0;
		w += n + (w[n] == ' ');
	}
	return 1;
}

static int same_settings(const char *a, const char *b)
{
	return settings_in(a, b) && settings_in(b, a);
}

/* Does this replay run on the allocator the program ran on, with its settings?  Only then do
   the program's figures beside it measure the replay, not another allocator. */
static int as_the_program(const struct opts *o, const struct as_traced *t, const char *alloc)
{
	char mine[2048];
	replay_settings(o, NULL, mine, sizeof mine);
	return t->allocator[0] && !strcmp(allocator_name_of(t->allocator), allocator_name_of(alloc)) &&
	       same_settings(t->settings, mine);
}

static struct run_variant cols[16];
static int ncompare;   /* --compare's columns, parsed with the options (a usage error first) */

/* Column c named "traced": the allocator the program ran on, with the settings it ran with,
   as the workload says (a column NAME(SETTING ...) of its own, named so) */
static void expand_traced(struct run_variant *c, const struct as_traced *t)
{
	if (c->nenv || c->nmallopt || c->tunables[0])
		tool_die(EXIT_USAGE, "'traced' stands for the program's own settings: it takes none ('%s')", c->label);
	if (!t->allocator[0])
		tool_die(EXIT_USAGE, "the workload does not say what the program ran on (one of an older "
			 "trace2wl, or of a dj/malloc trace): name the allocator instead of 'traced'");
	const char *name = allocator_name_of(t->allocator);
	if (!strcmp(name, t->allocator))
		tool_die(EXIT_USAGE, "the program ran on %s, which trace_run knows by its path only: give "
			 "that path%s%s%s instead of 'traced'", t->allocator, t->settings[0] ? "(" : "",
			 t->settings, t->settings[0] ? ")" : "");
	char spec[sizeof t->settings + 64];
	snprintf(spec, sizeof spec, "%s%s%s%s", name, t->settings[0] ? "(" : "", t->settings,
		 t->settings[0] ? ")" : "");
	run_variants_parse(spec, c, 1);
}

static int multi_run(const struct opts *o, const char *workload, const struct as_traced *traced)
{
	int na;
	if (o->compare)
		na = ncompare;
	else {   /* --repeat, or --malloc traced: the one allocator (checked plain by main) */
		na = 1;
		snprintf(cols[0].label, sizeof cols[0].label, "%s", o->malloc_name ? o->malloc_name : "glibc");
		snprintf(cols[0].alloc, sizeof cols[0].alloc, "%s", cols[0].label);
	}
	for (int a = 0; a < na; a++)
		if (!strcmp(cols[a].alloc, "traced"))
			expand_traced(&cols[a], traced);   /* (the workload may be a temporary copy: not named) */
	const char *names[16], *allocs[16];   /* the columns' names; their allocators' */
	for (int a = 0; a < na; a++)
		names[a] = cols[a].label, allocs[a] = cols[a].alloc;
	for (int a = 0; a < na; a++) {
		char buf[4096];
		const char *why = NULL;
		if (!allocator_path(allocs[a], buf, sizeof buf, &why))
			tool_die(EXIT_SYSTEM, "%s: %s", allocs[a], why);
	}
	if (o->nmallopt || tunables_tune_malloc(o->tunables))
		for (int a = 0; a < na; a++)
			if (strcmp(allocs[a], "glibc")) {
				tool_warn("%s tune%s glibc's malloc only: the %s column%s not affected",
					  o->nmallopt ? "--mallopt" : "glibc.malloc tunables", o->nmallopt ? "s" : "",
					  na > 2 ? "other allocators'" : names[a], na > 2 ? "s are" : " is");
				break;
			}
	for (int a = 0; a < na; a++)
		if (strcmp(allocs[a], "glibc") && (cols[a].nmallopt || tunables_tune_malloc(cols[a].tunables)))
			tool_warn("%s: its mallopt and glibc.malloc settings tune glibc's malloc, which %s "
				  "replaces: they have no effect on that column", names[a], allocs[a]);
	unsigned reps = o->repeat ? o->repeat : 1;
	int64_t (*runs)[NFIELDS] = calloc((size_t)na * reps, sizeof *runs);
	int failed[16] = { 0 }, nfailed = 0;   /* allocators whose replay failed: no more runs */
	size_t shown = 0;   /* columns of the widest "trace_run: LABEL" line */
	for (unsigned r = 0; r < reps; r++)
		for (int a = 0; a < na; a++) {   /* interleaved: drift hits every allocator alike */
			if (failed[a])
				continue;
			char log[4200], latency[4200];
			/* FILE.ALLOCATOR with --compare or --repeat; FILE itself for --malloc traced */
			int named = o->compare || reps > 1;
			if (o->log)
				log_name(log, sizeof log, o->log, allocs, a, named);
			if (o->latency)
				log_name(latency, sizeof latency, o->latency, allocs, a, named);
			char label[200];
			if (reps > 1)
				snprintf(label, sizeof label, "run %u of %u, %s", r + 1, reps, names[a]);
			else
				snprintf(label, sizeof label, "%s", names[a]);
			if (isatty(2)) {
				char line[300];
				fwrite(line, 1, tool_progress_line(line, sizeof line, label, "", "", &shown), stderr);
			}
			char why[200];
			if (child_run(o, &cols[a], label, workload, (o->log && r == 0) ? log : NULL,
				      (o->latency && r == 0) ? latency : NULL, runs[(size_t)a * reps + r],
				      why, sizeof why) < 0) {
				if (isatty(2))
					fputc('\n', stderr);
				if (!o->compare)
					tool_die(EXIT_SYSTEM, "the replay with %s failed: %s", names[a], why);
				/* the others' figures still stand: its column says so, and the exit status */
				tool_warn("the replay with %s failed: %s; the others' figures follow", names[a], why);
				failed[a] = 1;
				nfailed++;
			}
		}
	if (nfailed == na)
		tool_die(EXIT_SYSTEM, "every replay failed");
	if (isatty(2))
		tool_progress_clear(&shown);
	int64_t (*med)[NFIELDS] = calloc((size_t)na, sizeof *med), (*lo)[NFIELDS] = calloc((size_t)na, sizeof *lo),
		(*hi)[NFIELDS] = calloc((size_t)na, sizeof *hi), (*fails)[NFIELDS] = calloc((size_t)na, sizeof *fails);
	int status = nfailed ? EXIT_SYSTEM : EXIT_OK;
	for (int a = 0; a < na; a++) {
		if (failed[a])
			continue;
		report_medians(runs + (size_t)a * reps, reps, med[a], lo[a], hi[a]);
		/* the first run whose calls failed where the program's succeeded: not comparable */
		for (unsigned r = 0; r < reps && !fails[a][F_RFAIL]; r++)
			if (runs[(size_t)a * reps + r][F_RFAIL])
				memcpy(fails[a], runs[(size_t)a * reps + r], sizeof fails[a]);
		if (fails[a][F_RFAIL] && !o->allow_failures) {
			char what[300];
			tool_warn("the replay with %s: %s: its figures are not comparable (--allow-failures "
				  "accepts them)", names[a], report_failures(fails[a], what, sizeof what));
			if (status == EXIT_OK)
				status = EXIT_CALLS_FAILED;
		}
	}
	const char *timer = report_timer(o->ro.no_timing);
	if (!o->compare) {
		if (fails[0][F_RFAIL])   /* said of the run it happened in */
			memcpy(med[0] + F_RFAIL_OP, fails[0] + F_RFAIL_OP, (F_RFAIL_CALL + 1 - F_RFAIL_OP) * sizeof (int64_t)),
			med[0][F_RFAIL] = fails[0][F_RFAIL];
		if (o->format && !strcmp(o->format, "csv"))
			report_csv_header(), report_csv_row(med[0], names[0], timer);
		else if (o->format && !strcmp(o->format, "json"))
			report_json(med[0], names[0], timer);
		else {
			report_text(med[0], names[0], timer, reps), print_settings(o, traced, allocs[0], &cols[0]);
			report_fidelity_text(med[0], traced->allocator);
		}
		return status;
	}
	report_compare(o->format, names, na, med, lo, hi, failed, fails, reps, timer);
	if (!o->format && (traced->settings[0] || (traced->allocator[0] && strcmp(allocator_name_of(traced->allocator), "glibc")))) {
		/* the column that replays the program as it ran */
		const char *name = traced->allocator[0] ? allocator_name_of(traced->allocator) : "NAME";
		printf("(the traced program ran on %s, with %s: a column 'traced', %s%s%s%s, replays it so)\n",
		       traced->allocator[0] ? traced->allocator : "an allocator not named in the workload",
		       traced->settings[0] ? traced->settings : "no settings", name,
		       traced->settings[0] ? "(" : "", traced->settings, traced->settings[0] ? ")" : "");
	}
	return status;
}

/* ---------------------------------------------------------------------------------------------
   main
   ------------------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
	tool_set_name("trace_run", argv);
	/* stdout's buffer would be the allocator under test's, allocated at the first printf */
	static char stdout_buf[BUFSIZ];
	setvbuf(stdout, stdout_buf, isatty(1) ? _IOLBF : _IOFBF, sizeof stdout_buf);
	cycles_init();
	static const struct option longopts[] = {
		{ "malloc", required_argument, 0, 'm' }, { "compare", required_argument, 0, 'C' },
		{ "repeat", required_argument, 0, 'r' }, { "touch", required_argument, 0, 9 },
		{ "interval", required_argument, 0, 'i' }, { "log", required_argument, 0, 'l' },
		{ "mallopt", required_argument, 0, 'M' }, { "tunables", required_argument, 0, 'T' },
		{ "trim-every", required_argument, 0, 1 }, { "csv", no_argument, 0, 2 },
		{ "json", no_argument, 0, 3 }, { "help", no_argument, 0, 'h' },
		{ "version", no_argument, 0, 'V' }, { "no-timing", no_argument, 0, 4 },
		{ "threads", required_argument, 0, 5 }, { "progress", no_argument, 0, 'p' },
		{ "latency", required_argument, 0, 'L' }, { "timeout", required_argument, 0, 6 },
		{ "allow-failures", no_argument, 0, 7 }, { "pace", optional_argument, 0, 8 },
		{ 0, 0, 0, 0 },
	};
	struct opts o = { .ro = { .touch = TOUCH_RESIDENT, .interval_ms = 10, .log_fd = -1,
				  .timeout_s = REPLAY_TIMEOUT_DEFAULT } };
	int ch;
	uint64_t v;
	char named[600];   /* "--malloc NAME", for its message */
	while ((ch = getopt_long(argc, argv, "m:C:r:i:l:L:M:T:phV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'm':
			if (!*optarg)
				tool_die(EXIT_USAGE, "--malloc wants an allocator (glibc, jemalloc, tcmalloc, "
					 "mimalloc) or the path of a .so");
			if (strchr(optarg, '('))
				tool_die(EXIT_USAGE, "--malloc %s: settings in parentheses are for --compare's "
					 "columns (--compare '%s' is one); for --malloc, give them with --tunables, "
					 "--mallopt or in the environment", optarg, optarg);
			o.malloc_name = optarg;
			snprintf(named, sizeof named, "--malloc %s", optarg);
			allocator_check_name(optarg, named);
			break;
		case 'C': o.compare = optarg; break;
		case 'r':
			if (parse_u64(optarg, &v) < 0 || v == 0 || v > 1000)
				tool_die(EXIT_USAGE, "--repeat wants a number from 1 to 1000, not '%s'", optarg);
			o.repeat = (unsigned)v;
			break;
		case 9:
			if (!strcmp(optarg, "resident") || !strcmp(optarg, "default")) o.ro.touch = TOUCH_RESIDENT;
			else if (!strcmp(optarg, "pages")) o.ro.touch = TOUCH_PAGES;
			else if (!strcmp(optarg, "full")) o.ro.touch = TOUCH_FULL;
			else if (!strcmp(optarg, "none")) o.ro.touch = TOUCH_NONE;
			else tool_die(EXIT_USAGE, "--touch wants resident, pages, full or none, not '%s'", optarg);
			break;
		case 'i':
			if (parse_u64(optarg, &v) < 0 || v == 0 || v > 3600000)
				tool_die(EXIT_USAGE, "--interval wants milliseconds (1 or more), not '%s'", optarg);
			o.ro.interval_ms = (unsigned)v;
			break;
		case 'l': o.log = optarg; break;
		case 'L': o.latency = optarg; break;
		case 'M':
			check_mallopt(optarg, 0, "--mallopt");
			if (o.nmallopt < 32)
				o.mallopts[o.nmallopt++] = optarg;
			break;
		case 'T':
			/* checked once, in the command the user ran: not again after the re-execution
			   or in each run of --compare (a loader spawned each time) */
			if (!getenv("MTRACE_RUN_ENV") && !getenv("MTRACE_RUN_PROGRESS"))
				check_tunables(optarg, "--tunables");
			o.tunables = optarg;
			break;
		case 1:
			if (parse_u64(optarg, &o.ro.trim_every) < 0 || o.ro.trim_every == 0)
				tool_die(EXIT_USAGE, "--trim-every wants a number of calls, not '%s'", optarg);
			break;
		case 4: o.ro.no_timing = 1; break;
		case 7: o.allow_failures = 1; break;
		case 6:
			if (parse_u64(optarg, &v) < 0 || v > 86400 * 7)
				tool_die(EXIT_USAGE, "--timeout wants seconds (0: never), not '%s'", optarg);
			o.ro.timeout_s = (unsigned)v;
			break;
		case 8: {
			char *end;
			o.ro.pace = optarg ? strtod(optarg, &end) : 1;
			if (optarg && (!*optarg || *end || !(o.ro.pace > 0 && o.ro.pace <= 1e6)))
				tool_die(EXIT_USAGE, "--pace wants a speed factor above 0 (1: the program's "
					 "speed, 10: ten times faster), not '%s'", optarg);
			break;
		}
		case 'p': o.ro.progress = 2; break;
		case 5:
			if (parse_u64(optarg, &v) < 0 || v == 0 || v > 1000000)
				tool_die(EXIT_USAGE, "--threads wants a number from 1 to 1000000, not '%s'", optarg);
			o.ro.max_threads = (unsigned)v;
			break;
		case 2: case 3:
			if (o.format && strcmp(o.format, ch == 2 ? "csv" : "json"))
				tool_die(EXIT_USAGE, "--csv and --json: choose one");
			o.format = ch == 2 ? "csv" : "json";
			break;
		case 'h': fputs(usage_text, stdout); return EXIT_OK;
		case 'V': tool_version();
		default: fputs("Try 'trace_run --help'.\n", stderr); return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "trace_run: %s\nTry 'trace_run --help'.\n", optind == argc ? "no workload given" : "one workload at a time");
		return EXIT_USAGE;
	}
	if (o.compare)
		ncompare = run_variants_parse(o.compare, cols, 16);
	const char *workload = argv[optind], *shown;   /* shown: in messages */
	char err[800];
	if (o.latency && o.ro.no_timing)
		tool_die(EXIT_USAGE, "--latency and --no-timing: without the timer there are no call times");
	if (o.log)
		o.log = check_output_option("--log", o.log, &o, argv + optind);
	if (o.latency)
		o.latency = check_output_option("--latency", o.latency, &o, argv + optind);
	workload = argv[optind] = (char *)materialize(workload, &shown, o.ro.progress ? 2 : isatty(2));   /* argv: for the re-execution */
	/* a single run re-executes (allocator, tunables) before the workload is read and validated:
	   once, in the process that replays it */
	/* --malloc traced: what the workload says the program ran on and with, in a run of its own
	   (as a column of --compare), once the workload is read */
	int as_traced = o.malloc_name && !strcmp(o.malloc_name, "traced");
	if (!o.compare && o.repeat <= 1 && !as_traced)
		ensure_environment(o.malloc_name, o.tunables, argv, copy_of ?
				   (const char *const[]){ "MTRACE_RUN_COPY", workload,
							  "MTRACE_RUN_NAME", copy_of, NULL } : NULL, o.ro.timeout_s);

	struct wl_reader r;
	if (wl_open(&r, workload) < 0)
		wl_input_die_named(r.err, workload, shown);
	r.name = shown;
	struct replay_plan plan;
	struct tool_progress vp;
	char vname[4200];
	snprintf(vname, sizeof vname, "checking %s", shown);
	tool_progress_count(&vp, o.ro.progress ? 2 : isatty(2), r.h.ncalls + r.h.nwaits + r.h.nthreads,
			    vname, "operations");
	r.progress = tool_progress;
	r.progress_arg = &vp;
	int valid = replay_validate(&r, &plan, err, sizeof err);
	tool_progress_end(&vp);
	r.progress = NULL;
	if (valid < 0)
		tool_die(EXIT_BADFILE, "%s", err);

	/* blocks that, touched, would take more memory than the machine has free: refused before
	   the replay drives it into swap or the OOM killer (once, by the command the user ran) */
	const char *avail_what, *need_what;
	uint64_t avail = run_memory_available(&avail_what);
	uint64_t need = fidelity_memory_need(&r, plan.ideal_rss, o.ro.touch, &need_what);
	if (o.ro.touch != TOUCH_NONE && need > avail && !getenv("MTRACE_RUN_PROGRESS")) {
		char a[32], b[32], what[300];
		snprintf(what, sizeof what, need_what, fmt_commas(a, need >> 20));
		tool_die(EXIT_SYSTEM, "%s: %s, more "
			 "than the %s MiB of memory available here (%s): touched, they would push the "
			 "machine into swap or the OOM killer; replay it where there is more memory, or with "
			 "--touch=none (the blocks are not written to: RSS is then what the allocator itself "
			 "writes)", tool_display_name(shown), what, fmt_commas(b, avail >> 20), avail_what);
	}

	static struct as_traced traced;
	memcpy(traced.allocator, r.h.allocator, sizeof traced.allocator);
	memcpy(traced.settings, r.h.settings, sizeof traced.settings);
	if (o.compare || o.repeat > 1 || as_traced) {
		replay_plan_free(&plan);
		wl_close(&r);
		return multi_run(&o, workload, &traced);
	}
	replay_catch_crashes();   /* the allocator under test is in place from here */
	const char *alloc_name = o.malloc_name ? o.malloc_name : "glibc";
	if (strcmp(alloc_name, "glibc") && (o.nmallopt || tunables_tune_malloc(o.tunables)) &&
	    !getenv("MTRACE_RUN_PROGRESS"))   /* (a run of --compare: the parent said it once) */
		tool_warn("%s set%s glibc's malloc, which %s replaces: %s no effect on this replay",
			  o.nmallopt ? "--mallopt" : "glibc.malloc tunables", o.nmallopt ? "s" : "",
			  alloc_name, o.nmallopt ? "it has" : "they have");
	for (int i = 0; i < o.nmallopt; i++)
		check_mallopt(o.mallopts[i], 1, "--mallopt");
	if (o.log)
		o.ro.log_fd = tool_output_open(o.log, tmp_log);
	/* created now, so that a path that cannot be written fails before the replay, not after */
	int latency_fd = o.latency ? tool_output_open(o.latency, tmp_latency) : -1;
	/* a run of --compare or --repeat: the parent says which, for the progress line */
	const char *run_label = getenv("MTRACE_RUN_PROGRESS");
	if (!o.ro.progress && isatty(2))
		o.ro.progress = 1;
	o.ro.progress_name = run_label && *run_label ? run_label : shown;
	struct replay_result res;
	if (replay_run(&r, &plan, &o.ro, &res, err, sizeof err) < 0)
		tool_die(EXIT_SYSTEM, "%s", err);
	if (o.log)
		tool_output_finish(o.log, o.ro.log_fd, tmp_log, res.log_errno);
	/* a run of a --compare column with settings: named as the column (the latency file's title) */
	const char *column = getenv("MTRACE_RUN_COLUMN");
	const char *alloc = column && *column ? column : alloc_name, *timer = report_timer(o.ro.no_timing);
	if (o.latency)
		write_latency(o.latency, latency_fd, &res, alloc, timer);
	int64_t f[NFIELDS];
	report_fields(&res, plan.ideal_rss, f);
	struct fidelity fid;
	uint64_t hwm = res.hwm_reset && res.maxrss_end_kb > res.maxrss_start_kb ?
		       (uint64_t)(res.maxrss_end_kb - res.maxrss_start_kb) * 1024 : 0;
	fidelity_compute(&r, res.curve, hwm, as_the_program(&o, &traced, alloc_name), &fid);
	report_fidelity_fields(&fid, &res, f);
	if (o.format && !strcmp(o.format, "csv"))
		report_csv_header(), report_csv_row(f, alloc, timer);
	else if (o.format && !strcmp(o.format, "json"))
		report_json(f, alloc, timer);
	else {
		report_text(f, alloc, timer, 1);
		print_settings(&o, &traced, alloc_name, NULL);
		report_fidelity_text(f, traced.allocator);
	}
	if (fflush(stdout) != 0)
		tool_die(EXIT_SYSTEM, "cannot write output: %s", strerror(errno));
	if (f[F_RFAIL] && !o.allow_failures) {
		char what[300];
		tool_warn("%s: %s: the figures are not comparable (--allow-failures accepts them)",
			  tool_display_name(shown), report_failures(f, what, sizeof what));
		return EXIT_CALLS_FAILED;
	}
	return EXIT_OK;
}
