/* allocctl.c - the program's settings made through its allocator's own control interface.
 *
 * A program may tune its allocator as it runs: redis switches jemalloc's background thread on
 * with mallctl("background_thread", ...), and a replay under the environment's settings alone
 * runs without it.  Where the allocator beneath is jemalloc or mimalloc, the writes that its
 * environment could also express are noted as the environment would say them (MALLOC_CONF's
 * keys, MIMALLOC_<NAME>), the last value of each, and written with the trace's settings
 * (mt_file_header_settings), where trace_run -m traced finds them.
 *
 * The calls reach us through the slots the program calls them by (gotpatch.c), not by names of
 * ours: a program on glibc probing for jemalloc finds what it finds untraced.  Each wrapper
 * calls the allocator's own function, and notes a write only once it succeeded: the program
 * sees the allocator's result and errno.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/types.h>
#include "mt_int.h"

/* ---------------------------------------------------------------------------------------------
   What is noted (under lock)
   ------------------------------------------------------------------------------------------- */

enum { K_BOOL, K_UNSIGNED, K_SIGNED };

/* jemalloc's writable names whose MALLOC_CONF key sets the same for the whole process */
static const struct { const char *ctl, *conf; uint8_t size, kind; } je_keys[] = {
	{ "background_thread", "background_thread", sizeof(_Bool), K_BOOL },
	{ "max_background_threads", "max_background_threads", sizeof(size_t), K_UNSIGNED },
	{ "arenas.dirty_decay_ms", "dirty_decay_ms", sizeof(ssize_t), K_SIGNED },
	{ "arenas.muzzy_decay_ms", "muzzy_decay_ms", sizeof(ssize_t), K_SIGNED },
};
#define JE_KEYS (sizeof je_keys / sizeof je_keys[0])

/* mimalloc's options by number, as its environment names them (MIMALLOC_<NAME>); NULL: not
   noted (messages, deprecated ones, and the reservations made at start only).  The numbers
   change between versions: an unknown version's calls are not noted. */
static const char *const mi_209[] = {   /* 2.0.9, 2.1.0, 2.1.1 */
	NULL, NULL, NULL, "EAGER_COMMIT", NULL, NULL, "LARGE_OS_PAGES", NULL, NULL, NULL, NULL,
	"PAGE_RESET", "ABANDONED_PAGE_DECOMMIT", NULL, "EAGER_COMMIT_DELAY", "DECOMMIT_DELAY",
	"USE_NUMA_NODES", "LIMIT_OS_ALLOC", NULL, NULL, NULL, "MAX_SEGMENT_RECLAIM",
	"ALLOW_DECOMMIT", "SEGMENT_DECOMMIT_DELAY", "DECOMMIT_EXTEND_DELAY", "DESTROY_ON_EXIT",
};
static const char *const mi_212[] = {   /* 2.1.2 */
	NULL, NULL, NULL, "EAGER_COMMIT", "ARENA_EAGER_COMMIT", "PURGE_DECOMMITS",
	"ALLOW_LARGE_OS_PAGES", NULL, NULL, NULL, NULL, NULL, "ABANDONED_PAGE_PURGE", NULL,
	"EAGER_COMMIT_DELAY", "PURGE_DELAY", "USE_NUMA_NODES", "LIMIT_OS_ALLOC", NULL, NULL, NULL,
	"MAX_SEGMENT_RECLAIM", "DESTROY_ON_EXIT", NULL, "ARENA_PURGE_MULT", "PURGE_EXTEND_DELAY",
};
#define MI_MAX 26
_Static_assert(sizeof mi_209 / sizeof *mi_209 <= MI_MAX && sizeof mi_212 / sizeof *mi_212 <= MI_MAX,
	       "a table longer than the values kept");

static struct {
	uint32_t je_set;                /* bit i: je_keys[i] was written, last to je_value[i] */
	int64_t je_value[JE_KEYS];
	uint32_t mi_set;                /* bit i: option i was set, last to mi_value[i] */
	int64_t mi_value[MI_MAX];
	const char *const *mi_names;    /* this mimalloc's table, or NULL */
	unsigned mi_n;
} noted;

static size_t put(char *buf, size_t at, size_t cap, const char *s, size_t n)
{
	if (at < cap) {
		if (n > cap - at)
			n = cap - at;
		memcpy(buf + at, s, n);
	}
	return at + n;
}

static size_t put_num(char *buf, size_t at, size_t cap, int64_t v, int is_signed)
{
	char num[24];
	if (is_signed && v < 0) {
		at = put(buf, at, cap, "-", 1);
		return put(buf, at, cap, num, mt_fmt_u64(num, -(unsigned long long)v));
	}
	return put(buf, at, cap, num, mt_fmt_u64(num, (unsigned long long)v));
}

/* Under lock: the settings noted, each NAME=VALUE and a NUL, into buf (cap bytes; one that does
   not fit whole is left out); their length */
size_t mt_ctl_settings(char *buf, size_t cap)
{
	MT_ASSERT_LOCKED();
	char one[512];
	size_t n = 0, k = 0;
	if (noted.je_set) {
		k = put(one, 0, sizeof one, "MALLOC_CONF=", 12);
		for (unsigned i = 0, first = 1; i < JE_KEYS; i++) {
			if (!(noted.je_set & (1u << i)))
				continue;
			if (!first)
				k = put(one, k, sizeof one, ",", 1);
			first = 0;
			k = put(one, k, sizeof one, je_keys[i].conf, strlen(je_keys[i].conf));
			k = put(one, k, sizeof one, ":", 1);
			if (je_keys[i].kind == K_BOOL)
				k = noted.je_value[i] ? put(one, k, sizeof one, "true", 4)
						      : put(one, k, sizeof one, "false", 5);
			else
				k = put_num(one, k, sizeof one, noted.je_value[i],
					    je_keys[i].kind == K_SIGNED);
		}
		if (k < sizeof one && k + 1 <= cap) {
			memcpy(buf, one, k);
			buf[k] = 0;
			n = k + 1;
		}
	}
	for (unsigned i = 0; i < noted.mi_n; i++) {
		if (!(noted.mi_set & (1u << i)))
			continue;
		k = put(one, 0, sizeof one, "MIMALLOC_", 9);
		k = put(one, k, sizeof one, noted.mi_names[i], strlen(noted.mi_names[i]));
		k = put(one, k, sizeof one, "=", 1);
		k = put_num(one, k, sizeof one, noted.mi_value[i], 1);
		if (k < sizeof one && n + k + 1 <= cap) {
			memcpy(buf + n, one, k);
			buf[n + k] = 0;
			n += k + 1;
		}
	}
	return n;
}

/* Not under lock: setting i of a kind (its bits set, its values) noted at v, into the header */
static void note(uint32_t *set, int64_t *value, unsigned i, int64_t v)
{
	struct mt_lock_state ls;
	mt_lock(&ls);
	*set |= 1u << i;
	value[i] = v;
	if (mt_file.have_file && !mt_file.failed)
		mt_file_header_settings();
	mt_unlock(&ls);
}

/* ---------------------------------------------------------------------------------------------
   The wrappers
   ------------------------------------------------------------------------------------------- */

static int (*real_mallctl)(const char *, void *, size_t *, void *, size_t);

static int w_mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen)
{
	int r = real_mallctl(name, oldp, oldlenp, newp, newlen);
	if (r != 0 || newp == NULL)
		return r;
	int err = errno;
	/* (a success read the name and the new value whole: both can be read) */
	for (unsigned i = 0; i < JE_KEYS; i++) {
		if (newlen != je_keys[i].size || strcmp(name, je_keys[i].ctl) != 0)
			continue;
		int64_t v;
		if (je_keys[i].kind == K_BOOL)
			v = *(const _Bool *)newp;
		else if (je_keys[i].kind == K_SIGNED)
			v = *(const ssize_t *)newp;
		else
			v = (int64_t)*(const size_t *)newp;
		note(&noted.je_set, noted.je_value, i, v);
	}
	errno = err;
	return r;
}

/* mimalloc's mi_option_t is an enum: passed as an int */
static struct {
	void (*set)(int, long), (*set_default)(int, long);
	void (*set_enabled)(int, _Bool), (*set_enabled_default)(int, _Bool);
	void (*enable)(int), (*disable)(int);
	long (*get)(int);
} mi;

/* after a call that may have set option o: its value now, whichever call set it how */
static void mi_noted(int o)
{
	if (o < 0 || (unsigned)o >= noted.mi_n || noted.mi_names[o] == NULL)
		return;
	int err = errno;
	note(&noted.mi_set, noted.mi_value, (unsigned)o, mi.get(o));
	errno = err;
}

static void w_mi_option_set(int o, long v) { mi.set(o, v); mi_noted(o); }
static void w_mi_option_set_default(int o, long v) { mi.set_default(o, v); mi_noted(o); }
static void w_mi_option_set_enabled(int o, _Bool on) { mi.set_enabled(o, on); mi_noted(o); }
static void w_mi_option_set_enabled_default(int o, _Bool on)
{
	mi.set_enabled_default(o, on);
	mi_noted(o);
}
static void w_mi_option_enable(int o) { mi.enable(o); mi_noted(o); }
static void w_mi_option_disable(int o) { mi.disable(o); mi_noted(o); }

/* ---------------------------------------------------------------------------------------------
   Finding the allocator's functions, and the slots that call them
   ------------------------------------------------------------------------------------------- */

static struct mt_got_fn fns[7];
static unsigned nfns;
static int state;     /* 0 not looked, 1 looking or patching, 2 nothing to patch, 3 patched */

static void add(const char *name, void *real, void *wrapper)
{
	if (real)
		fns[nfns++] = (struct mt_got_fn){ name, real, wrapper };
}

/* Which of the functions the allocator beneath (the object of the next malloc) defines */
static void look_up(void)
{
	static const char *const names[] = {
		"mallctl", "mi_version", "mi_option_get", "mi_option_set", "mi_option_set_default",
		"mi_option_set_enabled", "mi_option_set_enabled_default", "mi_option_enable",
		"mi_option_disable",
	};
	void *def[sizeof names / sizeof names[0]];
	mt_got_symbols((void *)mt_real.malloc, names, def, sizeof names / sizeof names[0]);
	real_mallctl = (__typeof__(real_mallctl))def[0];
	add(names[0], def[0], (void *)w_mallctl);
	int v = def[1] ? ((int (*)(void))def[1])() : 0;
	if (v >= 209 && v <= 211)
		noted.mi_names = mi_209, noted.mi_n = sizeof mi_209 / sizeof mi_209[0];
	else if (v == 212)
		noted.mi_names = mi_212, noted.mi_n = sizeof mi_212 / sizeof mi_212[0];
	if (!noted.mi_names || !(mi.get = (__typeof__(mi.get))def[2]))
		return;
#define MI(f, i) mi.f = (__typeof__(mi.f))def[i], add(names[i], def[i], (void *)w_mi_option_##f)
	MI(set, 3);
	MI(set_default, 4);
	MI(set_enabled, 5);
	MI(set_enabled_default, 6);
	MI(enable, 7);
	MI(disable, 8);
#undef MI
}

/* Not under lock.  first: after initialisation (the preload's constructor, mtrace_start), which
   looks the functions up; else before a dlopen, where the objects an earlier one opened are
   looked at, if there is anything to patch.  One thread at a time: another that comes
   meanwhile goes on (its objects are looked at by the next). */
void mt_ctl_hook(int first)
{
	int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
	if (first ? s != 0 && s != 3 : s != 3)
		return;
	if (!__atomic_compare_exchange_n(&state, &s, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return;
	int err = errno;
	if (s == 0)
		look_up();
	if (nfns)
		mt_got_patch(fns, nfns);
	errno = err;
	__atomic_store_n(&state, nfns ? 3 : 2, __ATOMIC_RELEASE);
}

/* In a new process: a thread of the parent may have been patching */
void mt_ctl_fork_child(void)
{
	if (__atomic_load_n(&state, __ATOMIC_RELAXED) == 1)
		__atomic_store_n(&state, nfns ? 3 : 2, __ATOMIC_RELAXED);
}
