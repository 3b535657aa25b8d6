/* run_env.c - see run_env.h */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>
#include "hint.h"
#include "replay.h"
#include "run_env.h"
#include "tool.h"

/* ---------------------------------------------------------------------------------------------
   Allocators
   ------------------------------------------------------------------------------------------- */

static const struct { const char *name, *lib, *pkg, *family; } known[] = {
	/* family: how the files of any build of it begin (tcmalloc's full one as its minimal) */
	{ "jemalloc", "libjemalloc.so.2", "libjemalloc2", "libjemalloc" },
	{ "tcmalloc", "libtcmalloc_minimal.so.4", "libtcmalloc-minimal4", "libtcmalloc" },
	{ "mimalloc", "libmimalloc.so.2", "libmimalloc2.0", "libmimalloc" },
};

const char *allocator_name_of(const char *file)
{
	const char *slash = strrchr(file, '/'), *base = slash ? slash + 1 : file;
	if (!strncmp(base, "libc.so", 7))
		return "glibc";
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (!strncmp(base, known[i].family, strlen(known[i].family)))
			return known[i].name;
	return base;
}

const char *allocator_path(const char *name, char *buf, size_t cap, const char **why)
{
	if (!strcmp(name, "glibc"))
		return "";
	if (strchr(name, '/')) {
		if (access(name, R_OK) != 0) {
			*why = strerror(errno);
			return NULL;
		}
		if (strpbrk(name, " \t:")) {   /* LD_PRELOAD's separators */
			*why = "LD_PRELOAD cannot name a path with a space, tab or colon in it "
			       "(link or copy the library to another path)";
			return NULL;
		}
		return realpath(name, buf) ? buf : name;
	}
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
		if (strcmp(name, known[i].name))
			continue;
		static const char *dirs[] = { "/usr/lib/*/", "/usr/lib/", "/usr/local/lib/",
					      "/lib/*/" };
		for (size_t d = 0; d < 4; d++) {
			char pat[256];
			glob_t g;
			snprintf(pat, sizeof pat, "%s%s", dirs[d], known[i].lib);
			if (glob(pat, 0, NULL, &g) == 0 && g.gl_pathc) {
				snprintf(buf, cap, "%s", g.gl_pathv[0]);
				globfree(&g);
				return buf;
			}
			globfree(&g);
		}
		static char msg[128];
		snprintf(msg, sizeof msg, "%s not found (apt-get install %s)", known[i].lib,
			 known[i].pkg);
		*why = msg;
		return NULL;
	}
	*why = "unknown allocator (glibc, jemalloc, tcmalloc, mimalloc, or a path to a .so)";
	return NULL;
}

/* The names --malloc knows, into names (2 + the known ones); how many */
static int known_names(const char **names)
{
	int n = 0;
	names[n++] = "glibc";
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		names[n++] = known[i].name;
	names[n++] = "traced";
	return n;
}

int allocator_known_name(const char *name)
{
	const char *names[2 + sizeof known / sizeof known[0]];
	int n = known_names(names);
	for (int i = 0; i < n; i++)
		if (!strcmp(name, names[i]))
			return 1;
	return 0;
}

void allocator_check_name(const char *name, const char *what)
{
	const char *names[2 + sizeof known / sizeof known[0]];
	int n = known_names(names);
	if (strchr(name, '/') || allocator_known_name(name))
		return;   /* (a path: allocator_path says whether it can be read) */
	const char *near = hint_closest(name, names, n);
	char mean[600] = "";
	if (near)
		snprintf(mean, sizeof mean, "; did you mean %s?", near);
	else if (access(name, F_OK) == 0)  /* a library in this directory, named without its path */
		snprintf(mean, sizeof mean, "; a library here is named with its path: ./%s", name);
	tool_die(EXIT_USAGE,
		 "%s: no allocator of that name%s (known: glibc, jemalloc, tcmalloc, mimalloc, "
		 "traced, or the path of a shared object)",
		 what, mean);
}

/* After the re-execution: is the allocator in place?  ld.so only warns when it cannot preload
   an object (not ELF, another architecture) and goes on, and a loaded object need not define
   malloc: either way the replay would measure glibc under another name. */
static void check_preloaded(const char *name, const char *lib)
{
	char label[4400];
	snprintf(label, sizeof label, strcmp(name, lib) ? "%s (%s)" : "%s", name, lib);
	void *h = dlopen(lib, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		tool_die(EXIT_SYSTEM,
			 "%s could not be preloaded (the loader's message above says why)", label);
	dlclose(h);
	Dl_info info;
	void *m = dlsym(RTLD_DEFAULT, "malloc");
	const char *where = m && dladdr(m, &info) && info.dli_fname ? info.dli_fname : "";
	const char *base = strrchr(where, '/') ? strrchr(where, '/') + 1 : where;
	if (!strncmp(base, "libc.so", 7))
		tool_die(EXIT_SYSTEM, "%s was preloaded but defines no malloc: the replay would "
			 "measure glibc's", label);
}

/* The alarm set before the re-execution went off after it: the allocator's start-up (its
   constructor, which runs before main, ends the process by the alarm's default action; the
   check, here) did not return */
static void on_start_timeout(int sig)
{
	(void)sig;
	static const char msg[] =
		": the allocator under test made no progress before the replay began "
		"(--timeout): its start-up hangs, most likely\n";
	ssize_t w = write(2, tool_name, strlen(tool_name));
	w = write(2, msg, sizeof msg - 1);
	(void)w;
	tool_remove_temps();
	_exit(EXIT_SYSTEM);
}

void ensure_environment(const char *malloc_name, const char *tunables, char **argv,
			const char *const *extra_env, unsigned timeout_s)
{
	const char *name = malloc_name ? malloc_name : "glibc";
	char buf[4096];
	const char *why = NULL, *lib = allocator_path(name, buf, sizeof buf, &why);
	if (!lib)
		tool_die(EXIT_SYSTEM, "%s: %s", name, why);
	char want[4400];
	snprintf(want, sizeof want, "%s|%s", lib, tunables ? tunables : "");
	const char *have = getenv("MTRACE_RUN_ENV");
	if (have && !strcmp(have, want)) {
		if (*lib) {
			signal(SIGALRM, on_start_timeout);
			/* the allocator serves its first calls in the check: a crash there is
			   its crash too, reported, exit 3 */
			replay_catch_crashes();
			check_preloaded(name, lib);
			alarm(0);   /* (the replay has its own watch: --timeout in replay.c) */
			signal(SIGALRM, SIG_DFL);
		}
		return;
	}
	if (!*lib && !tunables && !have)
		return;   /* plain glibc: nothing to set */
	setenv("MTRACE_RUN_ENV", want, 1);
	if (*lib) {
		/* the allocator first, so that it serves malloc - but after our tracer if the
		   replay is itself traced (mtracectl -- trace_run --malloc X), which forwards to
		   it */
		const char *old = getenv("LD_PRELOAD");
		old = old ? old : "";
		size_t at = 0;
		for (const char *e = old; *e;) {
			size_t n = strcspn(e, " :");
			const char *slash = memrchr(e, '/', n), *file = slash ? slash + 1 : e;
			size_t fn = n - (size_t)(file - e);
			if ((fn == 15 && !strncmp(file, "libmtracectl.so", 15)) ||
			    (fn == 12 && !strncmp(file, "libmtrace.so", 12)))
				at = (size_t)(e + n - old);
			e += n;
			e += strspn(e, " :");
		}
		const char *rest = old + at + strspn(old + at, " :");
		char *pre;
		if (asprintf(&pre, "%.*s%s%s%s%s", (int)at, old, at ? " " : "", lib,
			     *rest ? " " : "", rest) < 0)
			tool_die(EXIT_SYSTEM, "out of memory");
		setenv("LD_PRELOAD", pre, 1);
	}
	if (tunables)
		setenv("GLIBC_TUNABLES", tunables, 1);
	for (const char *const *e = extra_env; e && e[0]; e += 2)
		setenv(e[0], e[1], 1);
	if (*lib && timeout_s)
		alarm(timeout_s);
	execv("/proc/self/exe", argv);
	alarm(0);
	tool_die(EXIT_SYSTEM, "cannot re-execute to preload %s: %s", name, strerror(errno));
}

/* ---------------------------------------------------------------------------------------------
   --compare's columns: an allocator and settings of its own
   ------------------------------------------------------------------------------------------- */

/* an environment variable's name: a letter or '_', then letters, digits and '_' */
static int env_name_ok(const char *s, size_t n)
{
	if (n == 0 || (s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

/* The settings between the parentheses of column v: s, n bytes. */
static void parse_settings(struct run_variant *v, const char *s, size_t n)
{
	if (n >= sizeof v->buf)
		tool_die(EXIT_USAGE, "--compare: the settings of '%s' are too long", v->label);
	snprintf(v->what, sizeof v->what, "--compare: '%s'", v->label);
	memcpy(v->buf, s, n);
	v->buf[n] = 0;
	for (char *save = NULL, *t = strtok_r(v->buf, " \t", &save); t;
	     t = strtok_r(NULL, " \t", &save)) {
		char *eq = strchr(t, '=');
		size_t name = eq ? (size_t)(eq - t) : 0;
		/* as a trace header shows it */
		int whole = name == 14 && !strncmp(t, "GLIBC_TUNABLES", 14);
		if ((!strncmp(t, "glibc.", 6) && eq) || whole) {
			const char *item = whole ? eq + 1 : t;
			size_t have = strlen(v->tunables);
			if (have + strlen(item) + 2 > sizeof v->tunables)
				tool_die(EXIT_USAGE,
					 "--compare: the glibc tunables of '%s' are too long",
					 v->label);
			snprintf(v->tunables + have, sizeof v->tunables - have, "%s%s",
				 have ? ":" : "", item);
		} else if (!strncmp(t, "M_", 2) && eq) {
			check_mallopt(t, 0, v->what);
			if (v->nmallopt == RUN_VARIANT_SETTINGS)
				tool_die(EXIT_USAGE,
					 "--compare: '%s' has more than %d mallopt settings",
					 v->label, RUN_VARIANT_SETTINGS);
			v->mallopt[v->nmallopt++] = t;
		} else if (eq && env_name_ok(t, name)) {
			/* the harness's own: the allocator's preload, the tunables, our
			   re-execution */
			if ((name == 10 && !strncmp(t, "LD_PRELOAD", 10)) ||
			    !strncmp(t, "MTRACE_", 7))
				tool_die(EXIT_USAGE,
					 "--compare: '%s' in '%s': trace_run sets %.*s itself "
					 "(name the allocator before the parentheses)",
					 t, v->label, (int)name, t);
			if (v->nenv == RUN_VARIANT_SETTINGS)
				tool_die(EXIT_USAGE,
					 "--compare: '%s' has more than %d environment settings",
					 v->label, RUN_VARIANT_SETTINGS);
			v->env[v->nenv++] = t;
		} else
			tool_die(EXIT_USAGE,
				 "--compare: '%s' in '%s' is not a setting: NAME=VALUE, NAME a "
				 "glibc tunable (glibc.malloc.arena_max), a mallopt parameter "
				 "(M_ARENA_MAX) or an environment variable (MALLOC_CONF), "
				 "settings separated by spaces",
				 t, v->label);
	}
	if (v->tunables[0])
		check_tunables(v->tunables, v->what);
}

int run_variants_parse(const char *list, struct run_variant *v, int max)
{
	int n = 0;
	const char *p = list;
	for (;;) {
		/* a column: up to the next comma outside its parentheses */
		const char *open = NULL, *close = NULL, *q;
		for (q = p; *q && (*q != ',' || (open && !close)); q++) {
			if (*q == '(' && !open)
				open = q;
			else if (*q == ')' && open && !close)
				close = q;
			else if (*q == '(' || *q == ')' || close)
				tool_die(EXIT_USAGE,
					 "--compare: '%s': a column is NAME or NAME(SETTING ...), "
					 "nothing after its ')'",
					 list);
		}
		if (open && !close)
			tool_die(EXIT_USAGE, "--compare: '%s': a '(' without its ')'", list);
		if (q == p || open == p)
			tool_die(EXIT_USAGE,
				 "--compare wants allocators separated by single commas, not '%s'",
				 list);
		if (n == max)
			tool_die(EXIT_USAGE, "--compare: at most %d allocators at once", max);
		struct run_variant *c = &v[n++];
		size_t len = (size_t)(q - p), an = open ? (size_t)(open - p) : len;
		if (len >= sizeof c->label)
			tool_die(EXIT_USAGE, "--compare: '%.40s...' is too long", p);
		memset(c, 0, sizeof *c);
		memcpy(c->label, p, len);
		memcpy(c->alloc, p, an);
		char what[600];
		snprintf(what, sizeof what, "--compare: '%s'", c->alloc);
		allocator_check_name(c->alloc, what);
		if (open)
			parse_settings(c, open + 1, (size_t)(close - open - 1));
		if (!*q)
			return n;
		p = q + 1;
	}
}

/* ---------------------------------------------------------------------------------------------
   glibc's own settings: tunables and mallopt
   ------------------------------------------------------------------------------------------- */

/* GLIBC_TUNABLES: glibc ignores a name it does not know, and a value outside a tunable's range,
   without a word, and the replay would measure the defaults under the user's label.  The
   dynamic loader lists what it knows (ld.so --list-tunables, glibc 2.33 on): each item of spec
   is checked against that list when there is one.  Usage errors exit. */
void check_tunables(const char *spec, const char *opt)
{
	Dl_info info;
	void *base = (void *)getauxval(AT_BASE);   /* the dynamic loader's load address */
	if (!base || !dladdr(base, &info) || !info.dli_fname || info.dli_fname[0] != '/')
		return;
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return;
	char *args[] = { (char *)info.dli_fname, "--list-tunables", NULL };
	pid_t pid = tool_spawn(args, -1, pfd[1], 1);
	close(pfd[1]);
	static char list[64 << 10];
	size_t len = 0;
	ssize_t k;
	while (pid > 0 && len < sizeof list - 1 &&
	       (k = read(pfd[0], list + len, sizeof list - 1 - len)) > 0)
		len += (size_t)k;
	close(pfd[0]);
	list[len] = 0;
	if (pid < 0 || !tool_wait_ok(pid) || !strstr(list, "glibc."))
		return;   /* an older glibc: nothing to check against */
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", spec);
	for (char *save = NULL, *item = strtok_r(buf, ":", &save); item;
	     item = strtok_r(NULL, ":", &save)) {
		char *eq = strchr(item, '=');
		if (!eq || eq == item)
			tool_die(EXIT_USAGE, "%s wants NAME=VALUE items separated by ':', not '%s'",
				 opt, item);
		*eq = 0;
		/* the list's line for it: "NAME: VALUE (min: MIN, max: MAX)", or "NAME:" (a
		   string) */
		char *line = NULL;
		size_t n = strlen(item);
		for (char *l = list; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
			if (!strncmp(l, item, n) && l[n] == ':') {
				line = l;
				break;
			}
		if (!line)
			tool_die(EXIT_USAGE,
				 "%s: this glibc has no tunable '%s' (%s --list-tunables lists "
				 "them); glibc would ignore it without a word",
				 opt, item, info.dli_fname);
		char *range = strstr(line, "(min: "), *nl = strchr(line, '\n');
		if (!range || (nl && range > nl))
			continue;   /* a string tunable: any value */
		unsigned long long min = strtoull(range + 6, NULL, 0), max = 0;
		char *mx = strstr(range, "max: ");
		if (mx)
			max = strtoull(mx + 5, NULL, 0);
		char *end;
		errno = 0;
		unsigned long long v = strtoull(eq + 1, &end, 0);
		if (eq[1] == 0 || *end || errno || eq[1] == '-')
			tool_die(EXIT_USAGE, "%s: %s wants a number, not '%s'", opt, item, eq + 1);
		if (v < min || (mx && v > max))
			tool_die(EXIT_USAGE,
				 "%s: %s=%s is outside its range (%llu to %llu): glibc would "
				 "ignore it without a word",
				 opt, item, eq + 1, min, max);
	}
}

int tunables_tune_malloc(const char *spec)
{
	return spec && strstr(spec, "glibc.malloc.") != NULL;
}

static const struct { const char *name; int param; } mallopt_names[] = {
	{ "M_MXFAST", M_MXFAST },         { "M_TRIM_THRESHOLD", M_TRIM_THRESHOLD },
	{ "M_TOP_PAD", M_TOP_PAD },       { "M_MMAP_THRESHOLD", M_MMAP_THRESHOLD },
	{ "M_MMAP_MAX", M_MMAP_MAX },     { "M_PERTURB", M_PERTURB },
	{ "M_ARENA_TEST", M_ARENA_TEST }, { "M_ARENA_MAX", M_ARENA_MAX },
};

void check_mallopt(const char *arg, int apply, const char *opt)
{
	const char *eq = strchr(arg, '=');
	char *end;
	errno = 0;
	long v = eq ? strtol(eq + 1, &end, 0) : 0;
	if (!eq || eq == arg)
		tool_die(EXIT_USAGE, "%s wants NAME=VALUE, not '%s'", opt, arg);
	if (eq[1] == 0 || *end)
		tool_die(EXIT_USAGE, "%s: %.*s wants a number, not '%s'", opt, (int)(eq - arg), arg,
			 eq + 1);
	if (errno == ERANGE || v < INT_MIN || v > INT_MAX)   /* mallopt takes an int */
		tool_die(EXIT_USAGE, "%s: %s is out of range (an int)", opt, eq + 1);
	for (size_t i = 0; i < sizeof mallopt_names / sizeof mallopt_names[0]; i++)
		if (strlen(mallopt_names[i].name) == (size_t)(eq - arg) &&
		    !strncmp(arg, mallopt_names[i].name, (size_t)(eq - arg))) {
			if (apply && mallopt(mallopt_names[i].param, (int)v) != 1)
				tool_warn("mallopt(%s, %ld) was refused: the value is out of "
					  "range, or the allocator is not glibc (mallopt tunes "
					  "glibc's malloc only); replaying without it",

					  mallopt_names[i].name, v);
			return;
		}
	tool_die(EXIT_USAGE, "%s: unknown parameter in '%s'", opt, arg);
}

/* ---------------------------------------------------------------------------------------------
   Memory the replay may touch: what the machine has available, less if the process's memory
   cgroup allows less (read with read(2): the allocator under test may serve stdio already)
   ------------------------------------------------------------------------------------------- */

/* The text of a small file (NUL-terminated, at most cap - 1 bytes); its length, or -1 */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return n;
}

/* The first number in file dir/name, or UINT64_MAX ("max", unreadable) */
static uint64_t cgroup_number(const char *dir, const char *name)
{
	char path[4400], buf[64];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (read_small(path, buf, sizeof buf) <= 0 || buf[0] < '0' || buf[0] > '9')
		return UINT64_MAX;
	return strtoull(buf, NULL, 10);
}

/* What the memory cgroup of this process still allows (its limit less its use), or UINT64_MAX */
static uint64_t cgroup_room(void)
{
	static char list[4096];
	if (read_small("/proc/self/cgroup", list, sizeof list) <= 0)
		return UINT64_MAX;
	uint64_t room = UINT64_MAX;
	for (char *save = NULL, *l = strtok_r(list, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		/* "0::PATH" (cgroup v2), "N:memory:PATH" or "N:CONTROLLERS,memory:PATH" (v1) */
		char *c = strchr(l, ':'), *p = c ? strchr(c + 1, ':') : NULL, dir[4200];
		if (!p)
			continue;
		*p++ = 0;
		uint64_t limit, use;
		if (!strcmp(c, ":")) {
			snprintf(dir, sizeof dir, "/sys/fs/cgroup%s", p);
			limit = cgroup_number(dir, "memory.max"),
			use = cgroup_number(dir, "memory.current");
		} else if (strstr(c, "memory") &&
			   (c[1] == 0 || strstr(c, ":memory") || strstr(c, ",memory"))) {
			snprintf(dir, sizeof dir, "/sys/fs/cgroup/memory%s", p);
			limit = cgroup_number(dir, "memory.limit_in_bytes"),
			use = cgroup_number(dir, "memory.usage_in_bytes");
		} else
			continue;
		if (limit != UINT64_MAX && use != UINT64_MAX) {
			uint64_t r = limit > use ? limit - use : 0;
			if (r < room)
				room = r;
		}
	}
	return room;
}

uint64_t run_memory_available(const char **what)
{
	char buf[8192];
	uint64_t avail = UINT64_MAX;
	*what = "MemAvailable, /proc/meminfo";
	if (read_small("/proc/meminfo", buf, sizeof buf) > 0) {
		const char *m = strstr(buf, "MemAvailable:");
		if (m)
			avail = strtoull(m + 13, NULL, 10) * 1024;   /* (kB) */
	}
	uint64_t room = cgroup_room();
	if (room < avail) {
		avail = room;
		*what = "what this process's memory cgroup allows more";
	}
	return avail;
}
