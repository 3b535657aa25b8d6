#!/bin/sh
# make demo: the main job on a bundled example.  Trace a malloc-heavy program (bench/mbench.c,
# 2 threads) with mtracectl, convert the trace with trace2wl, and replay the workload with
# trace_run against glibc and every other allocator installed, side by side, and chart their
# call times.  Each step prints its command as it runs it: from the top of the source tree,
# with the tools on the PATH (those of $B/bin here; after make install, the installed ones),
# it runs the same when typed; no output of a step matches a later step's file names.
B=${B:-build}
set -e
DIR=${DEMO_DIR:-/tmp}/mtrace-demo
PATH=$(pwd)/$B/bin:$PATH
export PATH
rm -rf "$DIR"
mkdir -p "$DIR"
step() { # TITLE COMMAND: print both, run the command as printed
	printf '\n== %s\n$ %s\n' "$1" "$2"
	eval "$2"
}
echo "(the commands run from $(pwd) with $B/bin on the PATH)"
step "1. trace a program that allocates (bench/mbench.c, 2 threads)" "mtracectl -o $DIR/trace -- $B/bench/mbench 2 300000"
T=$(ls "$DIR"/trace.*)
step "2. a look at its trace, in time order" "trace_dump --sorted -n 8 $T | tail -n 9"
step "3. convert it into a workload" "trace2wl $DIR/demo.wl $T"
list=glibc
for a in jemalloc:libjemalloc.so.2 tcmalloc:libtcmalloc_minimal.so.4 mimalloc:libmimalloc.so.2; do
	if ls /usr/lib/*/"${a#*:}" >/dev/null 2>&1; then
		list="$list,${a%%:*}"
	else
		echo "(${a%%:*} is not installed; apt-get install libjemalloc2 libtcmalloc-minimal4 libmimalloc2.0 adds the others)"
	fi
done
step "4. replay it against every allocator installed, 3 runs each" "trace_run --compare $list -r 3 -L $DIR/lat $DIR/demo.wl"
step "5. one replay in detail, sampling its RSS" "trace_run --log $DIR/rss.tsv $DIR/demo.wl"
step "6. chart the call times of every allocator" "trace_plot -o $DIR/latency.svg $DIR/lat.*"
step "7. chart the RSS over time" "trace_plot -o $DIR/rss.svg $DIR/rss.tsv"
cat <<TXT

== What to look at (the charts open in a browser)
$DIR/latency.svg
    each allocator's call times, malloc and free in panels of their own: to the
    right, the rare slow calls (p99, p99.9) a program waits for; the allocator
    whose curve is lower there is the faster one for this program.
$DIR/rss.svg
    the replay's memory over time beside the program's own as the tracer sampled
    it: how faithful the replay is (the two curves should agree).
$DIR/rss.tsv
    the same samples as numbers (time_ms, vmrss_kb, ...); and the table of step 4
    sets each allocator's Max RSS beside the ideal RSS (what the program asked
    for and had not freed yet): what the allocator costs in memory.
TXT
