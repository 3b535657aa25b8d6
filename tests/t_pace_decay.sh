# Pace matters to an allocator that gives memory back on a timer: a program on jemalloc
# (dirty_decay_ms:100, muzzy_decay_ms:0, background_thread:true) frees 100 MiB and idles 1.5 s
# (a small call every 5 ms, for the tracer's samples).
# Its own samples show its RSS fallen by its next call; a --pace replay on the traced allocator
# with the traced settings shows it falling too (its --log timeline); an unpaced one, which
# goes on at once, does not.
. tests/lib.sh
R="$BIN/trace_run"
JE=$(ls /usr/lib/*/libjemalloc.so.2 /usr/lib/libjemalloc.so.2 2>/dev/null | head -n 1)
[ -n "$JE" ] || skip "jemalloc is not installed (apt-get install libjemalloc2): nothing to decay"
[ "${SANITIZE:-}" = 1 ] && skip "under ASan the replay's allocator is ASan's, not jemalloc"
CONF=dirty_decay_ms:100,muzzy_decay_ms:0,background_thread:true
MALLOC_CONF=$CONF MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/d" LD_PRELOAD="$LIB $JE" "$TP/selftrace" decay -
eq "traced on jemalloc (the tracer first, jemalloc beneath it)" 0 "$?"
mv "$(one_file "$TMP/d.*")" "$TMP/d"
"$BIN/trace_dump" "$TMP/d" >"$TMP/dump"
grep -q "^# allocator .*libjemalloc.so.2" "$TMP/dump" && ok "the trace names jemalloc" || bad "allocator: $(grep '^# allocator' "$TMP/dump")"
grep -q "^# settings  MALLOC_CONF=$CONF" "$TMP/dump" && ok "and its settings" || bad "settings: $(grep '^# settings' "$TMP/dump")"
# the program's samples: anonymous bytes at the peak, and the last sample before its next call
peak=$(awk '$4 == "memory:" { gsub(",", "", $6); if ($6 + 0 > m) m = $6 + 0 } END { print int(m / 1024) }' "$TMP/dump")
before=$(awk '$4 == "memory:" { gsub(",", "", $6); v = $6 } $4 ~ /^malloc\(64\)/ { print int(v / 1024); exit }' "$TMP/dump")
echo "# program: $peak Kb at the peak, $before Kb by its next call"
ge "the program held its 100 MiB at the peak (a sample taken before the first large free)" 102400 "$peak"
check "the program's RSS fell by its next call ($before Kb)" test "$before" -lt "$((peak / 4))"

"$BIN/trace2wl" -q "$TMP/d.wl" "$TMP/d"
# its own timeline: the least anonymous RSS after the peak, the last
fall() { awk -F'\t' 'NR > 1 { if ($6 > m) { m = $6; low = $6 } else if ($6 < low) low = $6 } END { print low + 0 }' "$1"; }
last() { tail -n 1 "$1" | cut -f 6; }
"$R" --malloc traced --pace -l "$TMP/paced.tsv" "$TMP/d.wl" >"$TMP/paced.txt"; eq "--pace on the traced allocator: exit 0" 0 "$?"
grep -q "^Program as traced: " "$TMP/paced.txt" && ok "--pace: the replay is the program's (traced allocator and settings)" || bad "paced: $(tail -n 1 "$TMP/paced.txt")"
low=$(fall "$TMP/paced.tsv")
check "--pace: the replay's RSS fell too ($low Kb, from the peak of $peak Kb)" test "$low" -lt "$((peak / 4))"
"$R" --malloc traced -i 1 -l "$TMP/fast.tsv" "$TMP/d.wl" >/dev/null; eq "unpaced: exit 0" 0 "$?"
end=$(last "$TMP/fast.tsv")
check "unpaced: its RSS had not fallen at its end ($end Kb)" test "$end" -gt "$((peak * 2 / 5))"
finish
