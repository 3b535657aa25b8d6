# The control API of libmtrace.so: exact counts in a region, pause/unpause, reset, sync,
# start after stop, EBUSY/EINVAL/ENOENT errors, mode 0600, a planted symlink.
. tests/lib.sh
MTRACE_CTL_QUIET=1 "$TP/api_region" "$TMP" >"$TMP/out" 2>"$TMP/err"
rc=$?
cat "$TMP/out"
eq "api_region passes every check" 0 "$rc"
grep -q 'cannot create trace file /nonexistent-dir/x' "$TMP/err" && ok "one warning names the file it could not create" || bad "warning for the missing directory"
# stopping (or exiting) while other threads allocate: "N entries recorded" counts what they
# wrote into the chunks they still hold (not one chunk a thread less), give or take the
# calls in flight at that moment, one a thread at most (their records land after the count)
counts_agree() { # ERRFILE DESCRIPTION
	grep -o 'writing to .*' "$1" | awk '{print $3}' >"$TMP/files"
	grep -o '[0-9]* entries recorded' "$1" | awk '{print $1}' >"$TMP/said"
	paste -d' ' "$TMP/files" "$TMP/said" | while read -r f said; do
		n=$("$BIN/trace_dump" -c "$f" 2>&1 | sed -n 's/.*valid trace: \([0-9,]*\) calls\{0,1\} .*from.*/\1/p' | tr -d ,)
		[ -n "$n" ] && [ "$n" -ge "$said" ] && [ "$n" -le $((said + 4)) ] || echo "$f: said $said, holds ${n:-nothing valid}"
	done >"$TMP/mismatch"
	check "$2 ($(grep -c 'entries recorded' "$1") stops; $(head -n 3 "$TMP/mismatch" | tr '\n' ' '))" test ! -s "$TMP/mismatch"
	ge "$2: stops said" 1 "$(grep -c 'entries recorded' "$1")"
}
MTRACE_CTL_VERBOSE=1 "$TP/api_busy" "$TMP/busy" 60 2>"$TMP/busy.err"; eq "api_busy: 60 rounds under load" 0 "$?"
counts_agree "$TMP/busy.err" "each stop counts every record, those of running threads too"
MTRACE_CTL_VERBOSE=1 MTRACE_CTL_FILE="$TMP/bx" LD_PRELOAD="$LIB" "$TP/api_busy" - 50 exit 2>"$TMP/bx.err"; eq "api_busy: exit with threads allocating" 0 "$?"
counts_agree "$TMP/bx.err" "exit with threads allocating: the count is every record"
# linked with -lmtrace, _exit/_Exit before any call into the tracer: libc's own is found then
"$TP/api_exit" fork >"$TMP/ex.out" 2>&1; eq "-lmtrace: a fork child's _exit(127) after a failed exec" "child: exit 127" "$(cat "$TMP/ex.out")"
"$TP/api_exit" self >/dev/null 2>&1; eq "-lmtrace: _exit(3) as the first call of its kind" 3 "$?"
"$TP/api_exit" Exit >/dev/null 2>&1; eq "-lmtrace: _Exit(4) as the first call of its kind" 4 "$?"
# stop and start 20 times while a thread allocates: each earlier file's window goes once that
# thread gives its chunk there back (the current file's window and header page stay)
mkdir -p "$TMP/cyc"
"$TP/api_cycle" "$TMP/cyc/c" >"$TMP/cyc.out" 2>&1
eq "-lmtrace: 20 stops and starts under a busy thread: the trace's mappings left" "mappings 2" "$(cat "$TMP/cyc.out")"
nbad=0
for f in "$TMP"/cyc/c.*; do "$BIN/trace_dump" -c "$f" >/dev/null 2>&1 || nbad=$((nbad + 1)); done
eq "... each of the $(ls "$TMP"/cyc/c.* | wc -l) traces validates" 0 "$nbad"
# a prepare handler that runs after the tracer's (which holds its lock) and maps memory
timeout -s KILL 30 "$TP/api_atfork" "$TMP/af" >"$TMP/af.out" 2>&1
eq "-lmtrace: fork with a prepare handler that maps memory after the tracer's: no deadlock" forked "$(cat "$TMP/af.out")"
# stopped while another thread holds its chunk: what stays mapped for it ends at the file's
# new end (past it, a leak checker's or a core dump's read was a SIGBUS a word)
mkdir -p "$TMP/st"
eq "-lmtrace: stopped with a thread at work: nothing mapped readable past the file's end" \
	"accessible past the end: 0 bytes" "$("$TP/api_stopped" "$TMP/st/s" 2>&1)"
finish
