#!/bin/sh
# make demo: trace a bundled malloc-heavy program (examples/../bench/mbench, 2 threads) with
# mtracectl, validate the trace, and show its first records and a count of calls by type.
B=${B:-build}
set -e
OUT=${DEMO_DIR:-/tmp}/mtrace-demo
rm -f "$OUT".*
echo "== tracing: mtracectl -o $OUT -- mbench 2 200000"
"$B/bin/mtracectl" -o "$OUT" -- "$B/bench/mbench" 2 200000
for f in "$OUT".*; do
	echo
	echo "== trace_dump -n 12 $f"
	"$B/bin/trace_dump" -n 12 "$f"
	echo
	echo "== trace_dump --check $f"
	"$B/bin/trace_dump" --check "$f"
	echo
	echo "== calls by type"
	"$B/tests/trace_count" "$f" | awk '$2 ~ /^[0-9]+$/ && $2 > 0 && $1 !~ /^(pid|ppid|finished|glibc|unwritten|torn|chunks)$/'
done
