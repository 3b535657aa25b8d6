/* proc.h - the programs a tool runs: decompressors and compressors, found in $PATH. */
#ifndef PROC_H
#define PROC_H
#include <sys/types.h>

/* Run the program args[0] (found in $PATH) with args, its standard input fd in, its standard
   output fd out, its complaints to /dev/null if quiet (our one error line says what failed);
   its pid, or -1 with errno.  tool_wait_ok: did it exit 0? */
pid_t tool_spawn(char *const args[], int in, int out, int quiet);
int tool_wait_ok(pid_t pid);
/* The Debian package that installs prog (a decompressor). */
const char *tool_package_of(const char *prog);
/* Is prog an executable in $PATH? */
int tool_on_path(const char *prog);
#endif
