# A trace followed while its program writes it: trace2wl --follow converts what is final as it
# comes (a thread idle with its chunk open holds it back, and never makes it stop early) and
# ends when the program does, with the workload trace2wl makes of the finished file (byte for
# byte on a clock of exact rate; on the TSC, whose rate the writer refines as it stops, the
# same calls, waits and slots); trace_stats --follow shows the first phase's calls while the
# program waits, and says when the writer is done; its rates are over the program's time.
. tests/lib.sh
mkfifo "$TMP/in" || skip "no mkfifo here"
pids=
trap 'for p in $pids; do kill -9 -- -$p $p 2>/dev/null; done' EXIT
# follow NAME [ENV...]: the program traced with ENV, followed by trace2wl and trace_stats
follow() {
	name=$1; shift
	rm -f "$TMP/out"
	setsid env "$@" sh -c 'exec env MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$1" LD_PRELOAD="$2" \
		"$3" <"$4" >"$5"' sh "$TMP/$name" "$LIB" "$TP/follow_prog" "$TMP/in" "$TMP/out" &
	prog=$!
	pids="$pids $prog"
	exec 3>"$TMP/in"
	# (waiting for the program's first phase: a bounded count of naps, not a time it takes)
	n=0
	while [ "$(cat "$TMP/out" 2>/dev/null)" != paused ] && [ $n -lt 1200 ]; do
		sleep 0.1; n=$((n + 1)); done
	eq "$name: the program paused after its first phase" paused "$(cat "$TMP/out")"
	f=$(one_file "$TMP/$name.[0-9]*")
	setsid timeout -k 5 300 "$BIN/trace2wl" -q --follow -o "$TMP/$name.wl.followed" "$f" &
	conv=$!
	setsid timeout -k 5 300 "$BIN/trace_stats" --follow --interval=100 "$f" >"$TMP/$name.view" &
	view=$!
	pids="$pids $conv $view"
	n=0
	while ! grep -q '^calls' "$TMP/$name.view" 2>/dev/null && [ $n -lt 1200 ]; do
		sleep 0.1; n=$((n + 1)); done
	sleep 1
	check "$name: trace2wl --follow still waits while the program lives" kill -0 $conv
	check "$name: trace_stats --follow still follows while the program lives" kill -0 $view
	# the first phase: 60,000 churn steps, each a free and a malloc or realloc
	calls=$(awk '$1 == "calls" { gsub(",", "", $2); n = $2 } END { print n + 0 }' \
		"$TMP/$name.view")
	ge "$name: trace_stats --follow counted the first phase while the program waited" \
		100000 "$calls"
	echo go >&3
	exec 3>&-
	wait $prog
	eq "$name: the program ended well" 0 "$?"
	wait $conv
	eq "$name: trace2wl --follow ended with the program" 0 "$?"
	wait $view
	eq "$name: trace_stats --follow ended with the program" 0 "$?"
	check "$name: trace_stats --follow's last view says the writer is done" \
		grep -q 'writer done' "$TMP/$name.view"
	"$BIN/trace2wl" -q -o "$TMP/$name.wl.after" "$f"
	"$TP/wl_check" "$TMP/$name.wl.followed" >"$TMP/$name.check.followed"
	"$TP/wl_check" "$TMP/$name.wl.after" >"$TMP/$name.check.after"
	check "$name: the followed workload has the finished trace's calls, waits and slots" \
		cmp "$TMP/$name.check.followed" "$TMP/$name.check.after"
}
follow exact MTRACE_CTL_CLOCK=clock_gettime
check "exact: the followed workload is the finished trace's, byte for byte" \
	cmp "$TMP/exact.wl.followed" "$TMP/exact.wl.after"
follow default
# a trace nobody writes any more is read to its end at once
timeout -k 5 120 "$BIN/trace2wl" -q --follow -o "$TMP/wl.copy" "$f"
eq "trace2wl --follow of a finished trace" 0 "$?"
check "the same workload" cmp "$TMP/wl.copy" "$TMP/default.wl.after"
# a finished trace in one view: its rates over the program's time (the span it shows: more
# than the second the program paused), not over the moment it took to read it
timeout -k 5 120 "$BIN/trace_stats" --follow "$f" >"$TMP/done.view"
span=$(sed -n 's/.*  \([0-9.]*\) s traced.*/\1/p' "$TMP/done.view")
over=$(sed -n 's/^calls .* over the last \([0-9.]*\) s:.*/\1/p' "$TMP/done.view")
check "trace_stats --follow of a finished trace: calls a second over its span ($over s, $span s)" \
	test -n "$span" -a "$over" = "$span"
# with call stacks (the records hold their stacks' ids): the sites named by their functions
MTRACE_CTL_STACKS=64 traced "$TMP/stk" "$TP/stacks" >/dev/null
timeout -k 5 120 "$BIN/trace_stats" --follow --interval=100 "$(one_file "$TMP/stk.*")" >"$TMP/stk.view"
check "trace_stats --follow with stacks: nest3's 6666 bytes named" \
	grep -q '^sites *6.51 KiB  nest3' "$TMP/stk.view"
"$BIN/trace2wl" --follow -o "$TMP/x" - </dev/null 2>/dev/null
eq "--follow of standard input is refused" 2 "$?"
finish
