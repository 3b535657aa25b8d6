# However a traced program ends (exit, _exit, abort, a signal, SIGKILL mid-run) it ends as it
# would untraced, and its trace reads cleanly up to the last complete record.
. tests/lib.sh
for how in exit _exit _Exit abort segv term; do
	"$TP/dies" $how >/dev/null 2>&1; rc1=$?
	traced "$TMP/d_$how" "$TP/dies" $how >/dev/null 2>&1; rc2=$?
	eq "$how: same exit status" "$rc1" "$rc2"
	f=$(one_file "$TMP/d_$how.*")
	check "$how: trace validates" "$BIN/trace_dump" -c "$f"
	eq "$how: the 3 malloc(1006) are there" 3 "$(count "$f" malloc 1006)"
	# never trimmed, it keeps what was reserved: little while the trace is young (a traced
	# build runs a /bin/sh, which ends by _exit, per command; reserving 2-4 MiB at once would
	# leave that much in each)
	check "$how: the untrimmed file stays small ($(stat -c %s "$f") bytes)" test "$(stat -c %s "$f")" -le 65536
done
# _exit and _Exit finish the trace as exit() does (dash ends every process so, python's
# multiprocessing workers too); a vfork child's _exit leaves its parent's trace alone
for how in exit _exit _Exit; do
	eq "$how: trace finished" 1 "$(count "$(one_file "$TMP/d_$how.*")" finished)"
done
traced "$TMP/vf" "$TP/dies" vfork >/dev/null 2>&1
eq "vfork child's _exit: exit status" 0 "$?"
f=$(one_file "$TMP/vf.*")
eq "vfork child's _exit: the parent's calls after it are traced" 3 "$(count "$f" malloc 1008)"
eq "vfork child's _exit: the parent's trace is finished by the parent" 1 "$(count "$f" finished)"
if [ -x /bin/dash ]; then
	traced "$TMP/sh" /bin/dash -c "\"$TP/dies\" exit; \"$TP/dies\" _exit; true" >/dev/null 2>&1
	n=0; fin=0
	for f in "$TMP"/sh.*; do n=$((n + 1)); fin=$((fin + $(count "$f" finished))); done
	eq "dash and its children: every trace finished" "$n" "$fin"
fi
# a free the allocator aborts in (glibc detects this double free) is in the trace: its record
# is complete before the allocator is called, which is what someone chasing heap corruption needs
"$TP/dies" doublefree >/dev/null 2>&1; rc1=$?
traced "$TMP/d_df" "$TP/dies" doublefree >/dev/null 2>&1; rc2=$?
eq "double free: same exit status" "$rc1" "$rc2"
f=$(one_file "$TMP/d_df.*")
check "double free: trace validates" "$BIN/trace_dump" -c "$f"
eq "double free: both frees of the malloc(1007) recorded" 2 "$("$BIN/trace_dump" "$f" |
	awk '$4 == "malloc(1007)" { p = "free(" $6 ")"; n = 0 } p && $4 == p { n++ } END { print n + 0 }')"
# exec, so that $! is the traced program itself and not a subshell around it.  A sample every
# ms; the trace capped at 1 GiB (the spinner writes up to 1.5 GB a second: a kill held up on a
# loaded machine must not fill the disk)
( MTRACE_CTL_QUIET=1 MTRACE_CTL_MEMORY_MS=1 MTRACE_CTL_MAX_SIZE=1G MTRACE_CTL_FILE="$TMP/k" \
	LD_PRELOAD="$LIB" exec "$TP/dies" spin >"$TMP/out" ) &
pid=$!
# killed once its file passes 32 MB: at least 500,000 records (it is reserved at most twice
# ahead of them), made over 10 ms at the very least, so two samples and more
i=0; while [ "$(stat -c %s "$TMP"/k.* 2>/dev/null || echo 0)" -lt 32000000 ] && [ $i -lt 6000 ]; do sleep 0.05; i=$((i + 1)); done
kill -9 $pid; wait $pid 2>/dev/null
f=$(one_file "$TMP/k.*")
size1=$(stat -c %s "$f"); sleep 0.3; size2=$(stat -c %s "$f")
eq "SIGKILL: the traced program is gone (its trace no longer grows)" "$size1" "$size2"
check "SIGKILL: trace validates" "$BIN/trace_dump" -c "$f"
runs_agree "SIGKILL: read a run at a time, the same records (runs end at unwritten space)" "$f"
ge "SIGKILL: calls up to the kill are there" 10000 "$(count "$f" calls)"
eq "SIGKILL: header not marked finished" 0 "$(count "$f" finished)"
ge "SIGKILL: the memory samples up to the kill read too (one a ms of calls)" 2 "$(count "$f" samples)"
finish
