# A file size limit, or a size cap asked for, lower than the trace: no SIGXFSZ, one warning, the
# program's output and exit status unchanged, and the trace written so far valid.
. tests/lib.sh
"$TP/bigalloc" 300000 >"$TMP/plain"
# stopped RC NAME WHAT: the run of bigalloc traced into $TMP/NAME.* ended with RC, and stopped
# tracing at 1 MiB because WHAT ("the file size limit (RLIMIT_FSIZE)", ...) was reached
stopped() {
	eq "$2: exit status 0 (no SIGXFSZ)" 0 "$1"
	check "$2: same output" cmp "$TMP/plain" "$TMP/traced"
	eq "$2: exactly one warning line, naming it" "1 1" "$(grep -c 'mtracectl:' "$TMP/err") $(grep -c -F "$3" "$TMP/err")"
	f=$(one_file "$TMP/$2.*")
	check "$2: trace validates" "$BIN/trace_dump" -c "$f"
	"$BIN/trace_dump" -c "$f" | grep -q -F "; tracing stopped early, as $3 was reached" && ok "$2: trace_dump -c says it stopped early" ||
		bad "$2: -c: $("$BIN/trace_dump" -c "$f")"
	size=$(stat -c %s "$f")
	check "$2: trace within 1 MiB ($size)" test "$size" -le 1048576
	ge "$2: calls before it are there" 5000 "$(count "$f" calls)"
	# the header says the records end early, and why (it said "not finished", as if killed)
	"$BIN/trace_dump" -H "$f" | grep -q -F "# status    stopped early, as $3 was reached: the records end there, the program went on; " &&
		ok "$2: the header says the trace stopped early, and why" || bad "$2 status: $("$BIN/trace_dump" -H "$f" | tail -n 1)"
	"$BIN/trace2wl" "$TMP/$2.wl" "$f" >/dev/null 2>"$TMP/err3"; eq "$2: trace2wl of it: exit 0" 0 "$?"
	grep -q -F "trace2wl: warning: $f: tracing stopped before the program did, so the calls after its last record are missing: $3" "$TMP/err3" &&
		ok "$2: trace2wl warns that the calls after it are missing" || bad "$2 trace2wl: $(cat "$TMP/err3")"
}
( ulimit -f 1024; MTRACE_CTL_FILE="$TMP/lim" LD_PRELOAD="$LIB" MTRACE_CTL_QUIET=1 "$TP/bigalloc" 300000 >"$TMP/traced" 2>"$TMP/err" )
stopped $? lim "the file size limit (RLIMIT_FSIZE)"

# --- a size cap asked for (MTRACE_CTL_MAX_SIZE, mtracectl --max-size): the same, below the limit
MTRACE_CTL_MAX_SIZE=1M MTRACE_CTL_FILE="$TMP/cap" LD_PRELOAD="$LIB" MTRACE_CTL_QUIET=1 "$TP/bigalloc" 300000 >"$TMP/traced" 2>"$TMP/err"
stopped $? cap "the size cap (MTRACE_CTL_MAX_SIZE)"
"$BIN/mtracectl" -S 2M -o "$TMP/cap2" -- "$TP/bigalloc" 300000 >/dev/null 2>"$TMP/err"; eq "mtracectl --max-size: exit 0" 0 "$?"
f=$(one_file "$TMP/cap2.*")
size=$(stat -c %s "$f")
check "mtracectl --max-size 2M: trace within it ($size <= 2097152)" test "$size" -le 2097152
ge "mtracectl --max-size 2M: more than with 1M" 20000 "$(count "$f" calls)"
grep -q "^mtracectl: pid [0-9]* (bigalloc): $f, [0-9,]* calls, [0-9,]* bytes (tracing stopped early: the size cap (MTRACE_CTL_MAX_SIZE) was reached)$" "$TMP/err" &&
	ok "mtracectl --max-size: the list says where tracing stopped" || bad "list: $(cat "$TMP/err")"
MTRACE_CTL_MAX_SIZE=10G MTRACE_CTL_FILE="$TMP/big" LD_PRELOAD="$LIB" MTRACE_CTL_QUIET=1 "$TP/bigalloc" 30000 >/dev/null 2>"$TMP/err"
eq "a cap not reached: no warning" 0 "$(wc -c <"$TMP/err")"
"$BIN/trace_dump" -H "$(one_file "$TMP/big.*")" | grep -q '^# status    finished' && ok "a cap not reached: finished as usual" || bad "cap not reached"
# a cap that is not a size: no trace rather than one without the cap asked for; the program goes on
MTRACE_CTL_MAX_SIZE=12x MTRACE_CTL_FILE="$TMP/bad" LD_PRELOAD="$LIB" "$TP/bigalloc" 300000 >"$TMP/traced" 2>"$TMP/err"
eq "bad cap: exit status 0" 0 "$?"
check "bad cap: same output" cmp "$TMP/plain" "$TMP/traced"
grep -q 'not tracing: MTRACE_CTL_MAX_SIZE is not a size' "$TMP/err" && ok "bad cap: one warning says why there is no trace" || bad "bad cap: $(cat "$TMP/err")"
check "bad cap: no trace" sh -c "! ls '$TMP'/bad.* >/dev/null 2>&1"
for v in 1X 1K 0 -5 ''; do
	"$BIN/mtracectl" -S "$v" -- true 2>"$TMP/err"; eq "mtracectl --max-size '$v': refused, a usage error (2)" 2 "$?"
done
grep -q -- "--max-size wants a size of 5K or more" "$TMP/err" && ok "mtracectl --max-size: says what it wants" || bad "max-size msg: $(cat "$TMP/err")"
# a limit too small for even the header: no trace, one warning, nothing else changes
( ulimit -f 4; MTRACE_CTL_FILE="$TMP/tiny" LD_PRELOAD="$LIB" "$TP/bigalloc" 1000 >"$TMP/traced2" 2>"$TMP/err2" )
eq "tiny limit: exit status 0" 0 "$?"
eq "tiny limit: one warning" 1 "$(grep -c 'mtracectl:' "$TMP/err2")"
finish
