# make check-large (not in make check or CI: it writes 4.5 GB and takes a minute or two): a
# trace over 4 GiB - file offsets beyond 32 bits - validates, converts with bounded memory, and
# replays with every call.  BIG_DIR chooses where (default /tmp; needs ~5 GB free).
. tests/lib.sh
D=${BIG_DIR:-/tmp}/mtrace-large.$$
mkdir -p "$D"
trap 'rm -rf "$D" "$TMP"' EXIT
MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$D/t" LD_PRELOAD="$LIB" "$ROOT/$B/bench/mbench" 2 35000000 >/dev/null
f=$(one_file "$D/t.*")
size=$(stat -c %s "$f")
ge "the trace is over 4 GiB" 4294967297 "$size"
"$BIN/trace_dump" -c "$f" >"$D/check"; eq "it validates" 0 "$?"
cat "$D/check"
calls=$(awk '{ gsub(",", "", $4); print $4 }' "$D/check")
ge "every call read back (offsets past 4 GiB)" 70000000 "$calls"
"$BIN/trace_dump" --ticks "$f" | tail -n 2 | head -n 1 >"$D/last"
off=$(awk '{ print $1 }' "$D/last")
ge "records are read at offsets beyond 32 bits" 4294967297 "$off"
/usr/bin/time -f %M -o "$D/mem" "$BIN/trace2wl" -q "$D/w.wl" "$f"
eq "trace2wl converts it" 0 "$?"
mem=$(cat "$D/mem")
check "trace2wl peak memory stays bounded ($mem KiB < 256 MiB) on a $((size >> 20)) MiB trace" test "$mem" -lt 262144
"$BIN/trace_run" --csv "$D/w.wl" >"$D/run.csv"; eq "trace_run replays it" 0 "$?"
n=$(awk -F, 'NR == 2 { print $8 + $10 + $12 + $14 + $16 }' "$D/run.csv")
eq "the replay made every call of the trace" "$calls" "$n"
finish
