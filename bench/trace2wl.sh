#!/bin/sh
# make bench, part 2: trace2wl throughput and memory on a large trace (RECORDS, default 20 M,
# from mbench traced at 2 threads), measured side by side with `cat TRACE >/dev/null` in the
# same run (ROUNDS times each, interleaved; medians), and with the conversion forced onto one
# thread and onto two (MTRACE_CONVERT_THREADS; the default takes two where a processor is
# free).  Then the memory a live block costs: a second trace that keeps about a million blocks
# live, its peak against the first one's.
B=${B:-build}
ROOT=$(pwd)
ROUNDS=${ROUNDS:-3}
RECORDS=${RECORDS:-20000000}
DIR=${BENCH_DIR:-/tmp}/mtrace-bench-wl.$$
mkdir -p "$DIR"
trap 'rm -rf "$DIR"' EXIT
MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$DIR/t" LD_PRELOAD="$ROOT/$B/lib/libmtracectl.so" \
	"$ROOT/$B/bench/mbench" 2 $((RECORDS / 2)) >/dev/null
T=$(ls "$DIR"/t.*)
sync   # the fresh trace's writeback would otherwise run, on the other core, during the timings
records=$("$ROOT/$B/tests/trace_count" "$T" | awk '$1 == "calls" { print $2 }')
bytes=$(stat -c %s "$T")
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
: >"$DIR/cat"; : >"$DIR/wl"; : >"$DIR/mem"; : >"$DIR/wl1"; : >"$DIR/wl2"
r=0
while [ $r -lt "$ROUNDS" ]; do
	s=$(date +%s%N); cat "$T" >/dev/null; echo $(( $(date +%s%N) - s )) >>"$DIR/cat"
	s=$(date +%s%N)
	/usr/bin/time -f %M -o "$DIR/m1" "$ROOT/$B/bin/trace2wl" -q "$DIR/w.wl" "$T"
	echo $(( $(date +%s%N) - s )) >>"$DIR/wl"
	cat "$DIR/m1" >>"$DIR/mem"
	for n in 1 2; do
		s=$(date +%s%N)
		MTRACE_CONVERT_THREADS=$n "$ROOT/$B/bin/trace2wl" -q "$DIR/w$n.wl" "$T"
		echo $(( $(date +%s%N) - s )) >>"$DIR/wl$n"
	done
	r=$((r + 1))
done
tc=$(median <"$DIR/cat"); tw=$(median <"$DIR/wl"); mem=$(median <"$DIR/mem")
tw1=$(median <"$DIR/wl1"); tw2=$(median <"$DIR/wl2")
"$ROOT/$B/tests/wl_check" "$DIR/w.wl" >"$DIR/chk"
slots=$(awk '$1 == "slots" { print $2 }' "$DIR/chk"); calls=$(awk '$1 == "calls" { print $2 }' "$DIR/chk")
wlbytes=$(stat -c %s "$DIR/w.wl")
echo "trace2wl benchmark: median of $ROUNDS runs on a trace of $records records ($((bytes >> 20)) MiB)"
printf '  cat TRACE >/dev/null   %6.2f s  %7.1f M records/s  %6.0f MiB/s\n' "$(echo "$tc / 1000000000" | bc -l)" \
	"$(echo "$records * 1000 / $tc" | bc -l)" "$(echo "$bytes * 1000000000 / $tc / 1048576" | bc -l)"
printf '  trace2wl               %6.2f s  %7.1f M records/s  %6.0f MiB/s  (%.1fx the time of cat)\n' \
	"$(echo "$tw / 1000000000" | bc -l)" "$(echo "$records * 1000 / $tw" | bc -l)" \
	"$(echo "$bytes * 1000000000 / $tw / 1048576" | bc -l)" "$(echo "$tw / $tc" | bc -l)"
for n in 1 2; do
	eval "t=\$tw$n"
	printf '  trace2wl, %s thread%-4s %6.2f s  %7.1f M records/s\n' $n "$([ $n = 1 ] || echo s)" \
		"$(echo "$t / 1000000000" | bc -l)" "$(echo "$records * 1000 / $t" | bc -l)"
done
printf '  peak memory            %6.1f MiB for %s slots (peak live blocks)\n' "$(echo "$mem / 1024" | bc -l)" "$slots"
printf '  workload               %s bytes, %.2f bytes per call\n' "$wlbytes" "$(echo "$wlbytes / $calls" | bc -l)"
# what version 2 adds to it (at most 5% by design): the pace marks (a conversion without them
# beside it), the sample table (40 bytes a sample), the RESIDENTs (7 bytes each)
"$ROOT/$B/bin/trace2wl" -q --pace-threshold=0 "$DIR/w0.wl" "$T"
pace=$(( wlbytes - $(stat -c %s "$DIR/w0.wl") ))
samples=$(( $(awk '$1 == "samples" { print $2 }' "$DIR/chk") * 40 ))
resident=$(( $(awk '$1 == "resident" { print $2 }' "$DIR/chk") * 7 ))
printf '  version-2 additions    %s bytes of pace marks, %s of memory samples, %s of RESIDENTs: %.3f%% of the workload\n' \
	"$pace" "$samples" "$resident" "$(echo "($pace + $samples + $resident) * 100 / $wlbytes" | bc -l)"

# memory per live block: mbench with 2 M slots (about 1 M blocks live at once)
MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$DIR/L" LD_PRELOAD="$ROOT/$B/lib/libmtracectl.so" \
	"$ROOT/$B/bench/mbench" 1 3000000 2000000 >/dev/null
/usr/bin/time -f %M -o "$DIR/mL" "$ROOT/$B/bin/trace2wl" -q "$DIR/L.wl" "$DIR"/L.*[0-9]
memL=$(cat "$DIR/mL")
"$ROOT/$B/tests/wl_check" "$DIR/L.wl" >"$DIR/chkL"
liveL=$(awk '$1 == "peak_live_slots" { print $2 }' "$DIR/chkL"); live=$(awk '$1 == "peak_live_slots" { print $2 }' "$DIR/chk")
printf '  peak memory, many live  %6.1f MiB for %s live blocks: %.1f bytes per live block beyond the first run\n' \
	"$(echo "$memL / 1024" | bc -l)" "$liveL" "$(echo "($memL - $mem) * 1024 / ($liveL - $live)" | bc -l)"
