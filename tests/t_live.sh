# The live-block tracker (tools/lib/analysis/live.h) that trace2wl, trace_stats and trace_plot
# share: its live bytes and blocks, peak, replaced and unknown blocks and its table of blocks
# against a plain model (tests/prog/live_check.c).
. tests/lib.sh
"$TP/live_check" >"$TMP/out"
rc=$?
sed 's/^/# /' "$TMP/out"
eq "live tracker agrees with the model" 0 "$rc"
grep -q '^[0-9][0-9]* checks, 0 failed$' "$TMP/out" && ok "every check ran" || bad "$(tail -n 1 "$TMP/out")"
