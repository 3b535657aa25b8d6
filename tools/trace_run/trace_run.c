/* trace_run - replay a workload against an allocator, timing every call and watching RSS.
 * Its command line: run_opts.c; --compare and --repeat: run_multi.c; the allocator's
 * environment and the re-execution that sets it up: run_env.c; the replay: replay.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cycles.h"
#include "replay.h"
#include "run_env.h"
#include "run_fidelity.h"
#include "run_multi.h"
#include "run_opts.h"
#include "run_report.h"
#include "run_settings.h"
#include "tool.h"
#include "trace_reader.h"
#include "wl_input.h"

/* ---------------------------------------------------------------------------------------------
   A workload on standard input, compressed, or in the dj/malloc encoding is first made plain,
   in our encoding, in a temporary copy without a name (wl_input_plain: "/proc/self/fd/N"):
   the replay maps its workload, and --compare's runs and the re-execution for --malloc, which
   inherit the descriptor, read it again; no end of the tool, SIGKILL included, leaves it
   behind.  The translation happens here, before the re-execution, so that its tables never
   come from the allocator under test.  MTRACE_RUN_COPY names the copy across the
   re-execution and in --compare's runs, MTRACE_RUN_NAME what the user gave, for messages.
   ------------------------------------------------------------------------------------------- */

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
		/* (into the environment only to re-execute: setenv allocates) */
		run_copy_of = workload;
	return plain;
}

/* The timeline and the latency file are written beside their names and renamed into place
   when the replay succeeded: an interrupted or failed replay leaves none that looks whole. */
static char tmp_log[TOOL_TMP_CAP], tmp_latency[TOOL_TMP_CAP];

/* --latency: the histograms the percentiles come from (lat_write_tsv: no allocator call) */
static void write_latency(const char *path, int fd, const struct replay_result *res,
			  const char *alloc, const char *timer)
{
	char title[512];
	snprintf(title, sizeof title, "trace_run latency: %s, %s", alloc, timer);
	int e = lat_write_tsv(fd, title, cycles_unit(), res->hist, res->hist_max) < 0 ? errno : 0;
	tool_output_finish(path, fd, tmp_latency, e);
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
	struct run_opts o;
	int wi, end = run_opts_parse(argc, argv, &o, &wi);
	if (end >= 0)
		return end;
	const char *workload = argv[wi], *shown;   /* shown: in messages */
	struct tool_err err;
	/* (argv too: the re-execution's) */
	workload = argv[wi] = (char *)materialize(workload, &shown, o.ro.progress ? 2 : isatty(2));
	/* a single run re-executes (allocator, tunables) before the workload is read and validated:
	   once, in the process that replays it */
	/* --malloc traced: what the workload says the program ran on and with, in a run of its own
	   (as a column of --compare), once the workload is read */
	int as_traced = o.malloc_name && !strcmp(o.malloc_name, "traced");
	if (!o.compare && o.repeat <= 1 && !as_traced)
		ensure_environment(o.malloc_name, o.tunables, argv, run_copy_of ?
				   (const char *const[]){ "MTRACE_RUN_COPY", workload,
							  "MTRACE_RUN_NAME", run_copy_of, NULL } :
				   NULL, o.ro.timeout_s);

	struct wl_reader r;
	if (wl_open(&r, workload) < 0)
		wl_input_die_named(r.err.msg, workload, shown);
	r.name = shown;
	static struct as_traced traced;
	memcpy(traced.allocator, r.h.allocator, sizeof traced.allocator);
	memcpy(traced.settings, r.h.settings, sizeof traced.settings);
	snprintf(traced.set, sizeof traced.set, "%s", wl_settings_set(&r.h));
	if (as_traced && !o.compare && o.repeat <= 1) {
		/* one run, of the allocator the header names: the run it becomes reads and checks
		   the workload, and whether it fits in memory, once (a 203 MB workload was read and
		   checked twice: 3.6 s and 200 MB, against 2.9 s and 126 MB) */
		wl_close(&r);
		setenv("MTRACE_RUN_MEMCHECK", "1", 1);
		return run_multi(&o, workload, &traced);
	}
	struct replay_plan plan;
	struct tool_progress vp;
	char vname[4200];
	snprintf(vname, sizeof vname, "checking %s", shown);
	tool_progress_count(&vp, o.ro.progress ? 2 : isatty(2),
			    r.h.ncalls + r.h.nwaits + r.h.nthreads, vname, "operations");
	r.progress = tool_progress;
	r.progress_arg = &vp;
	int valid = replay_validate(&r, &plan, &err);
	tool_progress_end(&vp);
	r.progress = NULL;
	if (valid < 0)
		tool_die(EXIT_BADFILE, "%s", err.msg);

	/* blocks that, touched, would take more memory than the machine has free: refused before
	   the replay drives it into swap or the OOM killer (once, by the command the user ran) */
	const char *avail_what, *need_what;
	uint64_t avail = run_memory_available(&avail_what);
	uint64_t need = fidelity_memory_need(&r, plan.ideal_rss, o.ro.touch, &need_what);
	if (o.ro.touch != TOUCH_NONE && need > avail &&
	    (!o.child_label || getenv("MTRACE_RUN_MEMCHECK"))) {
		char a[32], b[32], what[300];
		snprintf(what, sizeof what, need_what, fmt_commas(a, need >> 20));
		tool_die(EXIT_SYSTEM,
			 "%s: %s, more than the %s MiB of memory available here (%s): touched, "
			 "they would push the machine into swap or the OOM killer; replay it where "
			 "there is more memory, or with --touch=none (the blocks are not written "
			 "to: RSS is then what the allocator itself writes)",
			 tool_display_name(shown), what, fmt_commas(b, avail >> 20), avail_what);
	}

	if (o.compare || o.repeat > 1 || as_traced) {
		replay_plan_free(&plan);
		wl_close(&r);
		return run_multi(&o, workload, &traced);
	}
	replay_catch_crashes();   /* the allocator under test is in place from here */
	const char *alloc_name = o.malloc_name ? o.malloc_name : "glibc";
	if (strcmp(alloc_name, "glibc") && (o.nmallopt || tunables_tune_malloc(o.tunables)) &&
	    !o.child_label)   /* (a run of --compare: the parent said it once) */
		tool_warn("%s set%s glibc's malloc, which %s replaces: %s no effect on this replay",
			  o.nmallopt ? "--mallopt" : "glibc.malloc tunables", o.nmallopt ? "s" : "",
			  alloc_name, o.nmallopt ? "it has" : "they have");
	for (int i = 0; i < o.nmallopt; i++)
		check_mallopt(o.mallopts[i], 1, "--mallopt");
	if (o.log)
		o.ro.log_fd = tool_output_open(o.log, tmp_log);
	/* created now, so that a path that cannot be written fails before the replay, not after */
	int latency_fd = o.latency ? tool_output_open(o.latency, tmp_latency) : -1;
	if (!o.ro.progress && isatty(2))
		o.ro.progress = 1;
	/* a run of --compare or --repeat: the parent says which, for the progress line */
	o.ro.progress_name = o.child_label && *o.child_label ? o.child_label : shown;
	/* a run of a --compare column with settings: named as the column (the timeline's and
	   the latency file's titles) */
	const char *alloc = o.child_column && *o.child_column ? o.child_column : alloc_name;
	o.ro.log_name = alloc;
	struct replay_result res;
	if (replay_run(&r, &plan, &o.ro, &res, &err) < 0)
		tool_die_err(&err);
	if (o.log)
		tool_output_finish(o.log, o.ro.log_fd, tmp_log, res.log_errno);
	const char *timer = report_timer(o.ro.no_timing);
	if (o.latency)
		write_latency(o.latency, latency_fd, &res, alloc, timer);
	int64_t f[NFIELDS];
	report_fields(&res, plan.ideal_rss, f);
	struct fidelity fid;
	uint64_t hwm = res.hwm_reset && res.maxrss_end_kb > res.maxrss_start_kb ?
		       (uint64_t)(res.maxrss_end_kb - res.maxrss_start_kb) * 1024 : 0;
	fidelity_compute(&r, res.curve, hwm, run_as_the_program(&o, &traced, alloc_name),
			 o.ro.pace > 0, &fid);
	report_fidelity_fields(&fid, &res, f);
	if (o.format && !strcmp(o.format, "csv"))
		report_csv_header(), report_csv_row(f, alloc, timer);
	else if (o.format && !strcmp(o.format, "json"))
		report_json(f, alloc, timer);
	else {
		run_print_summary(&o, &traced, alloc_name, NULL, f, alloc, timer, 1);
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
