# lib_trace_run.sh - sourced after tests/lib.sh by the t_trace_run_*.sh tests: trace_run, the
# readers of its --csv line and of a workload's figures, and the workloads they replay, each
# made by tracing a program (call the ones a test needs).
R="$BIN/trace_run"
csv() { # FILE FIELD: a field of the --csv line
	awk -F, -v k="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == k) c = i } NR == 2 { print $c }' "$1"
}
wl() { "$TP/wl_check" "$1" | awk -v k="$2" '$1 == k { print $2 }'; }
# (ASan's allocator refuses some requests glibc grants: failed calls, accepted there)
allow=; [ "${SANITIZE:-}" = 1 ] && allow=--allow-failures

# m.wl: mbench, 2 threads; mdj, the same as a dj/malloc workload (mdj: not m.*)
make_m() {
	traced "$TMP/m" "$ROOT/$B/bench/mbench" 2 100000 >/dev/null
	"$BIN/trace2wl" -q --dj-format "$TMP/mdj" "$TMP/m.wl" "$(one_file "$TMP/m.*")"
}
# x.wl: blocks freed by other threads (xthread, 4 threads, one arena)
make_x() {
	( export GLIBC_TUNABLES=glibc.malloc.tcache_count=0:glibc.malloc.arena_max=1
	  traced "$TMP/x" "$TP/xthread" 4 20000 >/dev/null )
	"$BIN/trace2wl" -q "$TMP/x.wl" "$(one_file "$TMP/x.*")"
}
# e.wl: every entry point of the allocator API
make_e() {
	traced "$TMP/e" "$TP/entry_points" --count >/dev/null
	"$BIN/trace2wl" -q "$TMP/e.wl" "$(one_file "$TMP/e.*")"
}
# edge.dj: the generator's edge cases as a dj/malloc workload (edge.wl ours)
make_edge() {
	"$TP/mkfixture" trace-edge "$TMP/edge"
	"$BIN/trace2wl" -q --dj-format "$TMP/edge.dj" "$TMP/edge.wl" "$TMP/edge"
}
