#!/bin/sh
# make bench, part 1: capture overhead, measured side by side in one run.  For each program: untraced,
# traced by mtrace, by heaptrack and by LTTng-UST's libc wrapper (those two when installed),
# interleaved ROUNDS times (default 5); the median of each is reported as a ratio to untraced
# and as nanoseconds added per allocator call; then what the targets allow a call beside what
# the clock reads cost (bench/clockcost).  Nothing here passes or fails.
B=${B:-build}
ROOT=$(pwd)
ROUNDS=${ROUNDS:-5}
OPS=${OPS:-5000000}
PYN=${PYN:-400000}
DIR=${BENCH_DIR:-/tmp}/mtrace-bench.$$
mkdir -p "$DIR"
trap 'rm -rf "$DIR"; [ -n "${LTTNG_UP:-}" ] && lttng destroy -a >/dev/null 2>&1' EXIT
LIB=$ROOT/$B/lib/libmtracectl.so
MB=$ROOT/$B/bench/mbench
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)

now_ns() { date +%s%N; }

# tracers available ($TRACERS narrows them: TRACERS="untraced mtrace mtrace-nothread", say).
# mtrace-nothread is mtrace with MTRACE_CTL_NOTHREAD=1: the program's threads populate the
# trace's pages themselves; mtrace-nosamples is mtrace with MTRACE_CTL_MEMORY_MS=0: no samples
# of the process's memory.
ONLY=${TRACERS:-}
TRACERS="untraced mtrace mtrace-nosamples mtrace-nothread"
command -v heaptrack >/dev/null 2>&1 && TRACERS="$TRACERS heaptrack"
LTTWRAP=$(ls /usr/lib/*/liblttng-ust-libc-wrapper.so* /usr/lib/liblttng-ust-libc-wrapper.so* 2>/dev/null | head -n 1)
if [ -n "$ONLY" ]; then
	TRACERS=$ONLY
	case " $ONLY " in *" lttng-ust "*) ;; *) LTTWRAP="" ;; esac
fi
if [ -n "$LTTWRAP" ] && command -v lttng >/dev/null 2>&1; then
	(lttng-sessiond --daemonize >/dev/null 2>&1 || true)
	if lttng create mtbench --output="$DIR/lttng" >/dev/null 2>&1 &&
	   lttng enable-event -u 'lttng_ust_libc:*' >/dev/null 2>&1 && lttng start >/dev/null 2>&1; then
		LTTNG_UP=1
		TRACERS="$TRACERS lttng-ust"
	fi
fi

# run TRACER COMMAND... : run once, print elapsed ns
run() {
	tr=$1; shift
	rm -f "$DIR"/t.* "$DIR"/ht.*
	s=$(now_ns)
	case $tr in
	untraced) "$@" >/dev/null 2>&1 ;;
	mtrace) MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$DIR/t" LD_PRELOAD="$LIB" "$@" >/dev/null 2>&1 ;;
	mtrace-nothread) MTRACE_CTL_NOTHREAD=1 MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$DIR/t" LD_PRELOAD="$LIB" "$@" >/dev/null 2>&1 ;;
	mtrace-nosamples) MTRACE_CTL_MEMORY_MS=0 MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$DIR/t" LD_PRELOAD="$LIB" "$@" >/dev/null 2>&1 ;;
	heaptrack) heaptrack -o "$DIR/ht" "$@" >/dev/null 2>&1 ;;
	lttng-ust) LD_PRELOAD="$LTTWRAP" "$@" >/dev/null 2>&1 ;;
	esac
	echo $(( $(now_ns) - s ))
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# bench NAME CALLS COMMAND...
bench() {
	name=$1 calls=$2; shift 2
	for tr in $TRACERS; do : >"$DIR/times.$tr"; done
	r=0
	while [ $r -lt "$ROUNDS" ]; do
		for tr in $TRACERS; do run "$tr" "$@" >>"$DIR/times.$tr"; done
		r=$((r + 1))
	done
	base=$(median <"$DIR/times.untraced")
	[ -n "${TARGET:-}" ] && printf '%s|%s|%s|%s\n' "$name" "$base" "$calls" "$TARGET" >>"$DIR/budgets"
	printf '%-30s' "$name"
	for tr in $TRACERS; do
		t=$(median <"$DIR/times.$tr")
		if [ "$tr" = untraced ]; then
			printf '  %8.3f s' "$(echo "$t / 1000000000" | bc -l)"
		else
			printf '  %6.2fx %+8.1f ns' "$(echo "$t / $base" | bc -l)" "$(echo "($t - $base) / $calls" | bc -l)"
		fi
	done
	echo
}

printf '%s\n' "mtrace capture benchmark: median of $ROUNDS interleaved runs; ratio to untraced, and ns added per allocator call"
printf '%-30s  %10s' "program" "untraced"
for tr in $TRACERS; do [ "$tr" = untraced ] || printf '  %17s' "$tr"; done
echo
: >"$DIR/budgets"
TARGET=1.5   # issue 2's targets: the C program 1.5x at 1 and 2 threads, python 1.15x
calls1=$("$MB" 1 "$OPS" | awk '{ print $1 }')
bench "mbench, 1 thread" "$calls1" "$MB" 1 "$OPS"
calls2=$("$MB" 2 "$OPS" | awk '{ print $1 }')
bench "mbench, 2 threads" "$calls2" "$MB" 2 "$OPS"
TARGET=
# thread churn: every thread takes its own chunks, and its last calls come after its exit
TH=$ROOT/$B/tests/threads
if [ -x "$TH" ]; then
	callsT=$(MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$DIR/th" LD_PRELOAD="$LIB" "$TH" 1000 50 10 >/dev/null &&
		"$ROOT/$B/tests/trace_count" "$DIR"/th.* | awk '$1 == "calls" { print $2 }')
	rm -f "$DIR"/th.*
	bench "1,000 threads, 20 calls each" "$callsT" "$TH" 1000 50 10
fi
if [ -n "$PY" ]; then
	MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$DIR/count" LD_PRELOAD="$LIB" env PYTHONMALLOC=malloc "$PY" "$ROOT/bench/py_alloc.py" "$PYN" >/dev/null
	pycalls=$(for f in "$DIR"/count.*; do "$ROOT/$B/tests/trace_count" "$f" | awk '$1 == "calls" { print $2 }'; done | awk '{ t += $1 } END { print t }')
	export PYTHONMALLOC=malloc   # set outside the command, so every tracer sees python itself
	TARGET=1.15
	bench "python3 (PYTHONMALLOC=malloc)" "$pycalls" "$PY" "$ROOT/bench/py_alloc.py" "$PYN"
	unset PYTHONMALLOC
	TARGET=
	echo "(python: $pycalls allocator calls per run)"
fi
# sort of a large file: few calls, most of them for large buffers, whose resident bytes the
# tracer asks the kernel for when they are freed
SORTMB=${SORTMB:-200}
awk -v n=$((SORTMB * 1024 * 1024 / 12)) 'BEGIN { srand(7); for (i = 0; i < n; i++) printf "%011d\n", int(rand() * 1e11) }' >"$DIR/sort.in"
callsS=$(MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$DIR/so" LD_PRELOAD="$LIB" sort "$DIR/sort.in" >/dev/null &&
	for f in "$DIR"/so.*; do "$ROOT/$B/tests/trace_count" "$f" | awk '$1 == "calls" { print $2 }'; done | awk '{ t += $1 } END { print t }')
rm -f "$DIR"/so.*
bench "sort, $SORTMB MB" "$callsS" sort -o "$DIR/sort.out" "$DIR/sort.in"
rm -f "$DIR/sort.in" "$DIR/sort.out"
echo "(mbench: $calls1 calls at 1 thread, $calls2 at 2 threads; traces written to ${BENCH_DIR:-/tmp})"

# The floor under any capture that timestamps every call: the clock read at each call's order
# point, timed back to back.  Beside each target's budget it shows how much of it no change to
# the capture's code can win back on this machine.
CLK=$ROOT/$B/bench/clockcost
if [ -x "$CLK" ] && [ -s "$DIR/budgets" ]; then
	clk=$("$CLK")
	before=$(echo "$clk" | awk '$1 == "before" { print $2 }')
	after=$(echo "$clk" | awk '$1 == "after" { print $2 }')
	pair=$(echo "$clk" | awk '$1 == "pair" { print $2 }')
	percall=$(echo "$pair / 2" | bc -l)   # a malloc and its free: one read each
	echo
	echo "The clock read at each call's order point, timed back to back (bench/clockcost): $before ns a"
	printf '%s\n' "free's, $after ns an allocation's, $pair ns a malloc and its free: $(printf '%.1f' "$percall") ns a call (in a program"
	echo "some of it overlaps the program's own work).  Against the targets:"
	while IFS='|' read -r name base calls target; do
		allow=$(echo "($target - 1) * $base / $calls" | bc -l)
		printf '  %-30s %5.2fx allows %+6.1f ns a call; the clock reads take %5.1f ns (%3.0f%% of it)\n' \
			"$name" "$target" "$allow" "$percall" "$(echo "100 * $percall / $allow" | bc -l)"
	done <"$DIR/budgets"
elif [ -s "$DIR/budgets" ]; then
	echo "(the clock reads not timed: $CLK is not built; make bench builds it)"
fi
