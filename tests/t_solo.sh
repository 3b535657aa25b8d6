# One thread, then two.  While one thread makes calls the tracer reads the clock once in a
# number of order points (and whenever the coarse clock moved), stamping the count in between;
# from a second thread's first call on it reads the clock at every order point.  On each clock
# the machine has: the lone thread's stamps mostly follow each other by 1, the two threads'
# never do; the order stays causal (blocks pass between the threads); the program's naps (it is
# idle between two calls) stay in the trace: each napping block lives the nap, trace2wl marks
# each idle time, and trace_run --pace waits them all.  MTRACE_CTL_CLOCK_EVERY=1 reads the
# clock at every order point, and so does a trace with durations.
. tests/lib.sh
TUN="glibc.malloc.tcache_count=0:glibc.malloc.arena_max=1"
CALLS=20000 NAPS=5 NAP_MS=30
GLIBC_TUNABLES=$TUN timeout -k 5 120 "$TP/solo" $CALLS $NAPS $NAP_MS >"$TMP/plain.out"
eq "untraced: exit status" 0 "$?"
wl() { "$TP/wl_check" "$1" | awk -v k="$2" '$1 == k { print $2 }'; }
flags=$(sed -n 's/^flags[[:space:]]*: / /p' /proc/cpuinfo 2>/dev/null | head -n 1)
has() { case "$flags " in *" $1 "*) return 0 ;; esac; return 1; }
# stats TRACE: "alone_ones multi_ones long_lived" from the records in their global order
stats() {
	tps=$("$BIN/trace_dump" -H "$1" | sed -n 's/^# clock.*, \([0-9,]*\) ticks\/s.*/\1/p' | tr -d ,)
	"$BIN/trace_dump" --sorted --ticks "$1" | awk -v tps="$tps" -v nap=$NAP_MS '
		/^#/ { next }
		{ ts = $1; tid = $2 }
		main == "" { main = tid }
		tid != main { multi = 1 }
		tid == main { if (have && ts - last == 1) { if (multi) mo++; else ao++ }
			      last = ts; have = 1 }
		$3 == "malloc(1000)" { born[$5] = ts }
		$3 ~ /^free\(/ { a = substr($3, 6, length($3) - 6)
			if (a in born) { if (ts - born[a] >= nap * tps / 1000) long++; delete born[a] } }
		END { printf "%d %d %d\n", ao, mo, long }'
}
# few NAME COUNT: no more than a few stamps 1 tick after the last (what a clock read at every
# order point gives now and then, not the thousands of the count)
few() { [ "${2:-x}" -le 5 ] 2>/dev/null && ok "$1 ($2 <= 5)" || bad "$1: expected at most 5, got '$2'"; }
# run NAME [env...]: traced, ordered, and the three figures of stats in $alone $multi $long
run() {
	name=$1; shift
	timeout -k 5 120 env GLIBC_TUNABLES=$TUN "$@" MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/$name" \
		LD_PRELOAD="$LIB" "$TP/solo" $CALLS $NAPS $NAP_MS >"$TMP/$name.out"
	eq "$name: exit status" 0 "$?"
	check "$name: it printed what it prints untraced" cmp "$TMP/$name.out" "$TMP/plain.out"
	f=$(one_file "$TMP/$name.[0-9]*")
	"$TP/order_check" "$f" >"$TMP/$name.order"
	eq "$name: no inversion" 0 "$?"
	eq "$name: no record precedes its chunk" 0 "$(awk '$1=="before_chunk"{print $2}' "$TMP/$name.order")"
	ge "$name: addresses reused across threads (the test has teeth)" 100 \
		"$(awk '$1=="cross_thread_reuse"{print $2}' "$TMP/$name.order")"
	set -- $(stats "$f")
	alone=$1 multi=$2 long=$3
	eq "$name: every napping block lives its nap or more" $NAPS "$long"
}
for c in default rdtscp lfence-rdtsc clock_gettime; do
	case $c in
	rdtscp) has constant_tsc && has nonstop_tsc && has rdtscp ;;
	lfence-rdtsc) has constant_tsc && has nonstop_tsc ;;
	esac || { echo "# this CPU has no $c clock: not tried"; continue; }
	run "$c" MTRACE_CTL_CLOCK=$c
	# (40,000 calls alone, the clock read at about one in 64)
	ge "$c: one thread: stamps from the count" 30000 "$alone"
	few "$c: two threads: every order point reads the clock" "$multi"
	"$BIN/trace2wl" -q "$TMP/$c.wl" "$f"
	eq "$c: trace2wl converts it" 0 "$?"
	ge "$c: trace2wl marks each nap as idle time" $NAPS "$(wl "$TMP/$c.wl" at)"
done
"$BIN/trace_run" --pace "$TMP/default.wl" >"$TMP/paced"
eq "trace_run --pace: exit status" 0 "$?"
ge "trace_run --pace waits the naps (usec wall time)" $((NAPS * NAP_MS * 1000)) \
	"$(sed -n 's/^\([0-9,]*\) usec wall time$/\1/p' "$TMP/paced" | tr -d ,)"
# The coarse clock's tick, loaded from the vDSO's data page once that load has agreed with the
# clock (clock.c): after ten ticks of calls, a program busy without a call for two ticks between
# a malloc and its free.  Each such block lives a tick or more in the trace, where a wrong or
# stale load would hide the gap (the free stamped 1 after the malloc).  Then in a time
# namespace, whose page holds the namespace's offsets where the clock was: the vDSO's function.
GAPS=5
idle() {
	name=$1; shift
	timeout -k 5 120 "$@" env MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/$name" LD_PRELOAD="$LIB" \
		"$TP/coarse_idle" 10 $GAPS >"$TMP/$name.out"
	rc=$?
	[ $rc -eq 3 ] && { echo "# $name: the coarse clock did not tick: not tried"; return; }
	eq "$name: exit status" 0 "$rc"
	tick=$(awk '$1 == "tick" { print $2 }' "$TMP/$name.out")
	f=$(one_file "$TMP/$name.[0-9]*")
	tps=$("$BIN/trace_dump" -H "$f" | sed -n 's/^# clock.*, \([0-9,]*\) ticks\/s.*/\1/p' | tr -d ,)
	long=$("$BIN/trace_dump" --sorted --ticks "$f" | awk -v tps="$tps" -v tick="$tick" '
		/^#/ { next }
		$3 == "malloc(1000)" { born[$5] = $1 }
		$3 ~ /^free\(/ { a = substr($3, 6, length($3) - 6)
			if (a in born && ($1 - born[a]) * 1e9 >= tick / 2 * tps) long++ }
		END { print long + 0 }')
	eq "$name: each block allocated before two idle ticks lives a tick or more" $GAPS "$long"
}
idle coarse-word
if unshare -T --monotonic 86400 true 2>/dev/null; then
	idle time-namespace unshare -T --monotonic 86400
else
	echo "# unshare -T is not allowed here (no time namespaces, or no privilege): not tried"
fi
# One thread at a time: mbench's main thread makes calls (pthread_create's, printf's) before
# and after its one worker, which makes the others alone: the worker takes the count over at
# its first call.  Its stamps mostly follow each other by 1, and the order stays causal; with
# two workers side by side too (each one's order points raise the other's next stamps).
MB=$ROOT/$B/bench/mbench
for w in 1 2; do
	timeout -k 5 120 env MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/mbench$w" LD_PRELOAD="$LIB" \
		"$MB" $w 10000 >/dev/null
	eq "mbench $w: exit status" 0 "$?"
	f=$(one_file "$TMP/mbench$w.[0-9]*")
	"$TP/order_check" "$f" >"$TMP/mbench$w.order"
	eq "mbench $w: no inversion" 0 "$?"
done
# The takeover, then blocks passed both ways without a lock between the owner of the count and
# the main thread (25 rounds: 50 order points of the main thread, before 64 end the count): each
# free stays after its block's allocation.
timeout -k 5 60 env MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/handoff" LD_PRELOAD="$LIB" \
	"$TP/handoff" 25 >"$TMP/handoff.out"
eq "handoff: exit status" 0 "$?"
f=$(one_file "$TMP/handoff.[0-9]*")
"$TP/order_check" "$f" >"$TMP/handoff.order"
eq "handoff: no inversion" 0 "$?"
eq "handoff: every block freed by the other thread" 50 \
	"$(awk '$1 == "cross_thread_free" { print $2 }' "$TMP/handoff.order")"
# (about 11,000 calls of the worker: one in 64 reads the clock)
ge "one worker after the main thread's calls: stamps from the count" 9000 \
	"$("$BIN/trace_dump" --sorted --ticks "$(one_file "$TMP/mbench1.[0-9]*")" | awk '/^#/ { next }
		{ if (($2 in l) && $1 - l[$2] == 1) ones[$2]++; l[$2] = $1 }
		END { for (k in ones) if (ones[k] > m) m = ones[k]; print m + 0 }')"
run every1 MTRACE_CTL_CLOCK_EVERY=1
few "MTRACE_CTL_CLOCK_EVERY=1: the clock at every order point" "$alone"
run durations MTRACE_CTL_DURATIONS=1
few "durations: the clock at every order point" "$alone"
finish
