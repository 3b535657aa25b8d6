/* switch.h - mtracectl's side of include/mtrace-control.h (switch.c). */
#ifndef SWITCH_H
#define SWITCH_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* mtracectl --start/--stop/--status/--for: what = 's' start, 'x' stop, 'i' status, 'f' for
   (for_ms), base the trace files' (absolute, or NULL), wait_ms the wait for an answer.
   Returns the exit status; a --start that succeeded leaves the trace's name in started (cap
   bytes; NULL: not wanted). */
int switch_main(int what, const char *pid_arg, const char *base, unsigned long for_ms,
		unsigned wait_ms, int quiet, char *started, size_t cap);
/* Ask process pid's tracer to stop with MTRACE_STOP_BACKLOG (carried out at its next allocator
   call; no wait): 0, or -1 with err said */
int switch_stop_backlog(pid_t pid, char *err, size_t cap);
#endif
