/* wl_input.c - see wl_input.h */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "dj_wl.h"
#include "tool.h"
#include "trace_reader.h"
#include "wl_input.h"

void wl_input_name(char *msg, size_t cap, const char *path, const char *shown)
{
	size_t n = strlen(path);
	if (strcmp(path, shown) && !strncmp(msg, path, n)) {
		char rest[1024];
		snprintf(rest, sizeof rest, "%s", msg + n);
		snprintf(msg, cap, "%s%s", tool_display_name(shown), rest);
	}
}

void wl_input_die_named(const char *msg, const char *path, const char *shown)
{
	char m[1200];
	snprintf(m, sizeof m, "%s", msg);
	wl_input_name(m, sizeof m, path, shown);
	tool_die(EXIT_BADFILE, "%s", m);
}

static void translate_progress(uint64_t done, uint64_t total, void *p)
{
	((struct tool_progress *)p)->total = total;
	tool_progress(done, p);
}

/* Translate the dj/malloc workload plain (the user's workload, or our plain copy of it, in
   tmp) into our encoding, in a temporary file that becomes tmp. */
static void translate_dj(const char *plain, const char *workload, char *tmp, int progress)
{
	static char translated[TOOL_TMP_CAP];
	close(tool_mkstemp(translated, sizeof translated));
	tool_temp_add(translated);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		tool_die(EXIT_SYSTEM, "fork: %s", strerror(errno));
	if (pid == 0) {
		char err[800], what[4300];
		struct tool_progress p;
		snprintf(what, sizeof what, "translating %s", tool_display_name(workload));
		tool_progress_count(&p, progress, 0, what, "operations");
		int bad = dj_wl_to_ours(plain, translated, err, sizeof err, translate_progress, &p) < 0;
		tool_progress_end(&p);
		if (bad)
			wl_input_die_named(err, plain, workload);
		_exit(0);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (tmp[0]) {   /* the decompressed or copied dj workload: done with */
		unlink(tmp);
		tool_temp_done(tmp);
	}
	if (WIFSIGNALED(st))
		tool_die(EXIT_SYSTEM, "%s: translating the dj/malloc workload: killed by signal %d (%s)",
			 tool_display_name(workload), WTERMSIG(st), strsignal(WTERMSIG(st)));
	if (WEXITSTATUS(st))
		exit(WEXITSTATUS(st));   /* (it said why) */
	snprintf(tmp, TOOL_TMP_CAP, "%s", translated);
	tool_temp_done(translated);
	tool_temp_add(tmp);
}

const char *wl_input_plain(const char *workload, char *tmp, int progress)
{
	const char *path = workload;
	char raw[TOOL_TMP_CAP] = "";
	tmp[0] = 0;
	if (tool_input_is_stream(workload)) {   /* "-", or a pipe: bash's <(...) */
		snprintf(raw, sizeof raw, "%s", tool_input_to_file(workload));
		path = raw;
	}
	unsigned char head[8];
	int fd = open(path, O_RDONLY | O_CLOEXEC);   /* not stdio: trace_run's allocator is */
	ssize_t k = fd >= 0 ? read(fd, head, sizeof head) : -1;   /* already the one under test */
	if (fd >= 0)
		close(fd);
	const char *prog = k > 0 ? trace_compression(head, (size_t)k) : NULL;
	if (prog) {
		if (!tool_on_path(prog))
			tool_die(EXIT_SYSTEM, "%s: %s-compressed, but '%s' is not installed (apt-get install %s)",
				 tool_display_name(workload), prog, prog, tool_package_of(prog));
		int out = tool_mkstemp(tmp, TOOL_TMP_CAP);
		tool_temp_add(tmp);
		char *args[] = { (char *)prog, "-dc", "--", (char *)path, NULL };
		struct tool_progress p;
		char what[4300];
		snprintf(what, sizeof what, "decompressing %s", tool_display_name(workload));
		tool_progress_start(&p, progress, -1, what);
		int ok = tool_wait_ok_progress(tool_spawn(args, 0, out, 1), &p, -1, out);
		close(out);
		if (raw[0])
			unlink(raw);
		if (!ok)
			tool_die(EXIT_BADFILE, "%s: %s -dc failed: the compressed data is corrupt or truncated",
				 tool_display_name(workload), prog);
	} else if (raw[0])
		snprintf(tmp, TOOL_TMP_CAP, "%s", raw);   /* the copy, plain */
	const char *plain = tmp[0] ? tmp : workload;
	if (access(plain, R_OK) == 0 && dj_wl_sniff(plain))
		translate_dj(plain, workload, tmp, progress);
	return tmp[0] ? tmp : workload;
}
