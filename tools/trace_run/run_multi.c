/* run_multi.c - see run_multi.h: the runs, each a re-execution of this program with --csv, and
 * the table of their medians. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "run_argv.h"
#include "run_multi.h"
#include "run_report.h"
#include "textout.h"
#include "tool.h"

const char *run_copy_of;
static int child_exit;   /* the last run's exit status, when it exited */

/* ---------------------------------------------------------------------------------------------
   Runs in fresh processes (--repeat, --compare)
   ------------------------------------------------------------------------------------------- */

/* The timeline file of allocator a in a --compare list or --repeat runs (per_column):
   FILE.NAME, NAME the allocator or its library's file name, and .N (its place in the list)
   when an earlier one has the same NAME: two libraries given by path, or one allocator in two
   columns of its own settings, must not share one file.  Otherwise (one run, --malloc traced):
   FILE itself. */
static void log_name(char *buf, size_t cap, const char *log, const char *const *names, int a,
		     int per_column)
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

/* Run this program again on the workload with ALLOC and --csv; parse its figures. */
static int run_child(const struct run_opts *o, const struct run_variant *col, const char *label,
		     const char *workload, const char *log, const char *latency, int64_t *f,
		     char *why, size_t cap)
{
	static const char *const touch[] = { [TOUCH_PAGES] = "pages", [TOUCH_FULL] = "full",
					     [TOUCH_NONE] = "none", [TOUCH_RESIDENT] = "resident" };
	struct run_argv av;
	run_argv_init(&av);
	run_argv_add(&av, "trace_run");
	run_argv_add(&av, "--csv");
	run_argv_addf(&av, "--malloc=%s", col->alloc);
	run_argv_addf(&av, "--touch=%s", touch[o->ro.touch]);
	if (o->ro.pace > 0)
		run_argv_addf(&av, "--pace=%.17g", o->ro.pace);
	run_argv_addf(&av, "--interval=%u", o->ro.interval_ms);
	if (o->ro.trim_every)
		run_argv_addf(&av, "--trim-every=%llu", (unsigned long long)o->ro.trim_every);
	if (o->tunables || col->tunables[0])   /* the column's after the common ones: they win */
		run_argv_addf(&av, "--tunables=%s%s%s", o->tunables ? o->tunables : "",
			      o->tunables && col->tunables[0] ? ":" : "", col->tunables);
	if (log)
		run_argv_addf(&av, "--log=%s", log);
	if (latency)
		run_argv_addf(&av, "--latency=%s", latency);
	if (o->ro.no_timing)
		run_argv_add(&av, "--no-timing");
	if (o->ro.progress == 2)
		run_argv_add(&av, "--progress");
	if (o->ro.max_threads)
		run_argv_addf(&av, "--threads=%u", o->ro.max_threads);
	run_argv_addf(&av, "--timeout=%u", o->ro.timeout_s);
	/* (its figures come back; failures are judged here) */
	run_argv_add(&av, "--allow-failures");
	for (int i = 0; i < o->nmallopt; i++) {
		run_argv_add(&av, "--mallopt");
		run_argv_add(&av, o->mallopts[i]);
	}
	for (int i = 0; i < col->nmallopt; i++) {
		run_argv_add(&av, "--mallopt");
		run_argv_add(&av, col->mallopt[i]);
	}
	run_argv_add(&av, "--");
	run_argv_add(&av, workload);
	char **args = run_argv_get(&av);
	if (!args) {
		snprintf(why, cap, "its command line would be longer than %u arguments or %u bytes",
			 RUN_ARGV_MAX, RUN_ARGV_TEXT);
		return -1;
	}
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
		if (run_copy_of) {   /* the copy it inherits, and what to call it */
			setenv("MTRACE_RUN_COPY", workload, 1);
			setenv("MTRACE_RUN_NAME", run_copy_of, 1);
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
		snprintf(why, cap, "killed by signal %d (%s)", WTERMSIG(st),
			 strsignal(WTERMSIG(st)));
		return -1;
	}
	child_exit = WIFEXITED(st) ? WEXITSTATUS(st) : 0;
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
   The table
   ------------------------------------------------------------------------------------------- */

/* Column c named "traced": the allocator the program ran on, with the settings it ran with,
   as the workload says (a column NAME(SETTING ...) of its own, named so) */
static void expand_traced(struct run_variant *c, const struct as_traced *t)
{
	if (c->nenv || c->nmallopt || c->tunables[0])
		tool_die(EXIT_USAGE, "'traced' stands for the program's own settings: it takes "
			 "none ('%s')", c->label);
	if (!t->allocator[0])
		tool_die(EXIT_USAGE,
			 "the workload does not say what the program ran on (one of an older "
			 "trace2wl, or of a dj/malloc trace): name the allocator instead of "
			 "'traced'");
	const char *name = allocator_name_of(t->allocator);
	if (!strcmp(name, t->allocator))
		tool_die(EXIT_USAGE,
			 "the program ran on %s, which trace_run knows by its path only: give "
			 "that path%s%s%s instead of 'traced'",
			 t->allocator, t->settings[0] ? "(" : "", t->settings,
			 t->settings[0] ? ")" : "");
	char spec[sizeof t->settings + 64];
	snprintf(spec, sizeof spec, "%s%s%s%s", name, t->settings[0] ? "(" : "", t->settings,
		 t->settings[0] ? ")" : "");
	run_variants_parse(spec, c, 1);
}

int run_multi(const struct run_opts *o, const char *workload, const struct as_traced *traced)
{
	int na;
	if (o->compare)
		na = o->ncompare;
	else {   /* --repeat, or --malloc traced: the one allocator (checked plain by main) */
		na = 1;
		snprintf(o->cols[0].label, sizeof o->cols[0].label, "%s",
			 o->malloc_name ? o->malloc_name : "glibc");
		snprintf(o->cols[0].alloc, sizeof o->cols[0].alloc, "%s", o->cols[0].label);
	}
	for (int a = 0; a < na; a++)
		if (!strcmp(o->cols[a].alloc, "traced"))
			/* (the workload may be a temporary copy: not named) */
			expand_traced(&o->cols[a], traced);
	const char *names[16], *allocs[16];   /* the columns' names; their allocators' */
	for (int a = 0; a < na; a++)
		names[a] = o->cols[a].label, allocs[a] = o->cols[a].alloc;
	for (int a = 0; a < na; a++) {
		char buf[4096];
		const char *why = NULL;
		if (!allocator_path(allocs[a], buf, sizeof buf, &why))
			tool_die(EXIT_SYSTEM, "%s: %s", allocs[a], why);
	}
	if (o->nmallopt || tunables_tune_malloc(o->tunables))
		for (int a = 0; a < na; a++)
			if (strcmp(allocs[a], "glibc")) {
				tool_warn("%s tune%s glibc's malloc only: "
					  "the %s column%s not affected",
					  o->nmallopt ? "--mallopt" : "glibc.malloc tunables",
					  o->nmallopt ? "s" : "",
					  na > 2 ? "other allocators'" : names[a],
					  na > 2 ? "s are" : " is");
				break;
			}
	for (int a = 0; a < na; a++)
		if (strcmp(allocs[a], "glibc") &&
		    (o->cols[a].nmallopt || tunables_tune_malloc(o->cols[a].tunables)))
			tool_warn("%s: its mallopt and glibc.malloc settings tune glibc's malloc, "
				  "which %s replaces: they have no effect on that column",
				  names[a], allocs[a]);
	unsigned reps = o->repeat ? o->repeat : 1;
	int64_t (*runs)[NFIELDS] = calloc((size_t)na * reps, sizeof *runs);
	int failed[16] = { 0 }, nfailed = 0;   /* allocators whose replay failed: no more runs */
	size_t shown = 0;   /* columns of the widest "trace_run: LABEL" line */
	for (unsigned r = 0; r < reps; r++)
		for (int a = 0; a < na; a++) {   /* interleaved: drift hits every allocator alike */
			if (failed[a])
				continue;
			char log[4200], latency[4200];
			/* FILE.ALLOCATOR with --compare or --repeat; FILE itself for
			   --malloc traced */
			int named = o->compare || reps > 1;
			if (o->log)
				log_name(log, sizeof log, o->log, allocs, a, named);
			if (o->latency)
				log_name(latency, sizeof latency, o->latency, allocs, a, named);
			char label[200];
			if (reps > 1)
				snprintf(label, sizeof label, "run %u of %u, %s", r + 1, reps,
					 names[a]);
			else
				snprintf(label, sizeof label, "%s", names[a]);
			if (isatty(2)) {
				char line[300];
				fwrite(line, 1,
				       tool_progress_line(line, sizeof line, label, "", "", &shown),
				       stderr);
			}
			char why[200];
			if (run_child(o, &o->cols[a], label, workload,
				      (o->log && r == 0) ? log : NULL,
				      (o->latency && r == 0) ? latency : NULL,
				      runs[(size_t)a * reps + r], why, sizeof why) < 0) {
				if (isatty(2))
					fputc('\n', stderr);
				/* (a workload found bad by a run that was the first to check
				   it, --malloc traced's: the input's fault, exit 1) */
				if (!o->compare)
					tool_die(child_exit == EXIT_BADFILE ? EXIT_BADFILE
									     : EXIT_SYSTEM,
						 "the replay with %s failed: %s", names[a], why);
				/* the others' figures still stand: its column says so, and the
				   exit status */
				tool_warn("the replay with %s failed: %s; the others' figures "
					  "follow", names[a], why);
				failed[a] = 1;
				nfailed++;
			}
		}
	if (nfailed == na)
		tool_die(EXIT_SYSTEM, "every replay failed");
	if (isatty(2))
		tool_progress_clear(&shown);
	int64_t (*med)[NFIELDS] = calloc((size_t)na, sizeof *med);
	int64_t (*lo)[NFIELDS] = calloc((size_t)na, sizeof *lo);
	int64_t (*hi)[NFIELDS] = calloc((size_t)na, sizeof *hi);
	int64_t (*fails)[NFIELDS] = calloc((size_t)na, sizeof *fails);
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
			tool_warn("the replay with %s: %s: its figures are not comparable "
				  "(--allow-failures accepts them)",
				  names[a], report_failures(fails[a], what, sizeof what));
			if (status == EXIT_OK)
				status = EXIT_CALLS_FAILED;
		}
	}
	const char *timer = report_timer(o->ro.no_timing);
	if (!o->compare) {
		if (fails[0][F_RFAIL])   /* said of the run it happened in */
			memcpy(med[0] + F_RFAIL_OP, fails[0] + F_RFAIL_OP,
			       (F_RFAIL_CALL + 1 - F_RFAIL_OP) * sizeof (int64_t)),
			med[0][F_RFAIL] = fails[0][F_RFAIL];
		if (o->format && !strcmp(o->format, "csv"))
			report_csv_header(), report_csv_row(med[0], names[0], timer);
		else if (o->format && !strcmp(o->format, "json"))
			report_json(med[0], names[0], timer);
		else {
			run_print_summary(o, traced, allocs[0], &o->cols[0], med[0], names[0], timer,
					  reps);
		}
		return status;
	}
	report_compare(o->format, names, na, med, lo, hi, failed, fails, reps, timer);
	if (!o->format &&
	    (traced->settings[0] ||
	     (traced->allocator[0] && strcmp(allocator_name_of(traced->allocator), "glibc")))) {
		/* the column that replays the program as it ran */
		const char *name =
			traced->allocator[0] ? allocator_name_of(traced->allocator) : "NAME";
		printf("(the traced program ran on %s, with %s: a column 'traced', %s%s%s%s, "
		       "replays it so)\n",
		       traced->allocator[0] ? traced->allocator
					    : "an allocator not named in the workload",
		       traced->settings[0] ? traced->settings : "no settings", name,
		       traced->settings[0] ? "(" : "", traced->settings,
		       traced->settings[0] ? ")" : "");
	}
	return status;
}

void run_print_summary(const struct run_opts *o, const struct as_traced *traced,
		       const char *alloc, const struct run_variant *col, const int64_t *f,
		       const char *name, const char *timer, unsigned runs)
{
	/* (piped, a line each, as scripts read them) */
	int width = tool_tty_width(1);
	char *text = NULL;
	size_t len = 0;
	FILE *out = width ? open_memstream(&text, &len) : NULL;
	if (!out)
		out = stdout;
	report_text(out, f, name, timer, runs, o->dj_summary);
	run_settings_print(out, o, traced, alloc, col);
	report_fidelity_text(out, f, traced->allocator, o->ro.pace > 0);
	if (out != stdout) {
		fclose(out);
		print_wrapped(stdout, text, width, 2);
		free(text);
	}
}
