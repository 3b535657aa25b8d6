#!/bin/sh
# tests/dev/same-outputs.sh OLD NEW: do two builds (build directories holding bin/) turn the
# same trace into byte-identical outputs?  For changes that must not change behaviour (moving
# or splitting code): traces a small 2-thread program once, with NEW's tracer, then runs
# every tool of each build on it (the workload, dumps, statistics in text/TSV/JSON, a chart,
# a packed copy, an import) and compares the files.
# Prints each output's verdict; exit 0 when all are identical, 1 otherwise.
OLD=${1:?usage: same-outputs.sh OLD_BUILD NEW_BUILD}
NEW=${2:?usage: same-outputs.sh OLD_BUILD NEW_BUILD}
OLD=$(cd "$OLD" && pwd) && NEW=$(cd "$NEW" && pwd) || exit 1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
D=$(mktemp -d) || exit 1
trap 'rm -rf "$D"' EXIT
cc -O2 -o "$D/prog" "$ROOT/bench/mbench.c" -pthread || exit 1
MTRACE_CTL_QUIET=1 "$NEW/bin/mtracectl" -q -o "$D/t" -- "$D/prog" 2 20000 >/dev/null || exit 1
T=$(ls "$D"/t.* | head -n 1)
printf '= Start\n@ ./prog:[0x401000] + 0x1000 0x10\n@ ./prog:[0x401000] - 0x1000\n= End\n' >"$D/log.txt"
run() { # BUILD OUT: (in OUT, so that file names printed are the same for both builds)
	b=$1 o=.
	mkdir -p "$2" && cd "$2" || exit 1
	"$b/bin/trace2wl" -q "$o/w.wl" "$T" >"$o/trace2wl.out" 2>&1; echo $? >>"$o/trace2wl.out"
	"$b/bin/trace2wl" -q --dj-format="$o/dj.wl" "$o/w2.wl" "$T" >/dev/null 2>&1
	"$b/bin/trace_dump" "$T" >"$o/dump.txt" 2>&1
	"$b/bin/trace_dump" --sorted "$T" >"$o/dump-sorted.txt" 2>&1
	"$b/bin/trace_dump" "$o/w.wl" >"$o/dump-wl.txt" 2>&1
	"$b/bin/trace_dump" "$o/dj.wl" >"$o/dump-dj.txt" 2>&1
	"$b/bin/trace_stats" "$T" >"$o/stats.txt" 2>&1
	"$b/bin/trace_stats" --json "$T" >"$o/stats.json" 2>&1
	"$b/bin/trace_stats" --tsv "$T" >"$o/stats.tsv" 2>&1
	"$b/bin/trace_plot" -o "$o/ideal.svg" "$T" >/dev/null 2>&1
	"$b/bin/trace_pack" -o "$o/packed" "$T" >/dev/null 2>&1
	# (gzip's header holds the second it ran: what the pack holds is compared)
	gzip -dc "$o/packed" >"$o/packed.unpacked" 2>&1; rm -f "$o/packed"
	# (an import records when it ran: its file and that line differ by design)
	"$b/bin/trace_import" "$D/log.txt" "$D/imported" >/dev/null 2>&1
	"$b/bin/trace_dump" "$D/imported" 2>&1 | grep -v '^# started' >"$o/dump-imported.txt"
	cd "$D"
}
run "$OLD" "$D/old"
run "$NEW" "$D/new"
bad=0
for f in "$D"/old/* "$D"/new/*; do
	n=$(basename "$f")
	[ -e "$D/old/$n" ] || { echo "only NEW has $n"; bad=1; continue; }
	[ -e "$D/new/$n" ] || { echo "only OLD has $n"; bad=1; continue; }
done
for f in "$D"/old/*; do
	n=$(basename "$f")
	[ -e "$D/new/$n" ] || continue
	if cmp -s "$f" "$D/new/$n"; then echo "same       $n"
	else echo "DIFFERENT  $n"; bad=1; fi
done
exit $bad
