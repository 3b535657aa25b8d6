# mtracectl --status PID never trusts the process (it often runs as root against it): a control
# block that breaks the protocol is refused, a trace's name is shown escaped, and the library
# it maps is read with every size checked against the file and the work bounded.  Each process
# here lies in one way (tests/prog/ctlhostile.c).  In tests/sanitize.list: under ASan, a read
# past a field is a finding.
. tests/lib.sh
M=$BIN/mtracectl
# start COMMAND...: COMMAND PIDFILE in the background, its pid in $hp once ready
start() {
	rm -f "$TMP/pid"
	timeout -k 5 150 "$@" "$TMP/pid" &
	i=0
	while [ ! -s "$TMP/pid" ] && kill -0 $! 2>/dev/null && [ $i -lt 600 ]; do
		sleep 0.1; i=$((i + 1))
	done
	hp=$(cat "$TMP/pid" 2>/dev/null)
}
# status: mtracectl --status $hp (a generous limit: an unbounded one runs for hours), its exit
# status in $rc, its output in $TMP/out and $TMP/err
status() {
	timeout -k 5 120 "$M" --status "$hp" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	kill -KILL "$hp" 2>/dev/null
	wait
}

# the control block
start env MTRACE_CTL_START=0 LD_PRELOAD="$LIB" "$TP/ctlhostile" block nonul
status
eq "a trace's name with no NUL in its field: refused (exit 125)" 125 "$rc"
grep -q "its tracer's control block holds a trace's name with no end" "$TMP/err" && ok "... saying why" || bad "... $(head -c 300 "$TMP/err")"
eq "... nothing on standard output" 0 "$(wc -c <"$TMP/out")"
start env MTRACE_CTL_START=0 LD_PRELOAD="$LIB" "$TP/ctlhostile" block state
status
eq "an unknown state: refused (exit 125)" 125 "$rc"
grep -q "holds an unknown state" "$TMP/err" && ok "... saying why" || bad "... $(cat "$TMP/err")"
start env MTRACE_CTL_START=0 LD_PRELOAD="$LIB" "$TP/ctlhostile" block escape
status
eq "a name with escapes and a line break: exit 0" 0 "$rc"
eq "... one line" 1 "$(wc -l <"$TMP/out")"
eq "... every control character escaped" 'mtracectl: process '"$hp"': dormant; its last trace /tmp/x\033]0;owned\007\033[2J\012mtracectl: process 1: dormant' "$(cat "$TMP/out")"

# the library: a crafted file named libmtrace.so.0 mapped from its first byte
for kind in sections symbols beyond; do
	mkdir -p "$TMP/$kind"
	start "$TP/ctlhostile" elf "$kind" "$TMP/$kind"
	status
	eq "$kind: refused within the limit (exit 125)" 125 "$rc"
	case $kind in
	sections) why='4,096 section headers (refused past 1,024)' ;;
	symbols) why='more than 65,536 dynamic symbols' ;;
	beyond) why='the dynamic symbol table lies past the end of the file (4,194,304 bytes)' ;;
	esac
	grep -qF "process $hp: $TMP/$kind/libmtrace.so.0: $why" "$TMP/err" && ok "$kind: names the file and what is wrong" ||
		bad "$kind: $(cat "$TMP/err")"
done
finish
