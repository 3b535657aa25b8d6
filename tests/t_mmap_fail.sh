# A failed mmap of the trace window (address space limited below a window's 258 MiB): one
# warning, tracing stops, the program runs on with identical output and exit status.
. tests/lib.sh
"$TP/bigalloc" 20000 >"$TMP/plain"
( ulimit -v 200000; MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/as" LD_PRELOAD="$LIB" "$TP/bigalloc" 20000 >"$TMP/out" 2>"$TMP/err" )
eq "exit status 0" 0 "$?"
check "same output" cmp "$TMP/plain" "$TMP/out"
eq "exactly one warning line" 1 "$(grep -c 'mtrace-ctl:' "$TMP/err")"
grep -q 'cannot map the trace file: Cannot allocate memory; tracing stopped' "$TMP/err" && ok "the warning says the mapping failed" || bad "warning text: $(cat "$TMP/err")"
f=$(one_file "$TMP/as.*")
check "the trace (header only) still validates" "$BIN/trace_dump" -c "$f"
finish
