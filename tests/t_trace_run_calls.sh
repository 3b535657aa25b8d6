# trace_run replays a workload's calls: exactly its calls per type and its ideal RSS, for
# programs of one thread or several, blocks freed by other threads, more streams than replay
# threads, workloads on standard input, compressed, or in dj/malloc's format.
. tests/lib.sh
. tests/lib_trace_run.sh
make_m
make_x
make_e
make_edge

# --- workloads of real traced programs
for w in m x e; do
	"$R" $allow --csv "$TMP/$w.wl" >"$TMP/$w.csv"
	eq "$w: replay exit 0" 0 "$?"
	eq "$w: malloc calls as in the workload" "$(wl "$TMP/$w.wl" malloc)" "$(csv "$TMP/$w.csv" malloc_calls)"
	eq "$w: calloc calls" "$(wl "$TMP/$w.wl" calloc)" "$(csv "$TMP/$w.csv" calloc_calls)"
	eq "$w: realloc + reallocarray calls" "$(( $(wl "$TMP/$w.wl" realloc) + $(wl "$TMP/$w.wl" reallocarray) ))" "$(csv "$TMP/$w.csv" realloc_calls)"
	eq "$w: free calls" "$(wl "$TMP/$w.wl" free)" "$(csv "$TMP/$w.csv" free_calls)"
	eq "$w: memalign family calls" "$(( $(wl "$TMP/$w.wl" memalign) + $(wl "$TMP/$w.wl" posix_memalign) + $(wl "$TMP/$w.wl" aligned_alloc) + $(wl "$TMP/$w.wl" valloc) + $(wl "$TMP/$w.wl" pvalloc) ))" "$(csv "$TMP/$w.csv" memalign_calls)"
	eq "$w: ideal RSS is the workload's" "$(( $(wl "$TMP/$w.wl" ideal_rss) / 1024 ))" "$(csv "$TMP/$w.csv" ideal_rss_kb)"
done
eq "cross-thread: every wait executed" "$(wl "$TMP/x.wl" waits)" "$(csv "$TMP/x.csv" waits)"
if [ "${SANITIZE:-}" != 1 ]; then   # ASan's allocator refuses some requests glibc grants
	eq "entry points: nothing failed that succeeded in the trace" 0 "$(csv "$TMP/e.csv" replay_failed_calls)"
fi

# --- more streams than replay threads: a program that created threads all its life (any
# number of streams is replayed); streams wait in order for a thread to come free, and a stream
# waiting for one nobody has taken gets a thread of its own (else: for ever)
timeout 120 "$R" --csv --threads 1 "$TMP/x.wl" >"$TMP/x1.csv"; eq "cross-thread, --threads 1: completes" 0 "$?"
eq "cross-thread, --threads 1: every wait executed" "$(wl "$TMP/x.wl" waits)" "$(csv "$TMP/x1.csv" waits)"
eq "cross-thread, --threads 1: every free" "$(wl "$TMP/x.wl" free)" "$(csv "$TMP/x1.csv" free_calls)"
traced "$TMP/churn" "$TP/threads" 10100 1 1 >/dev/null   # one at a time: each joined before the next
"$BIN/trace2wl" -q "$TMP/churn.wl" "$(one_file "$TMP/churn.*")"
if [ "${SANITIZE:-}" != 1 ]; then   # 10,000 threads under ASan: minutes, and its own limits
	timeout 120 "$R" --csv --threads 10000 "$TMP/churn.wl" >"$TMP/churn.csv"; eq "10,101 streams: replayed" 0 "$?"
	eq "10,101 streams: 10,000 replay threads at once" 10000 "$(csv "$TMP/churn.csv" replay_threads)"
else
	timeout 120 "$R" --csv --threads 64 "$TMP/churn.wl" >"$TMP/churn.csv"; eq "10,101 streams, --threads 64: replayed" 0 "$?"
fi
eq "10,101 streams: every malloc" "$(wl "$TMP/churn.wl" malloc)" "$(csv "$TMP/churn.csv" malloc_calls)"
eq "10,101 streams: every free" "$(wl "$TMP/churn.wl" free)" "$(csv "$TMP/churn.csv" free_calls)"
# by default, as many replay threads as the program had threads alive at once (it made them
# one at a time: the main thread and one more, also where the kernel gave a thread id again),
# not one a stream, whose stacks would count in RSS.  (Made one at a time, not in waves, so
# that the figure does not depend on how the threads were scheduled.)
live=$(wl "$TMP/churn.wl" max_live_threads)
eq "10,101 streams made one at a time: 2 alive at once" 2 "$live"
timeout 120 "$R" --csv "$TMP/churn.wl" >"$TMP/churnd.csv"; eq "10,101 streams, default: replayed" 0 "$?"
eq "10,101 streams, default: as many replay threads as were alive at once" "$live" "$(csv "$TMP/churnd.csv" replay_threads)"
eq "10,101 streams, default: every free" "$(wl "$TMP/churn.wl" free)" "$(csv "$TMP/churnd.csv" free_calls)"
"$R" --threads 8 "$TMP/churn.wl" >"$TMP/churn8.txt"; eq "--threads 8: exit 0" 0 "$?"
grep -q '^Replay threads: 8 for 10,101 streams' "$TMP/churn8.txt" && ok "--threads 8: eight threads took the streams in turn" || bad "--threads 8: $(grep -i thread "$TMP/churn8.txt")"
"$R" --threads 0 "$TMP/x.wl" >/dev/null 2>&1; eq "--threads 0: exit 2" 2 "$?"

# --- a workload on standard input, or compressed: replayed from a plain temporary copy, which
# goes when the last run is done (also through --compare's runs and --malloc's re-execution)
mkdir -p "$TMP/wtmp"
TMPDIR="$TMP/wtmp" "$R" --csv - <"$TMP/m.wl" >"$TMP/in.csv"; eq "standard input: exit 0" 0 "$?"
eq "standard input: every malloc" "$(wl "$TMP/m.wl" malloc)" "$(csv "$TMP/in.csv" malloc_calls)"
gzip -c "$TMP/m.wl" >"$TMP/m.wl.gz"
TMPDIR="$TMP/wtmp" "$R" --csv "$TMP/m.wl.gz" >"$TMP/gz.csv"; eq "gzip-compressed: exit 0" 0 "$?"
eq "gzip-compressed: every free" "$(wl "$TMP/m.wl" free)" "$(csv "$TMP/gz.csv" free_calls)"
gzip -c "$TMP/m.wl" | TMPDIR="$TMP/wtmp" "$R" --compare glibc,glibc --csv - >"$TMP/gzc.csv"; eq "gzip on standard input, --compare: exit 0" 0 "$?"
eq "gzip on standard input, --compare: both runs" 3 "$(wc -l <"$TMP/gzc.csv")"
if [ "${SANITIZE:-}" != 1 ]; then
	gzip -c "$TMP/m.wl" | TMPDIR="$TMP/wtmp" "$R" --malloc "$TP/libfwd.so" - >/dev/null; eq "gzip on standard input, --malloc (re-executed): exit 0" 0 "$?"
fi
head -c 300 "$TMP/m.wl.gz" | TMPDIR="$TMP/wtmp" "$R" - 2>"$TMP/err"; eq "truncated gzip on standard input: exit 1" 1 "$?"
grep -q '^trace_run: <stdin>: gzip -dc failed' "$TMP/err" && [ "$(wc -l <"$TMP/err")" -eq 1 ] && ok "truncated gzip: one line, naming standard input" || bad "truncated gzip: $(cat "$TMP/err")"
eq "no temporary copy left behind" "" "$(ls "$TMP/wtmp")"

# --- dj/malloc workloads from the generator
mkdir "$TMP/tmpdir"
TMPDIR="$TMP/tmpdir" "$R" --csv "$TMP/edge.dj" >"$TMP/dj.csv"; eq "dj workload: exit 0" 0 "$?"
eq "dj workload: malloc calloc realloc free memalign-family (4 MEMALIGN + valloc + pvalloc)" "3 1 5 3 6" "$(for k in malloc_calls calloc_calls realloc_calls free_calls memalign_calls; do csv "$TMP/dj.csv" $k; done | tr '\n' ' ' | sed 's/ $//')"
eq "dj translation leaves no temporary file (in TMPDIR)" "" "$(ls "$TMP/tmpdir")"

finish
