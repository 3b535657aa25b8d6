# Every trace version reads: a version-1 trace kept as a fixture (64-byte records, written by
# the tracer of that version: 4 threads, 252 calls) converts to the workload kept beside it,
# and written again in the current version (32-byte slots, tests/prog/retrace) it reads as the
# same records and converts to the same workload, byte for byte.  A version-3 trace kept as a
# fixture (tests/prog/keeplive traced by the tracer of that version, which wrote no LIVE
# records) converts to the workload kept beside it.
. tests/lib.sh
v1=$ROOT/tests/fixtures/v1-threads.trace
"$BIN/trace_dump" -H "$v1" | grep -q '^# format    mtrace v1, .*64-byte records' && ok "the fixture is a version-1 trace" || bad "fixture: $("$BIN/trace_dump" -H "$v1" | grep format)"
eq "version 1: every call" 252 "$(count "$v1" calls)"
eq "version 1: every thread" 4 "$(count "$v1" threads)"
"$BIN/trace2wl" -q "$TMP/v1.wl" "$v1"; eq "version 1: converts" 0 "$?"
check "version 1: to the same workload as ever (tests/fixtures/v1-threads.wl)" cmp "$TMP/v1.wl" "$ROOT/tests/fixtures/v1-threads.wl"
"$TP/retrace" "$v1" "$TMP/v3"; eq "rewritten in the current version" 0 "$?"
"$BIN/trace_dump" -H "$TMP/v3" | grep -q '^# format    mtrace v6, .*32-byte records' && ok "the rewrite is version 6" || bad "rewrite: $("$BIN/trace_dump" -H "$TMP/v3" | grep format)"
"$TP/trace_count" "$v1" | grep -v '^unwritten\|^chunks' >"$TMP/c1"
"$TP/trace_count" "$TMP/v3" | grep -v '^unwritten\|^chunks' >"$TMP/c3"
check "version 3: the same calls, threads and flags" cmp "$TMP/c1" "$TMP/c3"
"$BIN/trace_dump" "$v1" | grep -v '^#' | awk '{ $1 = ""; print }' >"$TMP/d1"
"$BIN/trace_dump" "$TMP/v3" | grep -v '^#' | awk '{ $1 = ""; print }' >"$TMP/d3"
check "version 3: every record the same (trace_dump, offsets aside)" cmp "$TMP/d1" "$TMP/d3"
"$BIN/trace2wl" -q "$TMP/v3.wl" "$TMP/v3"
check "version 3: the same workload, byte for byte" cmp "$TMP/v1.wl" "$TMP/v3.wl"
runs_agree "version 3: a run at a time, the same records" "$TMP/v3"
# version 2's 64-byte layout (mkfixture writes it) and its rewrite
"$TP/mkfixture" trace-edge "$TMP/v2"
"$TP/retrace" "$TMP/v2" "$TMP/v2r"
"$BIN/trace2wl" -q "$TMP/v2.wl" "$TMP/v2"; "$BIN/trace2wl" -q "$TMP/v2r.wl" "$TMP/v2r"
check "version 2 and its version-3 rewrite: the same workload" cmp "$TMP/v2.wl" "$TMP/v2r.wl"
# version 3, as its tracer wrote it
v3=$ROOT/tests/fixtures/v3-keeplive.trace
"$BIN/trace_dump" -H "$v3" | grep -q '^# format    mtrace v3, .*32-byte records' && ok "the fixture is a version-3 trace" || bad "fixture: $("$BIN/trace_dump" -H "$v3" | grep format)"
check "version 3: validates" "$BIN/trace_dump" -c "$v3"
eq "version 3: every call" 15 "$(count "$v3" calls)"
eq "version 3: no block said live at the end" 0 "$(count "$v3" live)"
"$BIN/trace2wl" -q "$TMP/k3.wl" "$v3"; eq "version 3: converts" 0 "$?"
check "version 3: to the same workload as ever (tests/fixtures/v3-keeplive.wl)" cmp "$TMP/k3.wl" "$ROOT/tests/fixtures/v3-keeplive.wl"
finish
