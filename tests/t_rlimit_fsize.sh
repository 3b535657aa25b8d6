# A file size limit lower than the trace: no SIGXFSZ, one warning, the program's output and exit
# status unchanged, and the trace written so far valid.
. tests/lib.sh
"$TP/bigalloc" 300000 >"$TMP/plain"
( ulimit -f 1024; MTRACE_CTL_FILE="$TMP/lim" LD_PRELOAD="$LIB" MTRACE_CTL_QUIET=1 "$TP/bigalloc" 300000 >"$TMP/traced" 2>"$TMP/err" )
rc=$?
eq "exit status 0 (no SIGXFSZ)" 0 "$rc"
check "same output" cmp "$TMP/plain" "$TMP/traced"
eq "exactly one warning line" 1 "$(grep -c 'mtrace-ctl:' "$TMP/err")"
grep -q 'file size limit' "$TMP/err" && ok "the warning names the file size limit" || bad "warning text: $(cat "$TMP/err")"
f=$(one_file "$TMP/lim.*")
check "trace validates" "$BIN/trace_dump" -c "$f"
size=$(stat -c %s "$f")
check "trace within the limit ($size <= 1048576)" test "$size" -le 1048576
ge "calls before the limit are there" 5000 "$(count "$f" calls)"
# a limit too small for even the header: no trace, one warning, nothing else changes
( ulimit -f 4; MTRACE_CTL_FILE="$TMP/tiny" LD_PRELOAD="$LIB" "$TP/bigalloc" 1000 >"$TMP/traced2" 2>"$TMP/err2" )
eq "tiny limit: exit status 0" 0 "$?"
eq "tiny limit: one warning" 1 "$(grep -c 'mtrace-ctl:' "$TMP/err2")"
finish
