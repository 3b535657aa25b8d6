# trace_import: a real glibc mtrace() log of a test program gives the same calls as our own
# capture of that program (both taken in the same run); bad logs are refused by line.
. tests/lib.sh
I="$BIN/trace_import"
dbg=$(ls /usr/lib/*/libc_malloc_debug.so.0 /lib/*/libc_malloc_debug.so.0 2>/dev/null | head -n 1)
if [ -n "$dbg" ]; then
	# our preload in front of glibc's debug malloc: one run, both records of the same calls
	MALLOC_TRACE="$TMP/mtrace.log" MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/ours" \
		LD_PRELOAD="$LIB $dbg" "$TP/mtrace_prog" >"$TMP/out"
	eq "the program ran" "15 calls" "$(cat "$TMP/out")"
	grep -q '^= Start' "$TMP/mtrace.log" && ok "glibc wrote an mtrace() log" || bad "no log: $(head -n 3 "$TMP/mtrace.log")"
	"$I" --pid=4242 --exe="$TP/mtrace_prog" "$TMP/mtrace.log" "$TMP/imported"; eq "import: exit 0" 0 "$?"
	"$BIN/trace_dump" -c "$TMP/imported" >/dev/null; eq "the imported trace validates" 0 "$?"
	"$I" --pid=4242 --exe="$TP/mtrace_prog" -o "$TMP/imported-o" "$TMP/mtrace.log"
	"$BIN/trace_dump" "$TMP/imported" | grep -v '^# file\|^# started' >"$TMP/d1"
	"$BIN/trace_dump" "$TMP/imported-o" | grep -v '^# file\|^# started' >"$TMP/d2"
	check "-o OUTFILE LOG: the same trace as LOG OUTFILE (but the time it was made)" cmp "$TMP/d1" "$TMP/d2"
	eq "imported: the region's 15 calls" 15 "$(count "$TMP/imported" calls)"
	ours=$(one_file "$TMP/ours.*")
	eq "malloc(3001): 5 in the log, as in our capture" "$(count "$ours" malloc 3001)" "$(count "$TMP/imported" malloc 3001)"
	eq "realloc to 3002: as in our capture" "$(count "$ours" realloc 3002)" "$(count "$TMP/imported" realloc 3002)"
	eq "calloc(3003, 1), logged by glibc as '+': as our calloc" "$(count "$ours" calloc 3003)" "$(count "$TMP/imported" malloc 3003)"
	eq "imported: 6 frees" 6 "$(count "$TMP/imported" free)"
	eq "imported: pid recorded" 4242 "$(count "$TMP/imported" pid)"
	"$BIN/trace2wl" -q "$TMP/imported.wl" "$TMP/imported"; eq "the imported trace converts" 0 "$?"
	"$BIN/trace_run" --csv "$TMP/imported.wl" >/dev/null; eq "... and replays" 0 "$?"
else
	echo "# libc_malloc_debug.so not found: the real-log case is not run"
fi
# a log written by hand, every kind of line
cat >"$TMP/hand.log" <<'LOG'
= Start
@ ./prog:[0x4005d6] + 0x1b6e260 0x64
@ ./prog:[0x4005e6] + 0x1b6e2d0 0xc8
@ /lib/libc.so.6:(clearenv+0x5d)[0x7f00aa] < 0x1b6e260
@ /lib/libc.so.6:(clearenv+0x5d)[0x7f00aa] > 0x1b6e400 0x190
- 0x1b6e2d0
+ (nil) 0xffffffffffff
@ [0x4005f0] ! 0x1b6e400 0xfffffffffff0
- 0x1b6e400

= End
LOG
"$I" "$TMP/hand.log" "$TMP/hand"; eq "hand-written log: exit 0" 0 "$?"
eq "hand: 2 malloc + 1 failed malloc" 3 "$(count "$TMP/hand" malloc)"
eq "hand: 2 realloc (one failed)" 2 "$(count "$TMP/hand" realloc)"
eq "hand: 2 free" 2 "$(count "$TMP/hand" free)"
eq "hand: 2 failed calls" 2 "$(count "$TMP/hand" failed)"
"$BIN/trace_dump" "$TMP/hand" | grep -q 'realloc(0x1b6e260, 400) = 0x1b6e400' && ok "hand: the '<'/'>' pair is one realloc" || bad "realloc pair"
# a long log: -p shows how far it is read (stderr is no terminal here: nothing without -p)
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "+ 0x%x 0x10\n- 0x%x\n", 4096 + 16 * i, 4096 + 16 * i }' >"$TMP/long.log"
"$I" -p "$TMP/long.log" "$TMP/long" 2>"$TMP/err"; eq "long log, -p: exit 0" 0 "$?"
eq "long log: every call" 200000 "$(count "$TMP/long" calls)"
tr '\r' '\n' <"$TMP/err" | grep -q "^trace_import: $TMP/long.log: [0-9]*% ([0-9,]* MiB of [0-9,]* MiB)" &&
	ok "-p: progress" || bad "-p: $(cat -A "$TMP/err" | head -c 300)"
"$I" "$TMP/long.log" "$TMP/long2" 2>"$TMP/err"; eq "no -p: nothing on stderr" 0 "$(wc -c <"$TMP/err")"
bad_log() { # DESCRIPTION CONTENT PATTERN
	printf '%b' "$2" >"$TMP/bad.log"
	"$I" "$TMP/bad.log" "$TMP/bad.out" 2>"$TMP/err"; rc=$?
	if [ $rc -eq 1 ] && grep -q -- "$3" "$TMP/err" && ! [ -e "$TMP/bad.out" ] && ! ls "$TMP"/bad.out.tmp* >/dev/null 2>&1; then
		ok "$1: $(cat "$TMP/err")"
	else
		bad "$1: exit $rc: $(cat "$TMP/err")"
	fi
}
bad_log "not a log" 'hello world\n' "line 1: not an mtrace() log line"
bad_log "bad pointer" '+ zzz 0x10\n' "line 1: '+' wants a pointer and a size"
bad_log "'>' alone" '> 0x10 0x20\n' "line 1: '>' without the '<' before it"
bad_log "'<' then something else" '< 0x10\n- 0x10\n' "line 2: a realloc's '<' line is not followed"
bad_log "log ends inside a realloc" '+ 0x10 0x8\n< 0x10\n' "ends inside a realloc"
bad_log "a line too long (64 KiB and more)" "+ 0x10 0x8\n$(head -c 70000 /dev/zero | tr '\0' x)\n- 0x10\n" \
	"line 2 (from byte 11 on): longer than 65536 bytes"
# a line that never ends (/dev/zero) is refused at its first 64 KiB: memory stays small (here
# under an address-space limit of 300 MB, not under ASan, which reserves terabytes), and
# nothing is left behind
mkdir "$TMP/zero"
if [ "${SANITIZE:-}" = 1 ]; then "$I" /dev/zero "$TMP/zero/out"; else ( ulimit -v 300000; "$I" /dev/zero "$TMP/zero/out" ); fi 2>"$TMP/err"
eq "/dev/zero: exit 1" 1 "$?"
grep -q '^trace_import: /dev/zero: line 1 (from byte 0 on): longer than 65536 bytes.*not such a log$' "$TMP/err" &&
	ok "/dev/zero: refused, naming the line" || bad "/dev/zero: $(cat "$TMP/err")"
eq "/dev/zero: nothing left behind" "" "$(ls -A "$TMP/zero")"
"$I" "$TMP/nonexistent" "$TMP/x" 2>/dev/null; eq "missing log: exit 1" 1 "$?"
"$I" "$TMP/hand.log" 2>/dev/null; eq "no output named: exit 2" 2 "$?"
"$I" --help | grep -q '^Usage: trace_import' && ok "--help" || bad "--help"
"$I" --version | grep -q '^trace_import (mtrace) ' && ok "--version" || bad "--version"
finish
