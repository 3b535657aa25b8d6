#!/bin/sh
# doc/pictures.sh - the pictures README and doc/ show (doc/example-*.svg), drawn by trace_plot
# from the data in doc/pictures/: `make pictures` draws them again with the tools just built,
# and tests/t_pictures.sh fails when a picture is not what they draw.  --measure first makes
# the data anew: bench/mbench traced, its workload replayed on every allocator installed.
set -e
B=${B:-build}
BIN=$B/bin
D=doc/pictures
OUT=${OUT:-doc}   # where the pictures go
if [ "${1:-}" = --measure ]; then
	T=$(mktemp -d)
	trap 'rm -rf "$T"' EXIT
	MTRACE_CTL_MEMORY_MS=1 "$BIN/mtracectl" -q -o "$T/mb" -- "$B/bench/mbench" 2 20000 >/dev/null
	gzip -9n -c "$T"/mb.* >"$D/mbench.trace.gz"
	"$BIN/trace2wl" -q "$D/mbench.wl" "$T"/mb.*
	list=glibc
	for a in jemalloc:libjemalloc.so.2 tcmalloc:libtcmalloc_minimal.so.4 \
		mimalloc:libmimalloc.so.2; do
		ls /usr/lib/*/"${a#*:}" >/dev/null 2>&1 && list="$list,${a%%:*}"
	done
	rm -f "$D"/lat.* "$D"/rss.*
	"$BIN/trace_run" --compare "$list" -r 3 -i 1 --csv -L "$D/lat" -l "$D/rss" "$D/mbench.wl" \
		>"$D/compare.csv"
fi
plot() { "$BIN/trace_plot" -o "$@" 2>/dev/null; }
allocs=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "allocator") c = i }
	NR > 1 { if (NR > 2) printf ", "; printf "%s", $c }' "$D/compare.csv")
plot "$OUT"/example-compare.svg -t "mbench workload replayed: $allocs" "$D/compare.csv"
plot "$OUT"/example-latency.svg -t "call times, percentiles" "$D"/lat.*
plot "$OUT"/example-live.svg -t "mbench (2 threads): live requested bytes and allocation rate" \
	"$D/mbench.trace.gz"
plot "$OUT"/example-fidelity.svg -t "mbench: the program's memory beside its replays'" \
	"$D/mbench.wl" "$D"/rss.*
