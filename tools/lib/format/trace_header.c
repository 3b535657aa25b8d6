/* trace_header.c - a trace's header: its checks, byte order, and the phrases tools print
 * about it (format: include/mtrace-trace.h). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "trace_reader.h"
#include "trace_reader_int.h"
#include "units.h"

/* ---------------------------------------------------------------------------------------------
   Byte order
   ------------------------------------------------------------------------------------------- */

void trace_swap_header(struct mtrace_file_header *h)
{
	MTRACE_SWAP(h->byte_order_mark);
	MTRACE_SWAP(h->version);
	MTRACE_SWAP(h->header_size);
	MTRACE_SWAP(h->record_size);
	MTRACE_SWAP(h->flags);
	MTRACE_SWAP(h->ticks_per_sec);
	MTRACE_SWAP(h->start_time_ns);
	MTRACE_SWAP(h->start_ticks);
	MTRACE_SWAP(h->pid);
	MTRACE_SWAP(h->ppid);
	MTRACE_SWAP(h->exe_offset);
	MTRACE_SWAP(h->exe_len);
	MTRACE_SWAP(h->cmdline_offset);
	MTRACE_SWAP(h->cmdline_len);
	MTRACE_SWAP(h->stop_ticks);
	MTRACE_SWAP(h->calls_recorded);
	MTRACE_SWAP(h->stop_reason);
	MTRACE_SWAP(h->stop_errno);
	MTRACE_SWAP(h->settings_offset);
	MTRACE_SWAP(h->settings_len);
	MTRACE_SWAP(h->allocator_offset);
	MTRACE_SWAP(h->allocator_len);
	MTRACE_SWAP(h->mallopt_set);
	for (int i = 0; i < MTRACE_MALLOPT_PARAMS; i++)
		MTRACE_SWAP(h->mallopt_value[i]);
	MTRACE_SWAP(h->memory_interval_ms);
	MTRACE_SWAP(h->resident_min);
	MTRACE_SWAP(h->reset_off);
	MTRACE_SWAP(h->start_threads);
	MTRACE_SWAP(h->window);
	MTRACE_SWAP(h->live_untracked);
	MTRACE_SWAP(h->stack_depth);
	MTRACE_SWAP(h->stacks_dropped);
}

void trace_swap_record(struct mtrace_record *rec)
{
	MTRACE_SWAP(rec->tid);
	MTRACE_SWAP(rec->err);
	MTRACE_SWAP(rec->ts);
	MTRACE_SWAP(rec->ptr);
	MTRACE_SWAP(rec->result);
	MTRACE_SWAP(rec->size);
	MTRACE_SWAP(rec->arg2);
	MTRACE_SWAP(rec->usable);
	MTRACE_SWAP(rec->duration);
}

/* ---------------------------------------------------------------------------------------------
   Header
   ------------------------------------------------------------------------------------------- */

const char *trace_stop_text(const struct mtrace_file_header *h, char *buf, size_t cap)
{
	static const char *const why[] = {
		[MTRACE_STOP_NONE] = "it failed",
		[MTRACE_STOP_NO_SPACE] = "no disk space could be reserved",
		[MTRACE_STOP_FSIZE] = "the file size limit (RLIMIT_FSIZE) was reached",
		[MTRACE_STOP_MAX_SIZE] = "the size cap (MTRACE_CTL_MAX_SIZE) was reached",
		[MTRACE_STOP_CLOSED] = "the file was removed or replaced while the program ran, "
			"and could not be opened again",
		[MTRACE_STOP_MAP] = "the file could not be mapped",
		[MTRACE_STOP_TOO_LARGE] = "the largest trace the tracer can address was reached",
		[MTRACE_STOP_SANDBOX] = "the program installed a seccomp filter (a sandbox), which "
			"the trace was finished before",
		[MTRACE_STOP_OVERLAP] = "the program unmapped, protected or mapped over the "
			"trace's own memory",
		[MTRACE_STOP_UNREACHABLE] = "the program changed its root directory or its user, "
			"then closed the descriptors the tracer kept to reach the file",
		[MTRACE_STOP_BACKLOG] = "what was not yet sent to the collector passed the bound "
			"(mtracectl --backlog): the link was down too long",
	};
	const char *what = h->stop_reason <= MTRACE_STOP_MAX ? why[h->stop_reason]
			   : "of a failure this reader does not know";
	/* the error, where it says more than the reason (strerror of a number from Linux) */
	if (h->stop_errno > 0 && h->stop_reason != MTRACE_STOP_FSIZE &&
	    h->stop_reason != MTRACE_STOP_MAX_SIZE && h->stop_reason != MTRACE_STOP_TOO_LARGE)
		snprintf(buf, cap, "%s (%s)", what, strerror(h->stop_errno));
	else
		snprintf(buf, cap, "%s", what);
	return buf;
}

const char *trace_clock_name(unsigned clock)
{
	switch (clock) {
	case MTRACE_CLOCK_TSC: return "x86 TSC";
	case MTRACE_CLOCK_TSC_LFENCE: return "x86 TSC (LFENCE+RDTSC)";
	case MTRACE_CLOCK_MONOTONIC: return "CLOCK_MONOTONIC";
	case MTRACE_CLOCK_CNTVCT: return "aarch64 CNTVCT";
	case MTRACE_CLOCK_COUNTER: return "a count of order points";
	default: return "none";
	}
}

const char *trace_clock_unit(unsigned clock)
{
	switch (clock) {
	case MTRACE_CLOCK_TSC:
	case MTRACE_CLOCK_TSC_LFENCE: return "cycles";
	case MTRACE_CLOCK_MONOTONIC: return "ns";
	default: return "ticks";
	}
}

/* Does a header string (off, len) lie outside the header's string area?  (The sum is taken in
   64 bits: hostile values near 2^32 must not wrap past the check.) */
static int string_outside(const struct mtrace_file_header *h, uint32_t off, uint32_t len)
{
	return (uint64_t)off + len > h->header_size || (len && off < sizeof *h);
}

int trace_header_check(const struct mtrace_file_header *h, uint64_t *at, struct tool_err *err)
{
	/* each test first notes the offset of the field it looks at, for the message */
#define AT(field) (*at = offsetof(struct mtrace_file_header, field))
	const char *what = NULL;
	*at = 0;
	if (memcmp(h->magic, MTRACE_MAGIC, MTRACE_MAGIC_LEN) != 0)
		what = "not an mtrace trace (bad magic)";
	else if (AT(byte_order_mark), h->byte_order_mark != MTRACE_BYTE_ORDER_MARK)
		what = "bad byte-order mark";
	else if (AT(version),
		 h->version < MTRACE_FORMAT_OLDEST || h->version > MTRACE_FORMAT_VERSION)
		tool_fail(err, EXIT_BADFILE, "unsupported format version %u (this reader knows %u "
			  "to %u)", (unsigned)h->version, MTRACE_FORMAT_OLDEST,
			  MTRACE_FORMAT_VERSION);
	else if (AT(header_size), h->header_size < sizeof *h || h->header_size % 8)
		tool_fail(err, EXIT_BADFILE, "bad header size %u", (unsigned)h->header_size);
	else if (AT(record_size), h->version >= 3 ? h->record_size != MTRACE_SLOT_SIZE :
		 h->record_size < MTRACE_RECORD_SIZE || h->record_size % 8)
		tool_fail(err, EXIT_BADFILE, "bad record size %u (version %u)",
			  (unsigned)h->record_size, (unsigned)h->version);
	else if (AT(pointer_size), h->pointer_size != 4 && h->pointer_size != 8)
		tool_fail(err, EXIT_BADFILE, "bad pointer size %u", (unsigned)h->pointer_size);
	else if (AT(clock), h->clock == MTRACE_CLOCK_NONE || h->clock > MTRACE_CLOCK_MAX)
		tool_fail(err, EXIT_BADFILE, "unknown clock %u", (unsigned)h->clock);
	else if (AT(ticks_per_sec), h->ticks_per_sec == 0)
		what = "clock rate is zero";
	else if (AT(flags), h->flags & ~MTRACE_HF_KNOWN)
		tool_fail(err, EXIT_BADFILE, "unknown header flags 0x%x", (unsigned)h->flags);
	else if (AT(flags), (h->flags & MTRACE_HF_STACKS) && h->version < 5)
		tool_fail(err, EXIT_BADFILE, "the call stacks flag in a version %u trace",
			  (unsigned)h->version);
	else if (AT(flags), (h->flags & MTRACE_HF_STACK_IDS) &&
		 (h->version < 6 || !(h->flags & MTRACE_HF_STACKS)))
		tool_fail(err, EXIT_BADFILE, "the stack ids flag in a version %u trace%s",
			  (unsigned)h->version, h->version < 6 ? "" : " without call stacks");
	else if (AT(stack_depth), (h->flags & MTRACE_HF_STACKS) &&
		 h->stack_depth > MTRACE_STACK_DEPTH_MAX)
		tool_fail(err, EXIT_BADFILE, "a stack depth of %u frames (at most %u)",
			  (unsigned)h->stack_depth, MTRACE_STACK_DEPTH_MAX);
	else if (AT(exe_offset), string_outside(h, h->exe_offset, h->exe_len))
		what = "executable path lies outside the header";
	else if (AT(cmdline_offset), string_outside(h, h->cmdline_offset, h->cmdline_len))
		what = "command line lies outside the header";
	else if (AT(settings_offset), string_outside(h, h->settings_offset, h->settings_len))
		what = "allocator settings lie outside the header";
	else if (AT(allocator_offset), string_outside(h, h->allocator_offset, h->allocator_len))
		what = "allocator path lies outside the header";
	else
		return 0;
#undef AT
	if (what)
		tool_fail(err, EXIT_BADFILE, "%s", what);
	return -1;
}

/* ---------------------------------------------------------------------------------------------
   The allocators' settings
   ------------------------------------------------------------------------------------------- */

#define SETTINGS_MAX 64   /* of each kind: more do not fit a header's 1.4 KiB of them */

struct setting {
	const unsigned char *s;
	size_t n, name;                 /* its length; its name's (up to the '=') */
};

/* s (n bytes) at the end of the list in buf (NAME=VALUE separated by spaces), printable, or
   nothing of it where it does not fit whole; then ",", and more (n2 bytes at s2) */
static void add_setting(char *buf, size_t cap, const unsigned char *s, size_t n,
			const unsigned char *s2, size_t n2)
{
	size_t at = strlen(buf), sep = at > 0;
	if (at + sep + n + (n2 ? 1 + n2 : 0) >= cap)
		return;
	if (sep)
		buf[at++] = ' ';
	for (size_t i = 0; i < n + (n2 ? 1 + n2 : 0); i++) {
		unsigned char c = i < n ? s[i] : i == n ? ',' : s2[i - n - 1];
		buf[at++] = (char)(c < 32 || c == 127 ? '?' : c);
	}
	buf[at] = 0;
}

/* The strings of len bytes at src, each ended by a NUL, into list, up to an empty one (the
   rest's offset into *after) */
static int split_settings(const unsigned char *src, uint32_t len, struct setting *list,
			  uint32_t *after)
{
	int n = 0;
	uint32_t i = *after;
	while (i < len) {
		const unsigned char *end = memchr(src + i, 0, len - i);
		size_t k = end ? (size_t)(end - (src + i)) : len - i;
		if (k == 0) {
			i++;
			break;
		}
		if (n < SETTINGS_MAX) {
			const unsigned char *eq = memchr(src + i, '=', k);
			list[n++] = (struct setting){ src + i, k, eq ? (size_t)(eq - (src + i)) : k };
		}
		i += (uint32_t)k + 1;
	}
	*after = i;
	return n;
}

static int same_name(const struct setting *a, const struct setting *b)
{
	return a->name == b->name && !memcmp(a->s, b->s, a->name);
}

void trace_settings_read(const unsigned char *src, uint32_t len, char *all, size_t all_cap,
			 char *set, size_t set_cap)
{
	struct setting env[SETTINGS_MAX], run[SETTINGS_MAX];
	uint32_t at = 0;
	int ne = split_settings(src, len, env, &at), nr = split_settings(src, len, run, &at);
	char used[SETTINGS_MAX] = { 0 };
	all[0] = set[0] = 0;
	for (int r = 0; r < nr; r++)
		add_setting(set, set_cap, run[r].s, run[r].n, NULL, 0);
	for (int e = 0; e < ne; e++) {
		int r = nr - 1;
		while (r >= 0 && !same_name(&env[e], &run[r]))
			r--;
		if (r < 0) {
			add_setting(all, all_cap, env[e].s, env[e].n, NULL, 0);
			continue;
		}
		used[r] = 1;
		/* jemalloc reads MALLOC_CONF's keys in turn, a later one over an earlier one: the
		   program's come after the environment's.  Any other setting is replaced. */
		if (env[e].name == 11 && !memcmp(env[e].s, "MALLOC_CONF", 11) &&
		    env[e].n > 12 && run[r].n > 12)
			add_setting(all, all_cap, env[e].s, env[e].n, run[r].s + 12, run[r].n - 12);
		else
			add_setting(all, all_cap, run[r].s, run[r].n, NULL, 0);
	}
	for (int r = 0; r < nr; r++)
		if (!used[r])
			add_setting(all, all_cap, run[r].s, run[r].n, NULL, 0);
}

int trace_cut_short(struct trace_reader *r, uint64_t api_calls)
{
	const struct mtrace_file_header *h = &r->hdr;
	char a[32], b[32];
	if (r->format != TRACE_FMT_MTRACE || api_calls >= h->calls_recorded ||
	    !((h->flags & MTRACE_HF_FINISHED) ||
	      ((h->flags & MTRACE_HF_STOPPED_EARLY) && h->calls_recorded)))
		return 0;
	return trace_fail(r, r->offset, "truncated: its writer recorded %s calls, the file ends "
			  "after %s", fmt_commas(a, h->calls_recorded), fmt_commas(b, api_calls));
}
