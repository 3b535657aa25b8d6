#!/bin/sh
# make bench, part 5: traces that travel.  python3 (PYTHONMALLOC=malloc, bench/py_alloc.py)
# traced into a local file, and traced with its trace streamed over loopback TCP to trace_recv
# (mtracectl --send) packed (--send-compress=auto) and not (none), side by side ROUNDS times,
# interleaved; medians.  Prints the rate at which the program writes trace bytes beside the rate
# they reach the collector (bytes over the time from the program's start until every byte was
# acknowledged), how long after the local run each streamed one ended, and the bytes the packed
# ranges took on the wire.
B=${B:-build}
ROOT=$(pwd)
ROUNDS=${ROUNDS:-3}
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
PYN=${PYN:-300000}
[ -n "$PY" ] || { echo "send: no python3 here: not measured"; exit 0; }
DIR=${BENCH_DIR:-/tmp}/mtrace-bench-send.$$
mkdir -p "$DIR"
recv=
trap '[ -n "$recv" ] && kill $recv 2>/dev/null; rm -rf "$DIR"' EXIT
"$ROOT/$B/bin/trace_recv" -o "$DIR/rx" --listen 127.0.0.1:0 >"$DIR/recv.out" 2>&1 &
recv=$!
n=0
while ! grep -q 'listening on' "$DIR/recv.out" && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
addr=$(sed -n 's/.*listening on \([^ ]*\).*/\1/p' "$DIR/recv.out" | head -n 1)
[ -n "$addr" ] || { echo "send: trace_recv did not listen: $(cat "$DIR/recv.out")"; exit 0; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
: >"$DIR/local"; : >"$DIR/sent"; : >"$DIR/raw"; : >"$DIR/bytes"; : >"$DIR/ratio"
r=0
while [ $r -lt "$ROUNDS" ]; do
	rm -rf "$DIR/l" "$DIR/s" "$DIR/rx"/*
	mkdir -p "$DIR/l" "$DIR/s"
	s=$(date +%s%N)
	PYTHONMALLOC=malloc "$ROOT/$B/bin/mtracectl" -q -o "$DIR/l/t" -- "$PY" \
		"$ROOT/bench/py_alloc.py" "$PYN" >/dev/null
	echo $(( $(date +%s%N) - s )) >>"$DIR/local"
	s=$(date +%s%N)
	PYTHONMALLOC=malloc "$ROOT/$B/bin/mtracectl" --send="$addr" -o "$DIR/s/t" -- "$PY" \
		"$ROOT/bench/py_alloc.py" "$PYN" >/dev/null 2>"$DIR/err"
	echo $(( $(date +%s%N) - s )) >>"$DIR/sent"
	sed -n 's/^mtracectl: sent .*(\([0-9.]*\)x)$/\1/p' "$DIR/err" >>"$DIR/ratio"
	cat "$DIR"/s/t.* | wc -c >>"$DIR/bytes"
	rm -rf "$DIR/s" "$DIR/rx"/*
	mkdir -p "$DIR/s"
	s=$(date +%s%N)
	PYTHONMALLOC=malloc "$ROOT/$B/bin/mtracectl" -q --send="$addr" --send-compress=none \
		-o "$DIR/s/t" -- "$PY" "$ROOT/bench/py_alloc.py" "$PYN" >/dev/null
	echo $(( $(date +%s%N) - s )) >>"$DIR/raw"
	r=$((r + 1))
done
tl=$(median <"$DIR/local"); ts=$(median <"$DIR/sent"); by=$(median <"$DIR/bytes")
tr=$(median <"$DIR/raw"); ra=$(median <"$DIR/ratio")
got=$(cat "$DIR"/rx/*/* 2>/dev/null | wc -c)
echo "Traces that travel: python3 (PYTHONMALLOC=malloc) traced, its trace sent over loopback"
echo "(trace_recv on $addr); medians of $ROUNDS runs each, interleaved"
awk -v tl="$tl" -v ts="$ts" -v tr="$tr" -v ra="$ra" -v by="$by" -v got="$got" 'BEGIN {
	printf "  trace bytes                %.1f MB (received: %.1f MB)\n", by / 1e6, got / 1e6
	printf "  traced into a local file   %.2f s: the program writes %.0f MB/s of trace\n",
		tl / 1e9, by / (tl / 1e3)
	printf "  traced and sent, packed    %.2f s: %.0f MB/s reach the collector (%.2fx the\n",
		ts / 1e9, by / (ts / 1e3), ts / tl
	printf "                             local run'"'"'s time, the last bytes acknowledged);\n"
	printf "                             the wire carries %.1f MB, %sx fewer\n",
		by / ra / 1e6, ra
	printf "  traced and sent, unpacked  %.2f s: %.0f MB/s reach the collector (%.2fx)\n",
		tr / 1e9, by / (tr / 1e3), tr / tl
}'
