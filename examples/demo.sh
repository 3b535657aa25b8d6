#!/bin/sh
# make demo: the main job on a bundled example.  Trace a malloc-heavy program (bench/mbench.c,
# 2 threads) with mtracectl, convert the trace with trace2wl, and replay the workload with
# trace_run against glibc and every other allocator installed, side by side, and chart their
# call times.
B=${B:-build}
set -e
DIR=${DEMO_DIR:-/tmp}/mtrace-demo
rm -rf "$DIR"
mkdir -p "$DIR"
echo "== 1. trace: mtracectl -o $DIR/trace -- mbench 2 300000"
"$B/bin/mtracectl" -o "$DIR/trace" -- "$B/bench/mbench" 2 300000
T=$(ls "$DIR"/trace.*)
echo
echo "== 2. a look at it: trace_dump -n 8 $T"
"$B/bin/trace_dump" -n 8 "$T" | tail -n 9
echo
echo "== 3. convert: trace2wl $DIR/demo.wl $T"
"$B/bin/trace2wl" "$DIR/demo.wl" "$T"
echo
list=glibc
for a in jemalloc:libjemalloc.so.2 tcmalloc:libtcmalloc_minimal.so.4 mimalloc:libmimalloc.so.2; do
	if ls /usr/lib/*/"${a#*:}" >/dev/null 2>&1; then
		list="$list,${a%%:*}"
	else
		echo "(${a%%:*} is not installed; apt-get install libjemalloc2 libtcmalloc-minimal4 libmimalloc2.0 adds the others)"
	fi
done
echo "== 4. replay: trace_run --compare $list -r 3 -L $DIR/latency $DIR/demo.wl"
"$B/bin/trace_run" --compare "$list" -r 3 -L "$DIR/latency" "$DIR/demo.wl"
echo
echo "== 5. one replay in detail: trace_run --log $DIR/rss.tsv $DIR/demo.wl"
"$B/bin/trace_run" --log "$DIR/rss.tsv" "$DIR/demo.wl"
echo "(VmRSS, VmSize and ideal RSS over time: $DIR/rss.tsv)"
echo
echo "== 6. call times, every allocator: trace_plot -o $DIR/latency.svg $DIR/latency.*"
"$B/bin/trace_plot" -o "$DIR/latency.svg" "$DIR"/latency.*
