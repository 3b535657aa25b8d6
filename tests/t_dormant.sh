# A dormant tracer (mtracectl --dormant, MTRACE_CTL_START=0): no file, no thread until it is
# switched on from outside (mtracectl --start/--stop/--status/--for PID); each window records
# exactly the calls made in it, in a file of its own whose header says it starts midway; only
# whoever may inspect the process may switch it; children stay dormant and are switched on
# their own.
. tests/lib.sh
W=$TP/windows
M=$BIN/mtracectl
# switch WHAT PID: mtracectl --WHAT PID, its output in $TMP/sw.out
sw() { "$M" --"$1" -o "$TMP/win" --wait=60 "$2" >"$TMP/sw.out" 2>&1; }

# a program never switched on leaves no file, starts no thread
MTRACE_CTL_START=0 MTRACE_CTL_FILE="$TMP/never" LD_PRELOAD="$LIB" "$TP/popcheck" 400000 >"$TMP/out"
eq "dormant, never switched on: no thread" "threads 0" "$(sed -n 1p "$TMP/out")"
eq "dormant, never switched on: no file" 0 "$(ls "$TMP"/never.* 2>/dev/null | wc -l)"

"$M" --dormant -q -o "$TMP/win" -- "$W" fork >"$TMP/w.out" 2>"$TMP/w.err" &
wpid=$!
i=0; while ! grep -q '^pid ' "$TMP/w.out" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
pid=$(sed -n 's/^pid //p' "$TMP/w.out")
child=$(sed -n 's/^child //p' "$TMP/w.out")
check "the program runs dormant (pid $pid)" test -n "$pid"
sw status "$pid"; eq "--status: dormant" "mtracectl: process $pid: dormant" "$(cat "$TMP/sw.out")"
eq "dormant: no file yet" 0 "$(ls "$TMP"/win.* 2>/dev/null | wc -l)"
sw start "$pid"; eq "--start: exit 0" 0 "$?"
w1=$(sed -n 's/^mtracectl: process [0-9]*: recording to \([^,]*\),.*/\1/p' "$TMP/sw.out")
eq "--start: says where it records" "$TMP/win.$pid.w0001" "$w1"
sw start "$pid"; eq "--start again: refused (exit 1)" 1 "$?"
grep -q 'is recording already' "$TMP/sw.out" && ok "--start again: says it is recording already" || bad "start again: $(cat "$TMP/sw.out")"
sw status "$pid"; grep -q "recording to $w1" "$TMP/sw.out" && ok "--status: recording, to which file" || bad "status: $(cat "$TMP/sw.out")"
sw stop "$pid"; eq "--stop: exit 0" 0 "$?"
grep -q "trace finished: $w1" "$TMP/sw.out" && ok "--stop: names the finished trace" || bad "stop: $(cat "$TMP/sw.out")"
sw stop "$pid"; eq "--stop again: refused (exit 1)" 1 "$?"
sw start "$pid"
w2=$(sed -n 's/^mtracectl: process [0-9]*: recording to \([^,]*\),.*/\1/p' "$TMP/sw.out")
eq "a second window: its own file, sorting after the first" "$TMP/win.$pid.w0002" "$w2"
sw stop "$pid"
wait $wpid; eq "the program ends well" 0 "$?"
eq "the program saw every switch" done "$(grep -x done "$TMP/w.out")"
for f in "$w1" "$w2"; do check "$(basename "$f") validates" "$BIN/trace_dump" -c "$f"; done
eq "window 1: its 1,000 malloc(1002)" 1000 "$(count "$w1" malloc 1002)"
eq "window 1: none from before it" 0 "$(count "$w1" malloc 1001)"
eq "window 1: none from after it" 0 "$(( $(count "$w1" malloc 1003) + $(count "$w1" malloc 1004) ))"
eq "window 2: its 1,000 malloc(1004)" 1000 "$(count "$w2" malloc 1004)"
eq "window 2: none from outside it" 0 "$(( $(count "$w2" malloc 1002) + $(count "$w2" malloc 1003) ))"
"$BIN/trace_dump" -H "$w1" | grep -q 'midway' && ok "the header says the trace starts midway" || bad "midway: $("$BIN/trace_dump" -H "$w1" | head -n 20)"
eq "fork and exec: the children stayed dormant (no file of theirs)" 2 "$(ls "$TMP"/win.* | wc -l)"
# the window freed 100 blocks it never saw allocated: counted as such, and the replay runs
"$BIN/trace2wl" "$TMP/w1.wl" "$w1" 2>"$TMP/w1.sum"
grep -q 'skipped: 100 frees' "$TMP/w1.sum" && ok "trace2wl: the 100 frees of blocks from before the window, said" ||
	bad "trace2wl summary: $(cat "$TMP/w1.sum")"
"$BIN/trace_stats" "$w1" | grep -q 'free_of_unknown_block *100$' && ok "trace_stats: the same 100 frees" ||
	bad "trace_stats: $("$BIN/trace_stats" "$w1" | grep unknown)"
"$BIN/trace_run" "$TMP/w1.wl" >/dev/null 2>&1; eq "the window's workload replays" 0 "$?"

# --for: start, wait, stop, print the trace's name; a child switched on its own
"$M" --dormant -q -o "$TMP/fc" -- "$W" fork >"$TMP/f.out" 2>&1 &
fpid=$!
i=0; while ! grep -q '^child ' "$TMP/f.out" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
child=$(sed -n 's/^child //p' "$TMP/f.out")
"$M" --for=300ms -o "$TMP/cw" --wait=60 "$child" >"$TMP/for.out" 2>&1
eq "--for on a fork child: exit 0" 0 "$?"
cf=$(cat "$TMP/for.out")
check "--for: prints the trace's name ($cf)" test "$cf" = "$TMP/cw.$child.w0001"
ge "--for: the child's calls in its window" 10 "$(count "$cf" malloc 1)"
fp=$(sed -n 's/^pid //p' "$TMP/f.out")
sw start "$fp"; sw stop "$fp"; sw start "$fp"; sw stop "$fp"
wait $fpid

# a request only its addressee carries out: fork children made while it was pending (copies of
# the control block with the request in it) stay dormant
"$M" --dormant -q -- timeout -k 5 120 "$W" --forks >"$TMP/fk.out" 2>&1 &
kpid=$!
i=0; while ! grep -q '^pid ' "$TMP/fk.out" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
fp=$(sed -n 's/^pid //p' "$TMP/fk.out")
"$M" --start -o "$TMP/fk" --wait=60 "$fp" >"$TMP/sw.out" 2>&1
eq "a program that forks all the time: --start exit 0" 0 "$?"
wait $kpid
eq "... it saw itself switched on" recording "$(grep -x recording "$TMP/fk.out")"
files=$(cd "$TMP" && ls fk.[0-9]* | head -n 3 | tr '\n' ' ' | sed 's/ $//')
eq "... its own trace, and none of a child's" "fk.$fp.w0001" "$files"

# --for cut short by a signal that ends mtracectl: the recording is stopped first, the trace's
# name printed, then mtracectl ends of the signal (a shell sees 128+N)
MTRACE_CTL_START=0 MTRACE_CTL_FILE="$TMP/cut" LD_PRELOAD="$LIB" "$W" --idle >"$TMP/i.out" &
ipid=$!
i=0; while ! grep -q '^idle ' "$TMP/i.out" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
for s in TERM:15 HUP:1; do
	sig=${s%:*} n=${s#*:}
	if ignored_here "$n"; then
		echo "# SIG$sig is ignored in this shell (nohup), so in mtracectl: not tried"
		continue
	fi
	"$M" --for=10m --wait=60 "$ipid" >"$TMP/for.out" 2>"$TMP/for.err" &
	f=$!
	i=0
	until "$M" --status "$ipid" 2>/dev/null | grep -q 'recording to' || [ $i -ge 600 ]; do
		sleep 0.1; i=$((i + 1))
	done
	kill -"$sig" $f
	wait $f
	eq "--for=10m cut short by SIG$sig: mtracectl ends of it" $((128 + n)) "$?"
	cf=$(cat "$TMP/for.out")
	case "$cf" in "$TMP/cut.$ipid.w"*) ok "... after printing the trace's name ($cf)" ;; *) bad "... printed '$cf' ($(cat "$TMP/for.err"))" ;; esac
	sw status "$ipid"
	eq "... and the process records no more" "mtracectl: process $ipid: dormant; its last trace" \
		"$(sed -n 's/^\(mtracectl: process [0-9]*: dormant; its last trace\) .*/\1/p' "$TMP/sw.out")"
	check "... its trace finished and valid" "$BIN/trace_dump" -c "$cf"
done
kill $ipid; wait $ipid 2>/dev/null

# --for on a process that makes no allocator call: the start is withdrawn, so that the call it
# makes later does not start a recording no one stops
rm -f "$TMP/pid"
MTRACE_CTL_START=0 MTRACE_CTL_FILE="$TMP/nc" LD_PRELOAD="$LIB" "$TP/sigwait" "$TMP/pid" catch >"$TMP/nc.out" &
npid=$!
i=0; while [ ! -s "$TMP/pid" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
"$M" --for=1s --wait=1 "$npid" >"$TMP/for.out" 2>"$TMP/for.err"
eq "--for, no allocator call: exit 3" 3 "$?"
grep -q 'made no allocator call in 1000 ms: the start is withdrawn' "$TMP/for.err" && ok "... says the start is withdrawn" || bad "... $(cat "$TMP/for.err")"
kill -USR1 $npid   # (its printf allocates: the tracer looks at the request then)
wait $npid
eq "... the process's later calls: nothing recorded" 0 "$(ls "$TMP"/nc.* 2>/dev/null | grep -vc 'nc.out$')"
# --for's DURATION: digits, a fraction, a unit; nothing strtod alone would take
for d in nan inf -1 1e3 0x10 ' 5' 5. .5 721h 10x ''; do
	"$M" --for="$d" 1 >/dev/null 2>"$TMP/e"; rc=$?
	if [ $rc -eq 2 ] && grep -q "^mtracectl: --for wants a duration of up to 30 days" "$TMP/e"; then
		ok "--for='$d': refused (exit 2)"
	else
		bad "--for='$d': exit $rc, $(cat "$TMP/e")"
	fi
done

# errors: no such process, a process without the tracer, one we may not inspect
"$M" --status 4194000 >"$TMP/e" 2>&1; eq "no such process: exit 125" 125 "$?"
grep -q 'no process 4194000' "$TMP/e" && ok "... says so" || bad "... $(cat "$TMP/e")"
sleep 30 & spid=$!
"$M" --start "$spid" >"$TMP/e" 2>&1; eq "a process without the tracer: exit 125" 125 "$?"
grep -q 'has no tracer loaded' "$TMP/e" && ok "... says so, and how to start one" || bad "... $(cat "$TMP/e")"
kill $spid
# mtracectl's own pid (pgrep -f PROGRAM finds it too): the program it runs is named instead
"$M" -q --dormant -o "$TMP/own" -- sleep 30 & cpid=$!
i=0; while ! kid=$(cat "/proc/$cpid/task/$cpid/children" 2>/dev/null) || [ -z "$kid" ]; do
	[ $i -lt 100 ] || break; sleep 0.1; i=$((i + 1)); done
kid=$(echo $kid)
"$M" --start "$cpid" >"$TMP/e" 2>&1; eq "mtracectl's own pid: exit 125" 125 "$?"
if [ -n "$kid" ]; then
	want="the program it runs is process $kid"
else   # (a kernel without /proc/PID/task/TID/children)
	want="name the program it runs"; kid=$(pgrep -P "$cpid")
fi
eq "... the program it runs named" "mtracectl: process $cpid is mtracectl itself: $want" \
	"$(cat "$TMP/e")"
kill $kid; wait $cpid 2>/dev/null
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	MTRACE_CTL_START=0 MTRACE_CTL_FILE="$TMP/root" LD_PRELOAD="$LIB" "$W" --idle >"$TMP/r.out" &
	rpid=$!
	i=0; while ! grep -q '^idle ' "$TMP/r.out" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	setpriv --reuid=65534 --regid=65534 --clear-groups "$M" --start "$(sed -n 's/^idle //p' "$TMP/r.out")" >"$TMP/e" 2>&1
	eq "a user who may not inspect the process: refused (exit 125)" 125 "$?"
	grep -q 'you may not inspect it' "$TMP/e" && ok "... with a clear message" || bad "... $(cat "$TMP/e")"
	eq "... and nothing was switched on" 0 "$(ls "$TMP"/root.* 2>/dev/null | wc -l)"
	kill $rpid
else
	echo "# not root or no setpriv: the refused switch is left out"
fi
"$M" --start >/dev/null 2>&1; eq "--start without a pid: exit 2" 2 "$?"
"$M" --start --stop 1 >/dev/null 2>&1; eq "--start --stop: exit 2" 2 "$?"
finish
