# Every entry point and edge case returns the same value and errno traced as untraced, and the
# trace holds exactly the calls the program made (counted by marker sizes).
. tests/lib.sh
"$TP/entry_points" >"$TMP/plain.txt" 2>&1
traced "$TMP/ep" "$TP/entry_points" >"$TMP/traced.txt" 2>&1
check "traced output identical to untraced (return values, errno, usable sizes)" cmp "$TMP/plain.txt" "$TMP/traced.txt"
f=$(one_file "$TMP/ep.*")
check "one trace written" test -n "$f"
check "trace validates" "$BIN/trace_dump" -c "$f"
"$BIN/trace_dump" "$f" | grep -q 'malloc(200000) = 0x[0-9a-f]* usable [0-9]* \[.*mmap' && ok "glibc flag: a 200 kB block served by mmap" || bad "mmap flag"
"$BIN/trace_dump" "$f" | grep -q 'free(0x[0-9a-f]*) .*\[ptr-mmap' && ok "glibc flag: freeing an mmap'd block" || bad "ptr-mmap flag"
# failures the program saw: NULL results (except realloc(p,0)-style frees) and non-zero
# posix_memalign returns; the trace must flag exactly as many calls failed
expected=$(grep -v -e '^realloc(p,0)' -e '^reallocarray(p,0,5)' "$TMP/plain.txt" | grep -c -e ' NULL usable' -e 'ret=[1-9]')
eq "failed calls flagged in the trace = failures seen by the program" "$expected" "$(count "$f" failed)"

traced "$TMP/cnt" "$TP/entry_points" --count >/dev/null
f=$(one_file "$TMP/cnt.*")
eq "malloc(10001) x7" 7 "$(count "$f" malloc 10001)"
eq "calloc(10002,1) x5" 5 "$(count "$f" calloc 10002)"
eq "realloc(NULL,10003) x4" 4 "$(count "$f" realloc 10003)"
eq "memalign(64,10004) x3" 3 "$(count "$f" memalign 10004)"
eq "posix_memalign(128,10005) x3" 3 "$(count "$f" posix_memalign 10005)"
eq "aligned_alloc(256,10006) x2" 2 "$(count "$f" aligned_alloc 10006)"
eq "valloc(10007) x2" 2 "$(count "$f" valloc 10007)"
eq "pvalloc(10008) x1" 1 "$(count "$f" pvalloc 10008)"
eq "reallocarray(NULL,10009,3) x2" 2 "$(count "$f" reallocarray 10009)"
eq "no calls with marker sizes recorded twice" 29 "$(for s in 10001 10002 10003 10004 10005 10006 10007 10008 10009; do count "$f" calls $s; done | awk '{ t += $1 } END { print t }')"
"$BIN/trace_dump" "$f" | grep -q 'memalign(64, 10004) = 0x[0-9a-f]*[048c]0 usable' && ok "memalign alignment and size shown" || bad "memalign line in trace_dump"
# the tracer's own lines on stderr: where it writes and how many entries, when asked for
MTRACE_CTL_VERBOSE=1 MTRACE_CTL_FILE="$TMP/loud" LD_PRELOAD="$LIB" "$TP/entry_points" --count >/dev/null 2>"$TMP/loud.err"
f=$(one_file "$TMP/loud.[0-9]*")
eq "stderr: 'writing to FILE' first" "mtracectl: writing to $f" "$(head -n 1 "$TMP/loud.err")"
eq "stderr: 'N entries recorded' last, N the records in the file" "mtracectl: $(count "$f" calls) entries recorded" "$(tail -n 1 "$TMP/loud.err")"
eq "stderr: nothing else" 2 "$(wc -l <"$TMP/loud.err")"
MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/quiet" LD_PRELOAD="$LIB" "$TP/entry_points" --count >/dev/null 2>"$TMP/quiet.err"
eq "MTRACE_CTL_QUIET: nothing on stderr" "" "$(cat "$TMP/quiet.err")"
# unasked, the preload says nothing on a stderr that is not a terminal (a program whose stderr is
# read, and every child it starts): a test suite's subprocess must see its own output only
MTRACE_CTL_FILE="$TMP/plain" LD_PRELOAD="$LIB" sh -c "\"$TP/entry_points\" --count; \"$TP/entry_points\" --count" >/dev/null 2>"$TMP/plain.err"
eq "plain preload, stderr a file: nothing on it" "" "$(cat "$TMP/plain.err")"
ge "... and every process traced all the same" 3 "$(ls "$TMP"/plain.* | wc -l)"
# on a terminal it says where the trace goes
if command -v script >/dev/null 2>&1; then
	MTRACE_CTL_FILE="$TMP/tty" LD_PRELOAD="$LIB" script -qec "\"$TP/entry_points\" --count >/dev/null" /dev/null >"$TMP/tty.out" 2>&1
	grep -q "mtracectl: writing to $TMP/tty" "$TMP/tty.out" && ok "stderr a terminal: says where it writes" || bad "stderr a terminal: $(head -c 300 "$TMP/tty.out")"
else
	echo "# script(1) is not installed: the terminal case is left out"
fi
finish
