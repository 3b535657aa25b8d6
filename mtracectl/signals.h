/* signals.h - mtracectl's signals (signals.c): the program's, which it passes on and whose job
 * control it follows, and the ones that cut a --for window short. */
#ifndef SIGNALS_H
#define SIGNALS_H
#include <signal.h>
#include <sys/types.h>

/* The signals that would end mtracectl and can be waited for: every catchable one whose
   default action is to end the process, less those ignored when mtracectl started (nohup) and
   the faults a bug raises. */
void sig_ending_set(sigset_t *set);

/* Catch every catchable signal but the ignored ones, to pass on to the program, and block them
   until its pid is known; old: the mask to restore. */
void forward_setup(sigset_t *old);
/* In the child before exec: the dispositions and mask mtracectl started with. */
void forward_undo(const sigset_t *old);
/* Wait for the program to end, passing signals on and following its job control; its wait
   status, or -1 (errno).  From then on a signal acts on mtracectl itself, and one that ends it
   removes the temporary files first (tool_temp_add). */
int wait_program(pid_t pid, const sigset_t *old);
#endif
