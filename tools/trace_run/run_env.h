/* run_env.h - the allocator and glibc settings trace_run replays under: which shared object an
 * allocator's name means, the re-execution that preloads it and sets GLIBC_TUNABLES (both must
 * be in place before the process's first allocation), and the checks of tunables and mallopt
 * parameters that glibc itself would ignore without a word.  Usage errors exit 2, a missing
 * allocator or a failed re-execution 3.
 */
#ifndef RUN_ENV_H
#define RUN_ENV_H
#include <stddef.h>
#include <stdint.h>

/* One column of --compare: an allocator and settings of its own, written NAME or
   NAME(SETTING ...), settings separated by spaces: glibc.*=VALUE a glibc tunable (or
   GLIBC_TUNABLES=A=1:B=2, several, as a trace header shows them), M_*=VALUE a mallopt
   parameter, any other NAME=VALUE an environment variable (MALLOC_CONF for jemalloc,
   MIMALLOC_*, TCMALLOC_*, ...). */
#define RUN_VARIANT_SETTINGS 16
struct run_variant {
	char label[512];                        /* as written: the column's name */
	char alloc[512];                        /* the allocator's name or path */
	char tunables[1024];                    /* its glibc tunables, joined with ':' ("": none) */
	const char *mallopt[RUN_VARIANT_SETTINGS], *env[RUN_VARIANT_SETTINGS];   /* NAME=VALUE */
	int nmallopt, nenv;
	char buf[1024];                         /* what mallopt[] and env[] point into */
	char what[540];                         /* "--compare: 'LABEL'", for messages */
};

/* Split a --compare list at the commas outside parentheses into at most max columns, each
   checked (usage errors exit 2).  Returns the number of columns. */
int run_variants_parse(const char *list, struct run_variant *v, int max);

/* The --malloc name of the allocator in shared object FILE (a path or a file name: libc.so.6 is
   glibc, libjemalloc.so.2 jemalloc, ...), or FILE's file name for one not known by name */
const char *allocator_name_of(const char *file);

/* The shared object for NAME (glibc, jemalloc, tcmalloc, mimalloc or a path; "" for glibc);
   NULL with *why set if it cannot be found (a missing one names its Debian package). */
const char *allocator_path(const char *name, char *buf, size_t cap, const char **why);

/* Is name one of glibc, jemalloc, tcmalloc, mimalloc, traced? */
int allocator_known_name(const char *name);

/* Exit 2 (a usage error) if name is none of glibc, jemalloc, tcmalloc, mimalloc, traced nor a
   path, saying which it likely meant; what: how messages begin ("--malloc NAME"). */
void allocator_check_name(const char *name, const char *what);

/* Re-execute this program (argv) with allocator malloc_name (NULL: glibc) preloaded and
   GLIBC_TUNABLES set to tunables (or not), once: after the re-execution, check the allocator is
   in place and return.  extra_env: NAME, VALUE pairs ending with NULL (or NULL) set for the new
   image only, as setenv allocates.  Returns at once for plain glibc and no tunables.  An
   allocator that hangs in its start-up (its constructor, or the check) ends the process after
   timeout_s seconds (0: never): an alarm set before the re-execution, which it outlives; one
   that crashes in the check is reported as a crash in the replay is (replay_catch_crashes). */
void ensure_environment(const char *malloc_name, const char *tunables, char **argv,
			const char *const *extra_env, unsigned timeout_s);

/* Each NAME=VALUE of a GLIBC_TUNABLES spec against `ld.so --list-tunables` (glibc 2.33 on;
   nothing is checked where it cannot list): unknown name, value out of range, not a number. */
void check_tunables(const char *spec, const char *opt);

/* Does this tunables spec set glibc's malloc (which another allocator does not read)? */
int tunables_tune_malloc(const char *spec);

/* --mallopt NAME=VALUE: checked (an int, a known M_* name), and applied if apply (a refusal
   warns: the value is out of range, or the allocator is not glibc). */
void check_mallopt(const char *arg, int apply, const char *opt);
/* Bytes of memory a replay can touch without pushing the machine into swap or the OOM killer:
   MemAvailable, or less if this process's memory cgroup (v1 or v2) allows less; UINT64_MAX if
   neither is known.  *what: which it is, for messages. */
uint64_t run_memory_available(const char **what);
#endif
