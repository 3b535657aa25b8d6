/* anon_settings.c - the allocators' settings an anonymized trace keeps: those an allocator reads,
 * known by name, whose values are of their grammar (numbers, booleans, a few keywords).  Anything
 * else is dropped, never kept: a variable that only looks like a setting (MALLOC_TOKEN=...), an
 * option that names a file (jemalloc's prof_prefix), an unknown name, a value that is text. */
#include <ctype.h>
#include <string.h>
#include "anonymize.h"

/* ---------------------------------------------------------------------------------------------
   Values
   ------------------------------------------------------------------------------------------- */

#define VALUE_MAX 24   /* no number is longer; a longer value is dropped */

static int is_digits(const char *v, size_t n, int hex)
{
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(hex ? isxdigit((unsigned char)v[i]) : isdigit((unsigned char)v[i])))
			return 0;
	return 1;
}

/* 123 or 0x7b: glibc's tunables */
static int is_uint(const char *v, size_t n)
{
	if (n > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X'))
		return is_digits(v + 2, n - 2, 1);
	return is_digits(v, n, 0);
}

/* -1, 42, 0.25: jemalloc's and tcmalloc's numbers */
static int is_decimal(const char *v, size_t n)
{
	if (n > 0 && v[0] == '-')
		v++, n--;
	const char *dot = memchr(v, '.', n);
	if (!dot)
		return is_uint(v, n);
	size_t whole = (size_t)(dot - v);
	return is_digits(v, whole, 0) && is_digits(dot + 1, n - whole - 1, 0);
}

/* Is v (n bytes) one of the words of list (separated by '|'), in any case? */
static int is_word(const char *v, size_t n, const char *list)
{
	for (const char *w = list; *w;) {
		size_t k = strcspn(w, "|");
		if (k == n && !strncasecmp(w, v, n))
			return 1;
		w += k + (w[k] == '|');
	}
	return 0;
}

/* mimalloc: 1, on, yes, true (and their opposites), or a size (256, 4MiB, 1G) */
static int is_mimalloc_value(const char *v, size_t n)
{
	if (is_word(v, n, "true|false|yes|no|on|off"))
		return 1;
	size_t d = 0;
	while (d < n && isdigit((unsigned char)v[d]))
		d++;
	return d > 0 && (d == n || is_word(v + d, n - d, "k|m|g|t|kb|mb|gb|tb|kib|mib|gib|tib"));
}

/* ---------------------------------------------------------------------------------------------
   Names
   ------------------------------------------------------------------------------------------- */

/* glibc's variables, each the alias of a tunable */
static const char glibc_env[] = "MALLOC_ARENA_MAX|MALLOC_ARENA_TEST|MALLOC_CHECK_|MALLOC_MMAP_MAX_|"
	"MALLOC_MMAP_THRESHOLD_|MALLOC_PERTURB_|MALLOC_TOP_PAD_|MALLOC_TRIM_THRESHOLD_";

/* glibc's malloc tunables (GLIBC_TUNABLES=glibc.malloc.NAME=N:...), and memory tagging */
static const char glibc_tunables[] = "glibc.malloc.arena_max|glibc.malloc.arena_test|"
	"glibc.malloc.check|glibc.malloc.hugetlb|glibc.malloc.mmap_max|"
	"glibc.malloc.mmap_threshold|glibc.malloc.mxfast|glibc.malloc.perturb|"
	"glibc.malloc.tcache_count|glibc.malloc.tcache_max|glibc.malloc.tcache_unsorted_limit|"
	"glibc.malloc.top_pad|glibc.malloc.trim_threshold|glibc.mem.tagging";

/* jemalloc's options (MALLOC_CONF=NAME:VALUE,...) whose values are numbers, booleans or
   keywords: 5.x's, and older ones still met; none that names a file */
static const char jemalloc_opts[] = "abort|abort_conf|background_thread|cache_oblivious|"
	"confirm_conf|decay_time|dirty_decay_ms|dss|hpa|hpa_dirty_mult|hpa_hugification_threshold|"
	"hpa_hugification_threshold_ratio|hpa_hugify_delay_ms|hpa_min_purge_interval_ms|"
	"hpa_sec_batch_fill_extra|hpa_sec_bytes_after_flush|hpa_sec_max_alloc|hpa_sec_max_bytes|"
	"hpa_sec_nshards|hpa_slab_max_alloc|junk|lg_chunk|lg_dirty_mult|lg_extent_max_active_fit|"
	"lg_prof_interval|lg_prof_sample|lg_san_uaf_align|lg_tcache_flush_large_div|"
	"lg_tcache_flush_small_div|lg_tcache_max|lg_tcache_nslots_mul|max_background_threads|"
	"metadata_thp|mutex_max_spin|muzzy_decay_ms|narenas|narenas_ratio|oversize_threshold|"
	"percpu_arena|prof|prof_accum|prof_active|prof_final|prof_gdump|prof_leak|"
	"prof_leak_error|prof_log|prof_recent_alloc_max|prof_stats|prof_sys_thread_name|"
	"prof_thread_active_init|prof_time_resolution|prof_unbias|purge|quarantine|redzone|retain|"
	"san_guard_large|san_guard_small|stats_interval|stats_print|tcache|tcache_gc_delay_bytes|"
	"tcache_gc_incr_bytes|tcache_max|tcache_nslots_large|tcache_nslots_small_max|"
	"tcache_nslots_small_min|thp|trust_madvise|utrace|xmalloc|zero|zero_realloc";
/* the keywords their values take */
static const char jemalloc_words[] = "true|false|disabled|primary|secondary|percpu|phycpu|auto|"
	"always|never|default|alloc|free|abort|ratio|decay|high";

/* mimalloc's options (MIMALLOC_NAME, in capitals) */
static const char mimalloc_opts[] = "show_errors|show_stats|verbose|eager_commit|"
	"arena_eager_commit|eager_region_commit|reset_decommits|purge_decommits|large_os_pages|"
	"allow_large_os_pages|reserve_huge_os_pages|reserve_huge_os_pages_at|reserve_os_memory|"
	"segment_cache|page_reset|abandoned_page_reset|abandoned_page_decommit|"
	"abandoned_page_purge|segment_reset|eager_commit_delay|allow_decommit|allow_purge|"
	"reset_delay|purge_delay|decommit_delay|arena_reset_delay|purge_extend_delay|"
	"decommit_extend_delay|segment_decommit_delay|use_numa_nodes|limit_os_alloc|"
	"disallow_os_alloc|disallow_arena_alloc|os_tag|max_errors|max_warnings|"
	"max_segment_reclaim|destroy_on_exit|arena_reserve|arena_purge_mult|"
	"abandoned_reclaim_on_free|retry_on_oom|visit_abandoned|target_segments_per_thread|"
	"guarded_min|guarded_max|guarded_precise|guarded_sample_rate|guarded_sample_seed";

/* gperftools' tcmalloc variables with numeric values (none of those that name a file) */
static const char tcmalloc_env[] = "TCMALLOC_AGGRESSIVE_DECOMMIT|TCMALLOC_DEVMEM_LIMIT|"
	"TCMALLOC_DEVMEM_START|TCMALLOC_DISABLE_MEMORY_RELEASE|TCMALLOC_HEAP_LIMIT_MB|"
	"TCMALLOC_LARGE_ALLOC_REPORT_THRESHOLD|TCMALLOC_MAX_FREE_QUEUE_SIZE|"
	"TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES|TCMALLOC_MEMFS_LIMIT_MB|TCMALLOC_PAGE_FENCE|"
	"TCMALLOC_RELEASE_RATE|TCMALLOC_SAMPLE_PARAMETER|TCMALLOC_SKIP_MMAP|TCMALLOC_SKIP_SBRK|"
	"TCMALLOC_TRANSFER_NUM_OBJ";

/* ---------------------------------------------------------------------------------------------
   Lists of options: GLIBC_TUNABLES=a=1:b=2, MALLOC_CONF=a:1,b:2
   ------------------------------------------------------------------------------------------- */

/* Append to *o (up to end) the items of the list v (n bytes, items separated by sep, each NAME
   then eq then VALUE) whose names are in names and values pass ok or are words: separated by
   sep.  The bytes appended. */
static size_t keep_items(const char *v, size_t n, char sep, char eq, const char *names,
			 int (*ok)(const char *, size_t), const char *words, char *o, char *end)
{
	char *start = o;
	for (const char *it = v, *stop = v + n; it < stop;) {
		const char *next = memchr(it, sep, (size_t)(stop - it));
		size_t len = next ? (size_t)(next - it) : (size_t)(stop - it);
		const char *e = memchr(it, eq, len);
		size_t nl = e ? (size_t)(e - it) : 0, vl = e ? len - nl - 1 : 0;
		if (e && vl <= VALUE_MAX && is_word(it, nl, names) &&
		    (ok(e + 1, vl) || (words && is_word(e + 1, vl, words))) &&
		    len + 1 <= (size_t)(end - o)) {
			if (o > start)
				*o++ = sep;
			memcpy(o, it, len);
			o += len;
		}
		it += len + 1;
	}
	return (size_t)(o - start);
}

/* Is the name (n bytes at s) name? */
static int name_is(const char *s, size_t n, const char *name)
{
	return n == strlen(name) && !memcmp(s, name, n);
}

/* Is NAME=VALUE (name nl bytes at s, value vl at v) a setting of a single value kept? */
static int value_kept(const char *s, size_t nl, const char *v, size_t vl)
{
	if (vl > VALUE_MAX)
		return 0;
	if (is_word(s, nl, glibc_env))
		return is_uint(v, vl);
	if (is_word(s, nl, tcmalloc_env))
		return is_decimal(v, vl);
	return nl > 9 && !strncmp(s, "MIMALLOC_", 9) && is_word(s + 9, nl - 9, mimalloc_opts) &&
	       is_mimalloc_value(v, vl);
}

/* One setting NAME=VALUE (n bytes at s) as kept, into o (up to end): its length, 0 if dropped */
static size_t keep_setting(const char *s, size_t n, char *o, char *end)
{
	const char *eq = memchr(s, '=', n);
	if (!eq || (size_t)(eq - s) + 1 >= (size_t)(end - o))
		return 0;
	size_t nl = (size_t)(eq - s), vl = n - nl - 1, kept = 0;
	const char *v = eq + 1;
	char *val = o + nl + 1;
	if (name_is(s, nl, "GLIBC_TUNABLES"))
		kept = keep_items(v, vl, ':', '=', glibc_tunables, is_uint, NULL, val, end);
	else if (name_is(s, nl, "MALLOC_CONF") || name_is(s, nl, "JE_MALLOC_CONF"))
		kept = keep_items(v, vl, ',', ':', jemalloc_opts, is_decimal, jemalloc_words, val,
				  end);
	else if (value_kept(s, nl, v, vl) && vl <= (size_t)(end - val)) {
		memcpy(val, v, vl);
		kept = vl;
	}
	if (kept == 0)
		return 0;
	memcpy(o, s, nl + 1);   /* NAME= */
	return nl + 1 + kept;
}

size_t anon_settings(const unsigned char *in, size_t n, char *out, size_t cap)
{
	char *o = out, *end = out + cap, *run = NULL;
	for (size_t at = 0; at < n;) {
		const char *s = (const char *)in + at;
		size_t len = strnlen(s, n - at);
		if (len == 0 && !run && end - o > 1) {
			/* the empty string before those the program set as it ran: kept */
			*o++ = 0;
			run = o;
		} else if (len && end - o > 1) {
			size_t k = keep_setting(s, len, o, end - 1);
			if (k) {
				o += k;
				*o++ = 0;
			}
		}
		at += len + 1;
	}
	if (run && o == run)
		o--;   /* (none of them kept) */
	return (size_t)(o - out);
}
