# A failed mmap of a trace window: the windows are sized to what an address-space limit
# (RLIMIT_AS) leaves, but under one so tight that not even the smallest (4 MiB, and 2 MiB to
# align it) fits, one warning, tracing stops, the program runs on with identical output and
# exit status.
. tests/lib.sh
"$TP/bigalloc" 20000 >"$TMP/plain"
( ulimit -v 8000; MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/as" LD_PRELOAD="$LIB" "$TP/bigalloc" 20000 >"$TMP/out" 2>"$TMP/err" )
eq "exit status 0" 0 "$?"
check "same output" cmp "$TMP/plain" "$TMP/out"
eq "exactly one warning line" 1 "$(grep -c 'mtracectl:' "$TMP/err")"
grep -q 'cannot map the trace file: Cannot allocate memory; tracing stopped' "$TMP/err" && ok "the warning says the mapping failed" || bad "warning text: $(cat "$TMP/err")"
f=$(one_file "$TMP/as.*")
check "the trace (header only) still validates" "$BIN/trace_dump" -c "$f"
"$BIN/trace_dump" -H "$f" | grep -q 'could not be mapped' && ok "the header says why it ends" || bad "header: $("$BIN/trace_dump" -H "$f" | grep status)"
finish
