/* replay_crash.c - where the replay was when it crashed or stalled, said with
 * async-signal-safe calls only. */
#define _GNU_SOURCE
#include <signal.h>
#include "replay_int.h"
#include "tool.h"

/* ---------------------------------------------------------------------------------------------
   A crash during the replay (the allocator under test, most likely): say where, remove our
   temporary files, and exit 3, as for any failure of the system under test (a run of --compare
   is then a failed column).  Only async-signal-safe calls.
   ------------------------------------------------------------------------------------------- */

struct replay_state *replay_crash_state;
__thread struct rthread *replay_crash_me;   /* the stream this thread replays */

/* v in decimal into b (no terminator); its length.  Async-signal-safe, and the sampler's. */
size_t replay_fmt_u(char *b, uint64_t v)
{
	char t[24];
	size_t n = 0, i;
	do
		t[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	for (i = 0; i < n; i++)
		b[i] = t[n - 1 - i];
	return n;
}

/* Append s to the line b of cap bytes holding *k; what does not fit is cut.  Async-signal-safe:
   the crash report's and the sampler's progress line's (no stdio, no allocation). */
void replay_put(char *b, size_t cap, size_t *k, const char *s)
{
	while (*s && *k < cap)
		b[(*k)++] = *s++;
}

/* Calls stream me has completed (n[] is counted when a call returns) */
uint64_t replay_calls_done(const struct rthread *me)
{
	uint64_t done = 0;
	for (unsigned i = 0; i < MTRACE_WL_NCOUNTS; i++)
		done += __atomic_load_n(&me->n[i], __ATOMIC_RELAXED);
	return done;
}

/* "NAME: WHAT in stream S (thread T), at its call C of N (most likely in the allocator under
   test)", and the trace_dump command that shows the calls before it, on stderr (me: the
   stream, or NULL).  Async-signal-safe: the crash handler's, and the sampler's when the replay
   stalls. */
void replay_say_where(const char *what, const struct rthread *me)
{
	char msg[400];
	size_t k = 0;
#define PUT(s) replay_put(msg, sizeof msg - 1, &k, (s))
	PUT(tool_name);
	PUT(": ");
	PUT(what);
	if (me && replay_crash_state) {
		char num[32];
		const struct mtrace_wl_thread *tt = &replay_crash_state->r->threads[me->idx];
		PUT(" in stream ");
		PUT(fmt_commas(num, me->idx));
		PUT(" (thread ");
		num[replay_fmt_u(num, tt->tid)] = 0;
		PUT(num);
		PUT("), at its call ");
		PUT(fmt_commas(num, replay_calls_done(me)));
		PUT(" of ");
		PUT(fmt_commas(num, tt->ncalls));
	}
	PUT(" (most likely in the allocator under test)");
	PUT("\n");
#undef PUT
	ssize_t w = write(2, msg, k);
	if (me && replay_crash_state) {
		/* where to look: the stream's calls up to the one in flight */
		static char hint[4600];
		char num[32];
		uint64_t done = replay_calls_done(me);
		k = 0;
		replay_put(hint, sizeof hint - 1, &k, tool_name);
		replay_put(hint, sizeof hint - 1, &k, ": the calls before it: trace_dump -s ");
		num[replay_fmt_u(num, me->idx)] = 0;
		replay_put(hint, sizeof hint - 1, &k, num);
		replay_put(hint, sizeof hint - 1, &k, " --from ");
		num[replay_fmt_u(num, done > 10 ? done - 10 : 1)] = 0;
		replay_put(hint, sizeof hint - 1, &k, num);
		replay_put(hint, sizeof hint - 1, &k, " -n 20 ");
		const char *name = replay_crash_state->r->name;
		replay_put(hint, sizeof hint - 1, &k, name ? name : "WORKLOAD");
		replay_put(hint, sizeof hint - 1, &k, "\n");
		w = write(2, hint, k);
	}
	(void)w;
}

static void on_crash(int sig)
{
	/* one report: a thread crashing while another reports waits for the end it brings */
	static int reporting;
	if (__atomic_exchange_n(&reporting, 1, __ATOMIC_ACQ_REL))
		for (;;)
			pause();
	static const struct { int sig; const char *name; } names[] = {
		{ SIGSEGV, "SIGSEGV, a bad memory access" },
		{ SIGBUS, "SIGBUS, a bad memory access" },
		{ SIGABRT, "SIGABRT, abort()" }, { SIGILL, "SIGILL" }, { SIGFPE, "SIGFPE" },
	};
	char what[100];
	size_t k = 0;
	replay_put(what, sizeof what - 1, &k, replay_crash_state ? "the replay crashed ("
		   : "crashed before the replay began (");
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (names[i].sig == sig)
			replay_put(what, sizeof what - 1, &k, names[i].name);
	replay_put(what, sizeof what - 1, &k, ")");
	what[k] = 0;
	replay_say_where(what, replay_crash_state ? replay_crash_me : NULL);
	tool_remove_temps();
	_exit(EXIT_SYSTEM);
}

void replay_catch_crashes(void)
{
#ifdef __SANITIZE_ADDRESS__
	return;   /* ASan's own report of a crash (a stack trace) says more */
#endif
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE };
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
		struct sigaction sa = { .sa_handler = on_crash };
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}
