# Calls that cannot reach the tracer: a program with its own allocator linked in (Chromium), or
# an allocator preloaded before the tracer.  The program runs as without us; one warning names
# the functions and where they are defined; the header says so; mtracectl says so; a program
# whose calls do reach us gets no such warning, a non-PIE one taking their addresses included.
. tests/lib.sh
"$TP/own_malloc" >"$TMP/plain" 2>&1
MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/own" LD_PRELOAD=$LIB "$TP/own_malloc" >"$TMP/out" 2>"$TMP/err"
eq "exit status" 0 "$?"
# the same count of calls: the tracer's own lookups allocate nothing from the program's allocator
check "the program's allocator serves the same calls as untraced" cmp "$TMP/plain" "$TMP/out"
eq "one warning line" 1 "$(wc -l <"$TMP/err")"
grep -q "^mtracectl: warning: malloc, free, calloc, realloc, posix_memalign, aligned_alloc, memalign defined by .*/own_malloc, which comes before the tracer: those calls are not traced$" "$TMP/err" &&
	ok "the warning names the functions and the executable" || bad "warning: $(cat "$TMP/err")"
f=$(one_file "$TMP/own.*")
check "the trace validates" "$BIN/trace_dump" -c "$f"
eq "no call recorded" 0 "$(count "$f" calls)"
"$BIN/trace_dump" -H "$f" | grep -q '^# bypassed ' && ok "trace_dump's header says calls were bypassed" || bad "header flag"
"$BIN/trace2wl" "$TMP/own.wl" "$f" 2>"$TMP/err"
eq "trace2wl converts it" 0 "$?"
grep -q "^trace2wl: warning: $f: the program's own allocator (or one preloaded before the tracer) took some of its calls" "$TMP/err" &&
	ok "trace2wl warns that calls are missing" || bad "trace2wl: $(cat "$TMP/err")"
"$BIN/trace_stats" "$f" 2>&1 >/dev/null | grep -q "^trace_stats: warning: $f: the program's own allocator" &&
	ok "trace_stats warns too" || bad "trace_stats gave no warning"

"$BIN/mtracectl" -o "$TMP/w" -- "$TP/own_malloc" >/dev/null 2>"$TMP/err"
eq "mtracectl: exit status" 0 "$?"
grep -q "^mtracectl: pid [0-9]* (own_malloc): $TMP/w\.[0-9]*, 0 calls, [0-9,]* bytes (its own allocator comes before the tracer: those calls are not traced)$" "$TMP/err" &&
	ok "mtracectl's list says why the trace is empty" || bad "mtracectl: $(cat "$TMP/err")"

# a forwarding allocator preloaded first (libfwd.so defines malloc, free, calloc, realloc and
# the aligned family)
MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/fwd" LD_PRELOAD="$TP/libfwd.so $LIB" "$TP/bigalloc" 100 >/dev/null 2>"$TMP/err"
eq "preloaded before the tracer: exit status" 0 "$?"
grep -q "^mtracectl: warning: malloc, free, calloc, realloc.* defined by $TP/libfwd.so, which comes before the tracer" "$TMP/err" &&
	ok "the warning names the library preloaded first" || bad "warning: $(cat "$TMP/err")"
"$BIN/trace_dump" -H "$(one_file "$TMP/fwd.*")" | grep -q '^# bypassed ' && ok "and its header says so" || bad "header flag (fwd)"

# the other order traces the same allocator, without a word
MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/ok" LD_PRELOAD="$LIB $TP/libfwd.so" "$TP/bigalloc" 100 >/dev/null 2>"$TMP/err"
eq "tracer first: exit status" 0 "$?"
eq "tracer first: nothing on stderr" "" "$(cat "$TMP/err")"
f=$(one_file "$TMP/ok.*")
"$BIN/trace_dump" -H "$f" | grep -q '^# bypassed ' && bad "tracer first: header says bypassed" || ok "tracer first: no bypass in the header"
ge "tracer first: calls recorded" 100 "$(count "$f" calls)"
"$BIN/trace2wl" "$TMP/ok.wl" "$f" 2>&1 | grep -q warning && bad "trace2wl warned of a complete trace" || ok "trace2wl: no warning for a complete trace"

# a position-dependent program that takes the address of malloc and free: their PLT entries
# stand for them (undefined symbols with a value, as in gcc's cc1), and the calls do reach us
MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/np" LD_PRELOAD=$LIB "$TP/nopie_fnptr" >/dev/null 2>"$TMP/err"
eq "non-PIE, function addresses taken: exit status" 0 "$?"
eq "non-PIE, function addresses taken: no warning" "" "$(cat "$TMP/err")"
f=$(one_file "$TMP/np.*")
eq "non-PIE: its 100 mallocs recorded" 100 "$(count "$f" malloc 1000)"
eq "non-PIE: its 100 frees recorded" 100 "$(count "$f" free)"
finish
