#!/bin/sh
# make bench, part 3: trace_run.  (1) Replaying the workload of a traced malloc-heavy program
# against running that program untraced, side by side, interleaved ROUNDS times, medians; for
# two programs: mbench at 2 threads (nothing but allocator calls, back to back: the harshest
# case, as the per-call timer costs more than one of its calls) and python3 running
# bench/py_alloc.py with PYTHONMALLOC=malloc (a real program: every object is a malloc call).
# (2) The cost of a wait that is already satisfied: N free(NULL) calls each after such a WAIT,
# against the same calls without (the fastest of WROUNDS runs of each: many short runs, as a
# busy neighbour spoils a long one more often than not).
B=${B:-build}
ROOT=$(pwd)
ROUNDS=${ROUNDS:-5}
OPS=${OPS:-1000000}
PYN=${PYN:-400000}
N=${WAITS:-1000000}
WROUNDS=${WROUNDS:-15}
DIR=${BENCH_DIR:-/tmp}/mtrace-bench-run.$$
mkdir -p "$DIR"
trap 'rm -rf "$DIR"' EXIT
MB=$ROOT/$B/bench/mbench
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# replay_vs_program NAME COMMAND...: trace COMMAND, convert, then ROUNDS times run COMMAND
# untraced, the timed replay and the untimed one; print the medians
replay_vs_program() {
	name=$1; shift
	rm -f "$DIR"/t.* "$DIR/w.wl"
	MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$DIR/t" LD_PRELOAD="$ROOT/$B/lib/libmtracectl.so" "$@" >/dev/null
	if ! "$ROOT/$B/bin/trace2wl" -q "$DIR/w.wl" "$DIR"/t.*; then
		echo "  $name: its trace did not convert (trace2wl's message above); skipped"
		return 1
	fi
	rm -f "$DIR"/t.*
	: >"$DIR/prog"; : >"$DIR/replay"; : >"$DIR/proc"; : >"$DIR/untimed"; : >"$DIR/clock"
	r=0
	while [ $r -lt "$ROUNDS" ]; do
		s=$(date +%s%N); "$@" >/dev/null; echo $(( ($(date +%s%N) - s) / 1000 )) >>"$DIR/prog"
		s=$(date +%s%N)
		"$ROOT/$B/bin/trace_run" --csv "$DIR/w.wl" | awk -F, 'NR == 2 { print $2 }' >>"$DIR/replay"
		echo $(( ($(date +%s%N) - s) / 1000 )) >>"$DIR/proc"
		"$ROOT/$B/bin/trace_run" --no-timing --csv "$DIR/w.wl" | awk -F, 'NR == 2 { print $2 }' >>"$DIR/untimed"
		# the timer of a CPU without RDTSCP (clock_gettime), on this one
		MTRACE_RUN_TIMER=clock "$ROOT/$B/bin/trace_run" --csv "$DIR/w.wl" |
			awk -F, 'NR == 2 { print $2 }' >>"$DIR/clock"
		r=$((r + 1))
	done
	p=$(median <"$DIR/prog"); w=$(median <"$DIR/replay"); pr=$(median <"$DIR/proc"); wu=$(median <"$DIR/untimed")
	wc=$(median <"$DIR/clock")
	calls=$("$ROOT/$B/tests/wl_check" "$DIR/w.wl" | awk '$1 == "calls" { print $2 }')
	echo "  $name: $calls calls"
	printf '    the program untraced (whole process) %8.1f ms\n' "$(echo "$p / 1000" | bc -l)"
	printf '    trace_run replay (release to join)   %8.1f ms  %.2fx the program\n' "$(echo "$w / 1000" | bc -l)" "$(echo "$w / $p" | bc -l)"
	printf '    trace_run --no-timing replay         %8.1f ms  %.2fx the program (the rest is the timer)\n' "$(echo "$wu / 1000" | bc -l)" "$(echo "$wu / $p" | bc -l)"
	printf '    trace_run replay, clock_gettime timer %7.1f ms  %.2fx the program (MTRACE_RUN_TIMER=clock: a CPU without RDTSCP)\n' "$(echo "$wc / 1000" | bc -l)" "$(echo "$wc / $p" | bc -l)"
	printf '    trace_run whole process              %8.1f ms  %.2fx (adds loading and validating the workload)\n' "$(echo "$pr / 1000" | bc -l)" "$(echo "$pr / $p" | bc -l)"
}

echo "trace_run benchmark: median of $ROUNDS interleaved runs"
replay_vs_program "mbench, 2 threads" "$MB" 2 "$OPS"
if [ -n "$PY" ]; then
	(export PYTHONMALLOC=malloc; replay_vs_program "python3 bench/py_alloc.py $PYN (PYTHONMALLOC=malloc)" "$PY" "$ROOT/bench/py_alloc.py" "$PYN")
else
	echo "  python3: not found, skipped"
fi
"$ROOT/$B/tests/mkfixture" wl-waits "$DIR/waits" "$N"
"$ROOT/$B/tests/mkfixture" wl-nowaits "$DIR/nowaits" "$N"
: >"$DIR/a"; : >"$DIR/b"; : >"$DIR/hz"
r=0
while [ $r -lt "$WROUNDS" ]; do
	"$ROOT/$B/bin/trace_run" --touch=none --csv "$DIR/waits" | awk -F, 'NR == 2 { print $1; print $1 / $2 >"/dev/stderr" }' >>"$DIR/a" 2>>"$DIR/hz"
	"$ROOT/$B/bin/trace_run" --touch=none --csv "$DIR/nowaits" | awk -F, 'NR == 2 { print $1 }' >>"$DIR/b"
	r=$((r + 1))
done
# the fastest of each: the difference sought (a few ns in 1 M) is smaller than what a busy
# neighbour adds to one run, and interference only ever adds time
minimum() { sort -n | head -n 1; }
a=$(minimum <"$DIR/a"); b=$(minimum <"$DIR/b"); perus=$(median <"$DIR/hz")
# ticks per microsecond from the runs themselves (cycles / wall usec)
printf '  an already-satisfied wait           %8.2f ticks  (%.2f ns; %s waits, against the same calls without)\n' \
	"$(echo "($a - $b) / $N" | bc -l)" "$(echo "($a - $b) / $N / $perus * 1000" | bc -l)" "$N"
