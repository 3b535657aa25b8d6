# trace_run: replays give exactly the workload's calls per type and its ideal RSS; cross-thread
# workloads complete; dj/malloc workloads replay; the summary keeps the original layout line by
# line; compare mode, repeats, the RSS timeline and the options work; bad workloads are refused.
. tests/lib.sh
R="$BIN/trace_run"
csv() { # FILE FIELD: a field of the --csv line
	awk -F, -v k="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == k) c = i } NR == 2 { print $c }' "$1"
}
wl() { "$TP/wl_check" "$1" | awk -v k="$2" '$1 == k { print $2 }'; }

# --- workloads of real traced programs
traced "$TMP/m" "$ROOT/$B/bench/mbench" 2 100000 >/dev/null
"$BIN/trace2wl" -q --dj-format "$TMP/mdj" "$TMP/m.wl" "$(one_file "$TMP/m.*")"   # (mdj: not m.*)
( export GLIBC_TUNABLES=glibc.malloc.tcache_count=0:glibc.malloc.arena_max=1; traced "$TMP/x" "$TP/xthread" 4 20000 >/dev/null )
"$BIN/trace2wl" -q "$TMP/x.wl" "$(one_file "$TMP/x.*")"
traced "$TMP/e" "$TP/entry_points" --count >/dev/null
"$BIN/trace2wl" -q "$TMP/e.wl" "$(one_file "$TMP/e.*")"
# (ASan's allocator refuses some requests glibc grants: failed calls, accepted there)
allow=; [ "${SANITIZE:-}" = 1 ] && allow=--allow-failures
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

# --- more streams than replay threads: a program that created threads all its life
# (more than 10,000 were refused before); streams wait in order for a thread to come free, and
# a stream waiting for one nobody has taken gets a thread of its own (else: for ever)
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
# one at a time: the main thread and one more, also where the kernel gave a thread id again);
# 10,000 of them before, their stacks in RSS.  (Made in waves of 100, the figure depended on
# how the waves' threads were scheduled: 2 to 11.)
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
"$TP/mkfixture" trace-edge "$TMP/edge"
"$BIN/trace2wl" -q --dj-format "$TMP/edge.dj" "$TMP/edge.wl" "$TMP/edge"
mkdir "$TMP/tmpdir"
TMPDIR="$TMP/tmpdir" "$R" --csv "$TMP/edge.dj" >"$TMP/dj.csv"; eq "dj workload: exit 0" 0 "$?"
eq "dj workload: malloc calloc realloc free memalign-family (4 MEMALIGN + valloc + pvalloc)" "3 1 5 3 6" "$(for k in malloc_calls calloc_calls realloc_calls free_calls memalign_calls; do csv "$TMP/dj.csv" $k; done | tr '\n' ' ' | sed 's/ $//')"
eq "dj translation leaves no temporary file (in TMPDIR)" "" "$(ls "$TMP/tmpdir")"

# --- the summary, line by line (harnesses parse it by line number)
"$R" "$TMP/m.wl" >"$TMP/sum"
n() { sed -n "$1p" "$TMP/sum"; }
line() { # NUMBER(1-based) REGEX DESCRIPTION
	if n "$1" | grep -Eq "$2"; then ok "line $(($1 - 1)): $3"; else bad "line $(($1 - 1)) ($3): '$(n "$1")'"; fi
}
line 1 '^[0-9,]+ cycles$' "N cycles"
line 2 '^[0-9,]+ usec wall time$' "N usec wall time"
line 3 '^[0-9,]+ usec across 3 threads$' "N usec across T threads"
line 4 '^-?[0-9,]+ Kb Max RSS \([0-9,]+ -> [0-9,]+\)$' "N Kb Max RSS (START -> END)"
line 5 '^[0-9,]+ Kb Max Ideal RSS$' "N Kb Max Ideal RSS"
line 6 '^$' "empty"
line 7 '^sizeof ticks_t is 8$' "sizeof ticks_t is 8"
line 8 '^Avg malloc time: +[0-9,]+ in +[0-9,]+ calls$' "Avg malloc time"
line 9 '^Avg calloc time: +[0-9,]+ in +[0-9,]+ calls$' "Avg calloc time"
line 10 '^Avg realloc time: +[0-9,]+ in +[0-9,]+ calls$' "Avg realloc time"
line 11 '^Avg free time: +[0-9,]+ in +[0-9,]+ calls$' "Avg free time"
line 12 '^Total call time: [0-9,]+ cycles$' "Total call time"
line 13 '^$' "empty line before the extras"
eq "malloc count on line 7, comma-grouped" "$(wl "$TMP/m.wl" malloc | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')" "$(n 8 | awk '{ print $6 }')"
grep -q '^Timer: ' "$TMP/sum" && ok "the timer is named" || bad "timer line"
grep -q '^Harness memory: ' "$TMP/sum" && ok "harness memory reported" || bad "harness line"
"$R" --json "$TMP/m.wl" | grep -q '^{"cycles": [0-9]*, .*"malloc_calls": [0-9]*' && ok "--json" || bad "--json"

# --- call times as distributions (the histogram's arithmetic: tests/unit/u_lat_hist.c): the
# percentiles of a replay, in order, within the largest, in every output
grep -q '^Cycles a call, p50 / p90 / p99 / p99.9 / max:$' "$TMP/sum" && ok "the summary has the percentiles" || bad "no percentiles: $(sed -n '14,20p' "$TMP/sum")"
for k in malloc free; do
	row=$(awk -v k="$k" '$1 == k && NF == 10 { gsub(",", ""); print $2, $4, $6, $8, $10 }' "$TMP/sum")
	echo "$row" | awk 'NF == 5 && $1 > 0 && $1 <= $2 && $2 <= $3 && $3 <= $4 && $4 <= $5 { ok = 1 } END { exit !ok }' &&
		ok "$k: p50 <= p90 <= p99 <= p99.9 <= max ($row)" || bad "$k percentiles: '$row'"
done
"$R" --csv "$TMP/m.wl" >"$TMP/lat.csv"
for k in malloc free; do
	p50=$(csv "$TMP/lat.csv" ${k}_p50_cycles) p999=$(csv "$TMP/lat.csv" ${k}_p999_cycles)
	mx=$(csv "$TMP/lat.csv" ${k}_max_cycles) avg=$(csv "$TMP/lat.csv" ${k}_avg_cycles)
	[ "$p50" -gt 0 ] && [ "$p50" -le "$p999" ] && [ "$p999" -le "$mx" ] && [ "$avg" -le "$mx" ] &&
		ok "--csv: $k p50 $p50 <= p99.9 $p999 <= max $mx, avg $avg <= max" || bad "--csv $k: p50 '$p50' p99.9 '$p999' max '$mx' avg '$avg'"
done
"$R" --json "$TMP/m.wl" | grep -q '"free_p99_cycles": [1-9][0-9]*, ' && ok "--json: percentiles" || bad "--json: no free_p99_cycles"
# --latency: the whole distributions the percentiles come from, the same run's
"$R" --csv -L "$TMP/lat.tsv" "$TMP/m.wl" >"$TMP/latd.csv"; eq "--latency: exit 0" 0 "$?"
eq "--latency: first line names the allocator and the timer" "# trace_run latency: glibc, $(csv "$TMP/latd.csv" timer)" "$(head -n 1 "$TMP/lat.tsv")"
eq "--latency: column header" "class	cycles	calls	at_or_below" "$(sed -n 2p "$TMP/lat.tsv")"
for k in malloc free; do
	# the rows of a class: cycles and shares rising, the last share 1; calls adding up to the
	# class's calls; the last row's time the largest; the first row at 99% or more is p99
	got=$(awk -F'	' -v k="$k" 'NR > 2 && $1 == k {
		if (n && ($2 < c || $4 < f)) bad = 1
		c = $2; f = $4; n += $3; if (!p99 && $4 >= 0.99) p99 = $2 }
		END { print (bad ? "unordered" : "ordered"), n, c, f, p99 }' "$TMP/lat.tsv")
	eq "--latency: $k rows: in order, every call, the largest last, p99 where the summary has it" \
		"ordered $(csv "$TMP/latd.csv" ${k}_calls) $(csv "$TMP/latd.csv" ${k}_max_cycles) 1 $(csv "$TMP/latd.csv" ${k}_p99_cycles)" "$got"
done
"$R" -L "$TMP/nt.tsv" --no-timing "$TMP/m.wl" >/dev/null 2>"$TMP/err"; eq "--latency with --no-timing: exit 2" 2 "$?"
grep -q 'no call times' "$TMP/err" && ok "--latency with --no-timing: says why" || bad "--latency --no-timing: $(cat "$TMP/err")"
[ -e "$TMP/nt.tsv" ] && bad "--latency --no-timing left a file" || ok "--latency with --no-timing: no file"
"$R" -L - "$TMP/m.wl" >/dev/null 2>&1; eq "--latency -: exit 2 (standard output has the summary)" 2 "$?"
"$R" -L "$TMP/no/such/dir" "$TMP/m.wl" >"$TMP/out" 2>/dev/null; eq "--latency in a missing directory: exit 3" 3 "$?"
eq "--latency in a missing directory: refused before the replay (no summary)" 0 "$(wc -c <"$TMP/out")"
"$R" --compare glibc,glibc -L "$TMP/cl" "$TMP/m.wl" >/dev/null; eq "--compare --latency: exit 0" 0 "$?"
eq "--compare --latency: a file per allocator, named as --log's" "$TMP/cl.glibc $TMP/cl.glibc.2" "$(echo "$TMP"/cl.*)"
eq "--compare --latency: each names its allocator" "# trace_run latency: glibc" "$(head -n 1 "$TMP/cl.glibc.2" | cut -d, -f1)"

# --- options
"$R" -l "$TMP/tl.tsv" -i 5 "$TMP/m.wl" >/dev/null; eq "--log: exit 0" 0 "$?"
eq "--log: TSV header" "time_ms	vmrss_kb	vmsize_kb	ideal_kb	calls	anon_kb	mapped_kb" "$(head -n 1 "$TMP/tl.tsv")"
ge "--log: samples" 1 "$(tail -n +2 "$TMP/tl.tsv" | grep -c '^[0-9]*	[0-9]*	[0-9]*	[0-9]*	[0-9]*	[0-9]*	[0-9]*$')"
eq "--log: the last sample has every call done" "$(wl "$TMP/m.wl" calls)" "$(tail -n 1 "$TMP/tl.tsv" | cut -f 5)"
ge "--log: the ideal column saw live blocks" 1 "$(tail -n +2 "$TMP/tl.tsv" | awk '$4 > m { m = $4 } END { print m + 0 }')"
for t in none full pages resident; do "$R" --touch=$t "$TMP/m.wl" >/dev/null; eq "--touch=$t: exit 0" 0 "$?"; done
"$R" --mallopt M_MMAP_THRESHOLD=65536 --mallopt M_ARENA_MAX=1 --trim-every=1000 "$TMP/x.wl" >/dev/null; eq "--mallopt, --trim-every: exit 0" 0 "$?"
# malloc_trim from several threads at once while glibc's malloc is not set up (another allocator
# serves malloc, as under ASan): the lazy set-up raced and glibc aborted (5 runs in 60 under ASan)
bad_runs=0
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	"$R" --trim-every=1 "$TMP/x.wl" >/dev/null 2>&1 || bad_runs=$((bad_runs + 1))
done
eq "--trim-every=1 on 4 threads, 20 runs: none fails" 0 "$bad_runs"
"$R" --tunables=glibc.malloc.tcache_count=0 --csv "$TMP/m.wl" >"$TMP/tun.csv"; eq "--tunables: exit 0" 0 "$?"
eq "--tunables: same calls" "$(csv "$TMP/m.csv" malloc_calls)" "$(csv "$TMP/tun.csv" malloc_calls)"
"$R" -r 3 "$TMP/m.wl" >"$TMP/rep"; eq "-r 3: exit 0" 0 "$?"
grep -q '^Median of 3 runs, each in a fresh process$' "$TMP/rep" && ok "-r 3 reports medians" || bad "-r 3 output"
"$R" --mallopt M_BOGUS=1 "$TMP/m.wl" 2>/dev/null; eq "unknown mallopt: exit 2" 2 "$?"
# a tunable glibc does not know, or a value outside its range, is ignored by glibc without a
# word: refused, when the loader can list its tunables (glibc 2.33 on)
ldso=$(ls /lib64/ld-linux-*.so.* /lib/ld-linux-*.so.* 2>/dev/null | head -n 1)
if [ -n "$ldso" ] && "$ldso" --list-tunables 2>/dev/null | grep -q '^glibc.malloc.arena_max: .*(min: '; then
	"$R" --tunables=glibc.malloc.tcache_cnt=0 "$TMP/m.wl" >/dev/null 2>"$TMP/err"; eq "a misspelt tunable: exit 2" 2 "$?"
	grep -q "no tunable 'glibc.malloc.tcache_cnt'" "$TMP/err" && ok "a misspelt tunable: named" || bad "tunable: $(cat "$TMP/err")"
	"$R" --tunables=glibc.malloc.tcache_count=0:glibc.malloc.arena_max=0 "$TMP/m.wl" >/dev/null 2>"$TMP/err"
	eq "a tunable out of its range: exit 2" 2 "$?"
	grep -q "glibc.malloc.arena_max=0 is outside its range (1 to " "$TMP/err" && ok "out of range: says the range" || bad "range: $(cat "$TMP/err")"
	"$R" --tunables=glibc.malloc.arena_max=two "$TMP/m.wl" >/dev/null 2>&1; eq "a tunable that is not a number: exit 2" 2 "$?"
	"$R" --tunables=glibc.malloc.arena_max "$TMP/m.wl" >/dev/null 2>&1; eq "a tunable without a value: exit 2" 2 "$?"
	"$R" --tunables=glibc.malloc.tcache_count=0x10:glibc.malloc.arena_max=1 "$TMP/m.wl" >/dev/null; eq "good tunables, hex and decimal: exit 0" 0 "$?"
else
	echo "# the dynamic loader cannot list its tunables: their check is not run"
fi
# mallopt and glibc.malloc tunables tune glibc's malloc: with another allocator, said once
if [ "${SANITIZE:-}" != 1 ]; then
	"$R" --malloc "$TP/libfwd.so" --mallopt M_ARENA_MAX=1 "$TMP/m.wl" >/dev/null 2>"$TMP/err"; eq "--mallopt with another allocator: exit 0" 0 "$?"
	eq "--mallopt with another allocator: one warning" 1 "$(grep -c "mallopt sets glibc's malloc, which .*libfwd.so replaces" "$TMP/err")"
	"$R" --compare "glibc,$TP/libfwd.so" -r 2 --tunables=glibc.malloc.arena_max=1 "$TMP/m.wl" >/dev/null 2>"$TMP/err"
	eq "--compare, malloc tunables and another allocator: one warning in all" "1 1" \
		"$(grep -c "glibc.malloc tunables tune glibc's malloc only: the .*libfwd.so column is not affected" "$TMP/err") $(grep -c . "$TMP/err")"
fi
"$R" --touch=sometimes "$TMP/m.wl" 2>/dev/null; eq "bad --touch: exit 2" 2 "$?"

# --- progress: -p shows the calls replayed on stderr (the sampler's line, cleared at the end),
# naming the run in --compare/--repeat; stdout keeps the summary alone; without -p and a
# terminal, nothing
"$R" -p "$TMP/m.wl" >"$TMP/out" 2>"$TMP/err"; eq "-p: exit 0" 0 "$?"
calls=$(wl "$TMP/m.wl" calls)
grouped=$(echo "$calls" | sed ':a; s/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/; ta')
tr '\r' '\n' <"$TMP/err" | grep -q "^trace_run: $TMP/m.wl: [0-9]*% ([0-9,]* of $grouped calls)" &&
	ok "-p: a progress line of the workload's calls" || bad "-p: $(cat -A "$TMP/err" | head -c 300)"
tr '\r' '\n' <"$TMP/err" | tail -n 1 | grep -q '^ *$' && ok "-p: the line cleared at the end" || bad "-p not cleared: $(cat -A "$TMP/err" | tail -c 200)"
eq "-p: stdout is the summary alone" "cycles" "$(head -n 1 "$TMP/out" | awk '{ print $2 }')"
tr '\r' '\n' <"$TMP/err" | grep -q "^trace_run: checking $TMP/m.wl: 0% (0 of [0-9,]* operations)" &&
	ok "-p: the validation's progress too" || bad "-p validation: $(cat -A "$TMP/err" | head -c 300)"
"$R" "$TMP/m.wl" >/dev/null 2>"$TMP/err"; eq "no -p, no terminal: nothing on stderr" 0 "$(wc -c <"$TMP/err")"
"$R" -p -r 2 --csv "$TMP/m.wl" >/dev/null 2>"$TMP/err"; eq "-p -r 2: exit 0" 0 "$?"
eq "-p -r 2: each run named" "run 1 of 2, glibc run 2 of 2, glibc" \
	"$(tr '\r' '\n' <"$TMP/err" | sed -n 's/^trace_run: \(run [0-9] of 2, glibc\): .*/\1/p' | uniq | xargs)"
# a compressed workload: its decompression shows progress too (how much of the compressed
# file is read)
"$R" -p --csv "$TMP/m.wl.gz" >/dev/null 2>"$TMP/err"; eq "-p, compressed: exit 0" 0 "$?"
tr '\r' '\n' <"$TMP/err" | grep -q "^trace_run: decompressing $TMP/m.wl.gz: [0-9]*% ([0-9,]* MiB of [0-9,]* MiB compressed)" &&
	ok "-p: the decompression's progress" || bad "-p decompression: $(cat -A "$TMP/err" | head -c 300)"
# a dj/malloc workload: its translation (in a child process) shows progress too
"$R" -p --csv "$TMP/mdj" >"$TMP/out" 2>"$TMP/err"; eq "-p, dj/malloc workload: exit 0" 0 "$?"
eq "dj/malloc workload: every free" "$(wl "$TMP/m.wl" free)" "$(csv "$TMP/out" free_calls)"
tr '\r' '\n' <"$TMP/err" | grep -q "^trace_run: translating $TMP/mdj: [0-9]*% ([0-9,]* of [0-9,]* operations)" &&
	ok "-p: the translation's progress" || bad "-p translation: $(cat -A "$TMP/err" | head -c 300)"

# --- Max RSS is the replay's: a 10 MB workload whose program never held more than a few
# hundred KiB.  Validation reads the whole file before the replay, and its pages made START
# (and so END) the file's size, hiding the allocator's growth (START 70 MB, growth 512 KB for
# a 70 MB workload before); now START is the process before the replay, and growth stays far
# below the file's size.
traced "$TMP/big" "$ROOT/$B/bench/mbench" 1 3000000 >/dev/null
"$BIN/trace2wl" -q "$TMP/big.wl" "$(one_file "$TMP/big.*")"
file_kb=$(( $(stat -c %s "$TMP/big.wl") / 1024 ))
"$R" --touch=none --csv "$TMP/big.wl" >"$TMP/big.csv"; eq "a 10 MB workload: exit 0" 0 "$?"
start=$(csv "$TMP/big.csv" maxrss_start_kb) growth=$(csv "$TMP/big.csv" maxrss_growth_kb)
if [ "${SANITIZE:-}" != 1 ]; then   # ASan: its shadow memory, and a quarantine of freed blocks
	[ "$start" -lt "$file_kb" ] && ok "Max RSS START ($start KiB) is not the workload's $file_kb KiB" ||
		bad "Max RSS START $start KiB, the workload $file_kb KiB: the workload's pages count"
	[ "$growth" -lt $((file_kb / 2)) ] && ok "Max RSS growth ($growth KiB) is the replay's, far below the file's $file_kb KiB" ||
		bad "Max RSS growth $growth KiB for a workload of $file_kb KiB whose ideal RSS is $(csv "$TMP/big.csv" ideal_rss_kb) KiB"
fi

# --- one meaning per figure: Max RSS is the growth of the peak resident set during the replay,
# in a single run's summary and in --compare's table alike (the table showed the absolute peak,
# harness included), with its START -> END; the units are said once, after the 12 lines.  A
# 4 MiB block, touched: the process's own few MiB before the replay would show as a difference.
printf '= Start\n+ 0x10000 0x400000\n- 0x10000\n= End\n' >"$TMP/four.log"
"$BIN/trace_import" "$TMP/four.log" "$TMP/four.trace" && "$BIN/trace2wl" -q "$TMP/four.wl" "$TMP/four.trace"
"$R" "$TMP/four.wl" >"$TMP/one"
"$R" --compare glibc "$TMP/four.wl" >"$TMP/cmp1"
g1=$(sed -n 's/^\([0-9,]*\) Kb Max RSS (\([0-9,]*\) -> \([0-9,]*\))$/\1 \2 \3/p' "$TMP/one" | tr -d ,)
g2=$(awk '/^Max RSS \(KiB\)/ { print $NF }' "$TMP/cmp1" | tr -d ,)
se=$(awk '/^  START -> END \(KiB\)/ { print $(NF - 2), $NF }' "$TMP/cmp1" | tr -d ,)
set -- $g1
[ $# -eq 3 ] && [ "$1" -eq $(($3 - $2)) ] && ok "a single run: Max RSS ($1 KiB) is END - START ($3 - $2)" || bad "single run Max RSS: '$g1'"
single=${1:-0}
set -- $se
[ $# -eq 2 ] && [ "${g2:-x}" -eq $(($2 - $1)) ] 2>/dev/null && ok "--compare: Max RSS ($g2 KiB) is END - START ($2 - $1)" ||
	bad "compare Max RSS: '$g2', START -> END '$se': $(grep RSS "$TMP/cmp1")"
# (the same replay in two processes: within a tenth of each other; the peak with the process's
# own pages, which the table gave before, is more than that apart)
[ "${g2:-0}" -gt 0 ] && [ $(( (single - g2) * 10 )) -le "$g2" ] && [ $(( (g2 - single) * 10 )) -le "$g2" ] &&
	ok "a single run and --compare: the same Max RSS ($single, $g2 KiB)" || bad "Max RSS: single run $single KiB, --compare $g2 KiB"
grep -q '^Units: Kb is KiB; "usec across N threads" is the replay threads'"'"' user CPU time;$' "$TMP/one" &&
	ok "the units said after the 12 lines" || bad "units: $(grep -i units "$TMP/one")"
"$R" --help | grep -q "Kb\$" && "$R" --help | grep -q "^is KiB" && ok "--help says what Kb is" || bad "--help: units"

# --- failures that show: a replay made to fail (an address-space limit its malloc of 1 GiB
# does not fit; under ASan, the largest allocation it allows) where the program's call
# succeeded: counted on a line of its own right after the original 12, named with the first
# call, exit 4 (0 with --allow-failures); a --compare column so marked, without ratios
printf '= Start\n+ 0x10000 0x100\n+ 0x20000 0x40000000\n- 0x20000\n- 0x10000\n= End\n' >"$TMP/gig.log"
"$BIN/trace_import" "$TMP/gig.log" "$TMP/gig.trace" && "$BIN/trace2wl" -q "$TMP/gig.wl" "$TMP/gig.trace"
limited() { if [ "${SANITIZE:-}" = 1 ]; then ASAN_OPTIONS="$ASAN_OPTIONS:max_allocation_size_mb=512" "$@"; else (ulimit -v 400000; "$@"); fi; }
limited "$R" "$TMP/gig.wl" >"$TMP/out" 2>"$TMP/err"
eq "a replay whose malloc fails: exit 4" 4 "$?"
first='1 call that succeeded in the program failed (the first: a malloc of 1,073,741,824 bytes, stream 0, its call 2)'
eq "... the failure on line 13, after the 12" "FAILED: $first: the figures above are not comparable" "$(sed -n 13p "$TMP/out")"
sed -n 1,12p "$TMP/out" | grep -q FAILED && bad "... the 12 lines changed" || ok "... the 12 lines as they were"
# (ASan warns of the allocation it refuses, in lines of its own: ==PID==WARNING)
eq "... and on stderr, naming the workload" "trace_run: $TMP/gig.wl: $first: the figures are not comparable (--allow-failures accepts them)" "$(grep -v '^==' "$TMP/err")"
limited "$R" --allow-failures "$TMP/gig.wl" >"$TMP/out" 2>"$TMP/err"
eq "--allow-failures: exit 0, still reported" "0 1 0" "$? $(grep -c '^FAILED: ' "$TMP/out") $(grep -v '^==' "$TMP/err" | wc -c)"
limited "$R" --csv "$TMP/gig.wl" >"$TMP/out" 2>/dev/null
eq "--csv: exit 4, the failure in its fields" "4 1 1073741824 2" "$? $(csv "$TMP/out" replay_failed_calls) $(csv "$TMP/out" first_failed_bytes) $(csv "$TMP/out" first_failed_call)"
limited "$R" --compare glibc,glibc "$TMP/gig.wl" >"$TMP/out" 2>"$TMP/err"
eq "--compare, calls failed: exit 4" 4 "$?"
grep -q '^wall time (usec) *[0-9,]*! *[0-9,]*!$' "$TMP/out" && ok "--compare: both columns marked, no ratio" || bad "compare marks: $(head -n 3 "$TMP/out")"
eq "--compare: what failed, under the table" 2 "$(grep -c "^(!: with glibc, $first: its figures are not comparable)$" "$TMP/out")"
grep -q 'ratios to' "$TMP/out" && bad "--compare: ratios offered" || ok "--compare: no ratios offered"
eq "--compare: a line on stderr for each" 2 "$(grep -c "^trace_run: the replay with glibc: $first" "$TMP/err")"

# --- the list of allocators: an empty name, or more than 16, refused (one was dropped, the
# 17th left out without a word)
"$R" --compare glibc,,glibc "$TMP/m.wl" >/dev/null 2>"$TMP/err"; eq "--compare with an empty name: exit 2" 2 "$?"
grep -q "separated by single commas, not 'glibc,,glibc'" "$TMP/err" && ok "--compare, empty name: says so" || bad "empty: $(cat "$TMP/err")"
"$R" --compare glibc, "$TMP/m.wl" >/dev/null 2>&1; eq "--compare with a trailing comma: exit 2" 2 "$?"
"$R" --compare glibc,glibc,glibc,glibc,glibc,glibc,glibc,glibc,glibc,glibc,glibc,glibc,glibc,glibc,glibc,glibc,glibc "$TMP/m.wl" >/dev/null 2>"$TMP/err"
eq "--compare with 17 allocators: exit 2" 2 "$?"

# --- the allocators' settings the program ran with: recorded by the tracer (GLIBC_TUNABLES,
# MALLOC_*, MIMALLOC_*, TCMALLOC_*; nothing else), carried into the workload, named beside the
# replay's own, and usable as a --compare column as printed
( export GLIBC_TUNABLES=glibc.malloc.arena_max=1 MALLOC_TOP_PAD_=131072 MIMALLOC_SHOW_STATS=0 NOT_A_SETTING=1
  traced "$TMP/set" "$TP/xthread" 4 2000 >/dev/null )
st=$(one_file "$TMP/set.*")
"$BIN/trace_dump" -H "$st" | grep '^# settings' | tr ' ' '\n' | grep = | sort >"$TMP/set.got"
printf '%s\n' GLIBC_TUNABLES=glibc.malloc.arena_max=1 MALLOC_TOP_PAD_=131072 MIMALLOC_SHOW_STATS=0 >"$TMP/set.want"
check "settings: the trace's header holds the allocators' settings, and only those" cmp "$TMP/set.want" "$TMP/set.got"
"$BIN/trace_pack" -q -A -o "$TMP/set.gz" "$st" >/dev/null
"$BIN/trace_dump" -H "$TMP/set.gz" | grep -q '^# settings .*GLIBC_TUNABLES=glibc.malloc.arena_max=1' &&
	ok "settings: kept by trace_pack --anonymize" || bad "settings lost by --anonymize: $("$BIN/trace_dump" -H "$TMP/set.gz" | grep settings)"
eq "settings: trace_stats --tsv names them" 3 "$("$BIN/trace_stats" --tsv "$st" | awk -F'\t' '$1 == "trace" && $2 == "settings"' | tr ' ' '\n' | grep -c =)"
"$BIN/trace2wl" "$TMP/set.wl" "$st" 2>"$TMP/err"
grep -q '^  settings  .*MALLOC_TOP_PAD_=131072' "$TMP/err" && ok "settings: in trace2wl's summary" || bad "trace2wl summary: $(tail -n 2 "$TMP/err")"
"$BIN/trace_dump" -H "$TMP/set.wl" | grep -q '^# settings  .*MIMALLOC_SHOW_STATS=0' && ok "settings: in the workload's header" || bad "workload header: $("$BIN/trace_dump" -H "$TMP/set.wl")"
settings=$("$BIN/trace_dump" -H "$TMP/set.wl" | sed -n 's/^# settings  \(.*\) (the allocators.*/\1/p')
"$R" "$TMP/set.wl" >"$TMP/out"; eq "settings: replay exit 0" 0 "$?"
libc=$(basename "$("$BIN/trace_dump" -H "$st" | sed -n 's/^# allocator \(.*\), glibc .*/\1/p')")
case "$libc" in libc.so*) ok "settings: the trace names the allocator that served it ($libc)" ;; *) bad "allocator: '$libc'" ;; esac
eq "settings: named beside the replay's own" "Allocator as traced: $libc, with $settings; this replay: glibc, with no settings" "$(grep '^Allocator as traced' "$TMP/out")"
"$R" -T glibc.malloc.arena_max=2 -M M_TOP_PAD=4096 "$TMP/set.wl" | grep -q '; this replay: glibc, with GLIBC_TUNABLES=glibc.malloc.arena_max=2 M_TOP_PAD=4096$' &&
	ok "settings: the replay's own --tunables and --mallopt named" || bad "replay settings line"
"$R" "$TMP/m.wl" | grep -q '^Allocator as traced' && bad "settings: a line where neither had any" || ok "settings: no line where neither had any (glibc both, no settings)"
"$R" --compare "glibc,glibc($settings)" "$TMP/set.wl" >"$TMP/out"; eq "settings: the column as printed is accepted" 0 "$?"
grep -q -F "(the traced program ran on $libc, with $settings: a column 'traced', glibc($settings), replays it so)" "$TMP/out" &&
	ok "settings: named under the --compare table, with the column" || bad "compare footnote: $(tail -n 1 "$TMP/out")"
# 'traced': the allocator and settings the workload says the program ran with, as --malloc or
# a --compare column
"$R" -m traced "$TMP/set.wl" >"$TMP/out"; eq "--malloc traced: exit 0" 0 "$?"
eq "--malloc traced: the replay named by what it stands for" "Allocator: glibc($settings)" "$(grep '^Allocator:' "$TMP/out")"
line=$(grep '^Allocator as traced' "$TMP/out")
n=0; for s in $settings; do case "$line" in *"this replay: glibc, with "*"$s"*) n=$((n + 1)) ;; esac; done
eq "--malloc traced: the replay ran with each of the program's settings" 3 "$n"
"$R" -m traced -l "$TMP/tr.tsv" "$TMP/m.wl" >"$TMP/out"; eq "--malloc traced, no settings: exit 0" 0 "$?"
eq "--malloc traced, no settings: plain glibc" "Allocator: glibc" "$(grep '^Allocator:' "$TMP/out")"
check "--malloc traced: --log written as named (one run)" test -s "$TMP/tr.tsv"
"$R" --compare traced,glibc --csv "$TMP/set.wl" >"$TMP/tc.csv"; eq "--compare traced,glibc: exit 0" 0 "$?"
eq "--compare traced,glibc: the first column as it ran" "glibc($settings)|glibc" \
	"$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "allocator") c = i } NR > 1 { print $c }' "$TMP/tc.csv" | tr -d '"' | paste -sd'|')"
"$R" -m traced "$TMP/edge.dj" >/dev/null 2>"$TMP/err"; eq "--malloc traced of a dj workload: exit 2" 2 "$?"
grep -q 'does not say what the program ran on' "$TMP/err" && ok "--malloc traced of a dj workload: says why" || bad "traced dj: $(cat "$TMP/err")"
"$R" --compare 'traced(M_ARENA_MAX=2)' "$TMP/set.wl" >/dev/null 2>"$TMP/err"; eq "traced with settings of its own: exit 2" 2 "$?"
if [ "${SANITIZE:-}" != 1 ]; then   # (another allocator cannot be preloaded into an ASan process)
	# traced on another allocator (preloaded after the tracer): the trace and the workload name it,
	# and a replay on glibc says it runs on another
	( MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/fwd" LD_PRELOAD="$LIB $TP/libfwd.so" "$TP/bigalloc" 1000 >/dev/null )
	fw=$(one_file "$TMP/fwd.*")
	"$BIN/trace_dump" -H "$fw" | grep -q "^# allocator $TP/libfwd.so, not glibc$" && ok "allocator: the trace names the one after the tracer" ||
		bad "allocator: $("$BIN/trace_dump" -H "$fw" | grep allocator)"
	"$BIN/trace_stats" --diff "$st" "$fw" >"$TMP/diff"
	grep -q -F "A: $st (on " "$TMP/diff" && grep -q -F ", with $settings)" "$TMP/diff" &&
		grep -q -F "B: $fw (on $TP/libfwd.so, with no settings)" "$TMP/diff" &&
		ok "allocator: trace_stats --diff says what each trace ran on and with" || bad "diff: $(head -n 2 "$TMP/diff")"
	"$BIN/trace2wl" -q "$TMP/fwd.wl" "$fw"
	"$BIN/trace_dump" -H "$TMP/fwd.wl" | grep -q '^# allocator libfwd.so (the one it ran on)$' && ok "allocator: the workload names it" || bad "workload allocator"
	"$R" "$TMP/fwd.wl" | grep -q '^Allocator as traced: libfwd.so, with no settings; this replay: glibc, with no settings$' &&
		ok "allocator: a replay on another one says so" || bad "replay on another: $("$R" "$TMP/fwd.wl" | tail -n 1)"
	"$R" --malloc "$TP/libfwd.so" "$TMP/fwd.wl" | grep -q '^Allocator as traced' && bad "allocator: a line when the replay runs on the same" || ok "allocator: no line when the replay runs on the same"
	"$R" -m traced "$TMP/fwd.wl" >/dev/null 2>"$TMP/err"; eq "--malloc traced, an allocator known by path only: exit 2" 2 "$?"
	grep -q 'the program ran on libfwd.so, which trace_run knows by its path only' "$TMP/err" && ok "--malloc traced: asks for the path" || bad "traced path: $(cat "$TMP/err")"
fi
if [ "${SANITIZE:-}" != 1 ]; then   # four threads, one arena: the program's own setting at work
	"$R" --compare "glibc,glibc($settings)" --csv "$TMP/set.wl" >"$TMP/set.csv"
	vsz=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "peak_vmsize_kb") c = i } NR > 1 { printf "%s ", $c }' "$TMP/set.csv")
	set -- $vsz
	[ "$2" -lt $(($1 - 32768)) ] && ok "settings: GLIBC_TUNABLES=... in a column took effect (VmSize $vsz)" || bad "GLIBC_TUNABLES column: VmSize $vsz"
fi

# --- a column with settings of its own: NAME(SETTING ...), glibc tunables, mallopt parameters
# and environment variables, each reaching its own column's run and no other
"$R" --compare 'glibc,glibc(M_ARENA_MAX=1),glibc(glibc.malloc.arena_max=1 M_TOP_PAD=0)' -l "$TMP/vl" --csv "$TMP/x.wl" >"$TMP/v.csv"
eq "--compare with settings: exit 0" 0 "$?"
eq "--compare with settings: a row each, named as written" "glibc|glibc(M_ARENA_MAX=1)|glibc(glibc.malloc.arena_max=1 M_TOP_PAD=0)" \
	"$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "allocator") c = i } NR > 1 { print $c }' "$TMP/v.csv" | paste -sd'|')"
eq "--compare with settings: a timeline each, named by the allocator" "vl.glibc vl.glibc.2 vl.glibc.3" "$(cd "$TMP" && ls vl.* | xargs)"
"$R" --compare 'glibc,glibc(M_ARENA_MAX=1)' -L "$TMP/vlat" "$TMP/m.wl" >/dev/null; eq "--compare with settings, --latency: exit 0" 0 "$?"
eq "--compare with settings, --latency: the file names its column" "# trace_run latency: glibc(M_ARENA_MAX=1)" "$(head -n 1 "$TMP/vlat.glibc.2" | cut -d, -f1)"
if [ "${SANITIZE:-}" != 1 ]; then   # (ASan's allocator has no arenas)
	# four threads: glibc gives each its own arena, 64 MiB of address space each, unless limited
	vsz=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "peak_vmsize_kb") c = i } NR > 1 { printf "%s ", $c }' "$TMP/v.csv")
	set -- $vsz
	[ "$2" -lt $(($1 - 32768)) ] && [ "$3" -lt $(($1 - 32768)) ] &&
		ok "--compare with settings: M_ARENA_MAX=1 and glibc.malloc.arena_max=1 took effect in their columns only (VmSize $vsz)" ||
		bad "--compare with settings: arena limits without effect: VmSize $vsz"
	# an environment variable: the library's crash switch, set in the second column only
	LIBFWD_CRASH_AT= "$R" --compare "$TP/libfwd.so,$TP/libfwd.so(LIBFWD_CRASH_AT=500)" "$TMP/m.wl" >"$TMP/out" 2>"$TMP/err"
	eq "--compare, an environment setting: the column that has it crashed (exit 3)" 3 "$?"
	grep -q '^wall time (usec) *[0-9,]* *failed$' "$TMP/out" && ok "--compare, an environment setting: the other column unaffected" ||
		bad "environment setting: $(head -n 2 "$TMP/out")"
	# with 3 runs or more a ratio within the runs' spread is marked '~': the ideal RSS (the same
	# in every run) is; a malloc slowed by far more than a busy machine's spread (each call
	# counts to 20,000 first: some 25,000 cycles against about 100) is not.  The slow column is
	# checked against what its loop must cost, a floor no load can lower (at most one
	# iteration a core cycle, and the TSC ticks at least a quarter as fast as the core), not
	# by its ratio to the other column, which depends on how busy the machine is.
	traced "$TMP/sm" "$ROOT/$B/bench/mbench" 1 20000 >/dev/null
	"$BIN/trace2wl" -q "$TMP/sm.wl" "$(one_file "$TMP/sm.*")"
	"$R" --compare "$TP/libfwd.so,$TP/libfwd.so(LIBFWD_SLOW=20000)" -r 3 "$TMP/sm.wl" >"$TMP/sp"; eq "--compare -r 3: exit 0" 0 "$?"
	grep -q '^avg malloc (cycles) .*[0-9]x)$' "$TMP/sp" && ok "--compare -r 3: a slower malloc, unmarked" || bad "slow malloc marked: $(grep '^avg malloc' "$TMP/sp")"
	ge "--compare -r 3: the slower malloc's average, in cycles" 5000 "$(awk '/^avg malloc/ { gsub(/,/, "", $(NF - 1)); print $(NF - 1) }' "$TMP/sp")"
	grep -q '^ideal RSS (KiB) .*(1.00x~)$' "$TMP/sp" && ok "--compare -r 3: the same figure in every run, marked ~" || bad "ideal RSS: $(grep '^ideal' "$TMP/sp")"
	grep -q "^(~: the columns' runs overlap" "$TMP/sp" && ok "--compare -r 3: the mark explained" || bad "no note on ~: $(tail -n 2 "$TMP/sp")"
	"$R" --compare "glibc,$TP/libfwd.so" "$TMP/m.wl" >"$TMP/sp1"
	grep -q '~' "$TMP/sp1" && bad "--compare, one run: marks ($(grep '~' "$TMP/sp1" | head -n 1))" || ok "--compare, one run: no marks"
	grep -q '^(-r 3 or more marks the ratios within' "$TMP/sp1" && ok "--compare, one run: says how to see the spread" || bad "one run: $(tail -n 1 "$TMP/sp1")"
	"$R" --compare "glibc,$TP/libfwd.so(M_ARENA_MAX=1)" "$TMP/m.wl" >/dev/null 2>"$TMP/err"; eq "glibc settings on another allocator's column: exit 0" 0 "$?"
	eq "glibc settings on another allocator's column: one warning, naming the column" 1 \
		"$(grep -c "libfwd.so(M_ARENA_MAX=1): its mallopt and glibc.malloc settings tune glibc's malloc, which .*libfwd.so replaces" "$TMP/err")"
fi
"$R" --compare 'glibc,glibc(M_ARENA_MAX=1)' "$TMP/m.wl" >"$TMP/vt"; eq "--compare with settings, the table: exit 0" 0 "$?"
eq "--compare with settings, the table: every line as wide as the header (a wider column)" 1 \
	"$(head -n 14 "$TMP/vt" | awk '{ print length($0) }' | sort -u | wc -l)"
head -n 1 "$TMP/vt" | grep -q ' glibc(M_ARENA_MAX=1)$' && ok "--compare with settings, the table: the column named as written" || bad "header: $(head -n 1 "$TMP/vt")"
for v in 'glibc(M_NOSUCH=1)' 'glibc(arena_max)' 'glibc(LD_PRELOAD=/x.so)' 'glibc(MTRACE_CTL_FILE=/x)' 'glibc(M_ARENA_MAX=1' \
	 'glibc(M_ARENA_MAX=1)x' 'glibc)' 'glibc(M_ARENA_MAX=x)'; do
	"$R" --compare "glibc,$v" "$TMP/m.wl" >"$TMP/out" 2>"$TMP/err"
	eq "--compare '$v': exit 2, one line, nothing replayed" "2 1 0" "$? $(wc -l <"$TMP/err") $(wc -c <"$TMP/out")"
done
"$R" --compare 'glibc(arena_max)' "$TMP/m.wl" 2>"$TMP/err" >/dev/null
grep -q "'arena_max' in 'glibc(arena_max)' is not a setting: NAME=VALUE" "$TMP/err" && ok "--compare, not a setting: says what a setting is" || bad "not a setting: $(cat "$TMP/err")"
ldso=$(ls /lib64/ld-linux*.so.* /lib/ld-linux*.so.* 2>/dev/null | head -n 1)
if [ -n "$ldso" ] && "$ldso" --list-tunables 2>/dev/null | grep -q '^glibc.malloc'; then   # (what it checks against)
	"$R" --compare 'glibc(glibc.malloc.nosuch=1)' "$TMP/m.wl" >/dev/null 2>"$TMP/err"; eq "--compare, an unknown glibc tunable in a column: exit 2" 2 "$?"
else
	echo "# this glibc cannot list its tunables: an unknown one cannot be refused"
fi
"$R" --malloc 'glibc(M_ARENA_MAX=1)' "$TMP/m.wl" >/dev/null 2>"$TMP/err"; eq "--malloc with settings: exit 2" 2 "$?"
grep -q "settings in parentheses are for --compare's columns" "$TMP/err" && ok "--malloc with settings: says where they go" || bad "--malloc settings: $(cat "$TMP/err")"

# --- compare mode with whichever allocators are installed
list=glibc
others="jemalloc:libjemalloc.so.2 tcmalloc:libtcmalloc_minimal.so.4 mimalloc:libmimalloc.so.2"
if [ "${SANITIZE:-}" = 1 ]; then
	echo "# sanitized build: another allocator cannot be preloaded into an ASan process; glibc only"
	others=""
fi
for a in $others; do
	ls /usr/lib/*/"${a#*:}" >/dev/null 2>&1 && list="$list,${a%%:*}" || echo "# ${a%%:*} not installed: left out of the comparison"
done
"$R" --compare "$list" -r 2 "$TMP/x.wl" >"$TMP/cmp"; eq "--compare $list: exit 0" 0 "$?"
cat "$TMP/cmp"
eq "--compare: a column per allocator" "$(echo "$list" | tr ',' ' ')" "$(head -n 1 "$TMP/cmp" | xargs)"
for row in 'wall time' 'Max RSS' 'ideal RSS' 'avg malloc' 'avg free' 'p99 malloc' 'p99 free'; do
	grep -q "^$row" "$TMP/cmp" && ok "--compare: row $row" || bad "--compare: no row $row"
done
[ "$list" != glibc ] && { grep -q '(.*x)' "$TMP/cmp" && ok "--compare: ratios to the first column" || bad "no ratios"; }
# allocators given by path: each replayed (a library defining malloc), each its own timeline,
# also two of one file name (they shared FILE.custom, the second overwriting the first)
if [ "${SANITIZE:-}" != 1 ]; then
	mkdir -p "$TMP/a" "$TMP/b"; cp "$TP/libfwd.so" "$TMP/a/"; cp "$TP/libfwd.so" "$TMP/b/"
	"$R" --compare "glibc,$TMP/a/libfwd.so,$TMP/b/libfwd.so" -l "$TMP/lg" "$TMP/m.wl" >/dev/null
	eq "--compare of two libraries by path: exit 0" 0 "$?"
	eq "--compare --log: a timeline each" "lg.glibc lg.libfwd.so lg.libfwd.so.3" "$(cd "$TMP" && ls lg.* | xargs)"
	# a library whose path holds a quote and a backslash (not a comma: --compare splits there;
	# nor a space: LD_PRELOAD does, which is refused): --json and --csv stay valid
	# the replay traced (mtracectl -- trace_run --malloc X): X goes after the tracer, which
	# records every call of the replay and forwards it to X
	rm -f "$TMP"/rt.*
	MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/rt" LD_PRELOAD="$LIB" "$R" --malloc "$TP/libfwd.so" "$TMP/m.wl" >/dev/null
	eq "a traced replay with --malloc: exit 0" 0 "$?"
	rt=$(one_file "$TMP/rt.*.1")   # the image after the re-execution
	ge "a traced replay with --malloc: the replay's mallocs recorded" "$(wl "$TMP/m.wl" malloc)" "$(count "$rt" malloc)"
	# the round trip: the replay of a workload, traced and converted, is that workload again -
	# every call of each type - plus what glibc allocates for the threads the harness creates
	# (a calloc each, and frees at their exit; the harness's own tables, stdio buffer and
	# validation never use the allocator under test); for a single-thread workload, whose replay runs in the
	# trace's order, the same ideal RSS too (plus 64 KiB).  (Threads that do not wait for each
	# other interleave otherwise in a replay: live bytes then add up differently.)
	traced "$TMP/one" "$ROOT/$B/bench/mbench" 1 50000 >/dev/null
	one_trace=$(one_file "$TMP/one.*")
	"$BIN/trace2wl" -q "$TMP/one.wl" "$one_trace"
	for w in one m x; do
		rm -f "$TMP"/rr.*
		traced "$TMP/rr" "$R" --touch=none "$TMP/$w.wl" >/dev/null; eq "$w: traced replay: exit 0" 0 "$?"
		"$BIN/trace2wl" -q "$TMP/rr.wl" "$(one_file "$TMP/rr.*")"; eq "$w: the replay's trace converts" 0 "$?"
		nth=$(wl "$TMP/$w.wl" threads)
		for k in malloc calloc realloc free memalign posix_memalign aligned_alloc valloc pvalloc; do
			a=$(wl "$TMP/$w.wl" $k) b=$(wl "$TMP/rr.wl" $k)
			slack=$((nth + 2)); [ $k = free ] && slack=$((16 * nth + 16))
			[ "$b" -ge "$a" ] && [ "$b" -le $((a + slack)) ] && ok "$w: round trip: $k $a, replayed $b" ||
				bad "$w: round trip: $k: workload $a, the replay's trace $b"
		done
	done
	# a dj/malloc workload is translated before the re-execution, never by the allocator under
	# test: its replay makes the same allocator calls as the replay of its translation
	"$BIN/trace2wl" -q --dj-format "$TMP/one.dj" "$TMP/one2.wl" "$one_trace"
	"$TP/dj_wl_scan" --to-ours "$TMP/one.dj" "$TMP/one.djwl"
	for f in djwl dj; do
		rm -f "$TMP"/rd.*
		traced "$TMP/rd" "$R" --touch=none --malloc "$TP/libfwd.so" "$TMP/one.$f" >/dev/null
		eq "one.$f: traced replay with --malloc: exit 0" 0 "$?"
		rd=$(one_file "$TMP/rd.*.1")   # the image after the re-execution
		for k in malloc calloc realloc free; do eval "n_${f}_$k=\$(count \"\$rd\" $k)"; done
	done
	for k in malloc calloc realloc free; do
		eval "a=\$n_djwl_$k b=\$n_dj_$k"
		eq "a dj workload's replay: as many ${k}s as its translation's ($a)" "$a" "$b"
	done
	rm -f "$TMP"/rr.*
	traced "$TMP/rr" "$R" --touch=none "$TMP/one.wl" >/dev/null
	"$BIN/trace2wl" -q "$TMP/rr.wl" "$(one_file "$TMP/rr.*")"
	a=$(wl "$TMP/one.wl" ideal_rss) b=$(wl "$TMP/rr.wl" ideal_rss)
	[ "$b" -ge "$a" ] && [ "$b" -le $((a + 65536)) ] && ok "one thread: round trip: ideal RSS $a, replayed $b" ||
		bad "one thread: round trip: ideal RSS: workload $a, the replay's trace $b"
	# an allocator that crashes: where, which signal, no timeline left; compare mode says which
	LIBFWD_CRASH_AT=500 "$R" --malloc "$TP/libfwd.so" -l "$TMP/crash.tsv" "$TMP/m.wl" >/dev/null 2>"$TMP/err"
	eq "a crashing allocator: ends by SIGSEGV" 139 "$?"
	grep -q "the replay crashed (SIGSEGV, a bad memory access) in stream [0-9,]* (thread [0-9]*), at its call [0-9,]* of [0-9,]*" "$TMP/err" &&
		ok "a crashing allocator: where it crashed" || bad "crash: $(cat "$TMP/err")"
	# and how to see the calls before it: the command it gives shows the call it crashed at,
	# a malloc (libfwd crashes in its 500th)
	at=$(sed -n 's/.*at its call \([0-9,]*\) of .*/\1/p' "$TMP/err" | tr -d ,)
	cmd=$(sed -n 's/^trace_run: the calls before it: //p' "$TMP/err")
	case "$cmd" in "trace_dump -s "*" -n 20 $TMP/m.wl") ok "a crashing allocator: the trace_dump command to look" ;; *) bad "crash hint: '$cmd'" ;; esac
	"$BIN"/$cmd | awk -v at="$at" '$2 == at && $3 ~ /^malloc\(/ { f = 1 } END { exit !f }' &&
		ok "a crashing allocator: that command shows its call $at, a malloc" || bad "crash hint's dump: $("$BIN"/$cmd | tail -n 3)"
	eq "a crashing allocator: no timeline, no temporary file" 0 "$(ls "$TMP" | grep -c crash.tsv)"
	# killed outright (SIGKILL: no handler runs) replaying a dj/malloc workload, which is
	# translated into a temporary file: none is left
	mkdir -p "$TMP/ktmp"
	LIBFWD_KILL_AT=500 TMPDIR="$TMP/ktmp" "$R" --malloc "$TP/libfwd.so" "$TMP/mdj" >/dev/null 2>&1
	eq "SIGKILL mid-replay: ends by SIGKILL" 137 "$?"
	eq "SIGKILL mid-replay: no temporary workload left" "" "$(ls "$TMP/ktmp")"
	LIBFWD_CRASH_AT=500 "$R" --compare "glibc,$TP/libfwd.so" "$TMP/m.wl" >"$TMP/out" 2>"$TMP/err"
	eq "--compare with a crashing allocator: exit 3" 3 "$?"
	grep -q "the replay with $TP/libfwd.so failed: killed by signal 11 (Segmentation fault)" "$TMP/err" &&
		ok "--compare names the allocator and the signal" || bad "compare crash: $(cat "$TMP/err")"
	grep -q '^wall time (usec) *[0-9,]* *failed$' "$TMP/out" && ok "--compare: the others' figures stand, the crashed column says failed" ||
		bad "compare crash table: $(head -n 2 "$TMP/out")"
	# an allocator that deadlocks (its 500th malloc never returns): after --timeout seconds
	# without a call completed, the replay ends as a crash does, saying where, exit 3; under
	# --compare the other columns' figures print.  (timeout 300: the test fails, not hangs,
	# where the replay would wait for ever.)
	LIBFWD_HANG_AT=500 timeout 300 "$R" --timeout=2 --malloc "$TP/libfwd.so" -l "$TMP/hang.tsv" "$TMP/m.wl" >/dev/null 2>"$TMP/err"
	eq "a deadlocked allocator: exit 3" 3 "$?"
	grep -q "^trace_run: the replay made no progress for 2 s (--timeout): no call completed in stream [0-9,]* (thread [0-9]*), at its call [0-9,]* of [0-9,]*" "$TMP/err" &&
		ok "a deadlocked allocator: says so, and where" || bad "deadlock: $(cat "$TMP/err")"
	at=$(sed -n 's/.*at its call \([0-9,]*\) of .*/\1/p' "$TMP/err" | tr -d ,)
	cmd=$(sed -n 's/^trace_run: the calls before it: //p' "$TMP/err")
	"$BIN"/$cmd | awk -v at="$at" '$2 == at && $3 ~ /^malloc\(/ { f = 1 } END { exit !f }' &&
		ok "a deadlocked allocator: the command given shows its call $at, a malloc" || bad "deadlock hint: '$cmd'"
	eq "a deadlocked allocator: no timeline, no temporary file" 0 "$(ls "$TMP" | grep -c hang.tsv)"
	timeout 300 "$R" --timeout=2 --compare "glibc,$TP/libfwd.so(LIBFWD_HANG_AT=500)" "$TMP/m.wl" >"$TMP/out" 2>"$TMP/err"
	eq "--compare with a deadlocked allocator: exit 3" 3 "$?"
	grep -q "the replay with $TP/libfwd.so(LIBFWD_HANG_AT=500) failed: exit status 3" "$TMP/err" &&
		ok "--compare names the deadlocked column" || bad "compare deadlock: $(cat "$TMP/err")"
	grep -q '^wall time (usec) *[0-9,]* *failed$' "$TMP/out" && ok "--compare: glibc's figures print beside the deadlocked column" ||
		bad "compare deadlock table: $(head -n 2 "$TMP/out")"
	# one that hangs before the replay: in its first malloc (the check that it is in place, a
	# dlopen, on this glibc), or in its constructor, which runs before trace_run's main: an
	# alarm set before the re-execution ends it (its default action: 128+14)
	LIBFWD_HANG_AT=1 timeout 300 "$R" --timeout=2 --malloc "$TP/libfwd.so" "$TMP/m.wl" >/dev/null 2>"$TMP/err"
	eq "an allocator that hangs in its first malloc: exit 3" 3 "$?"
	grep -q "^trace_run: the allocator under test made no progress before the replay began (--timeout)\|^trace_run: the replay made no progress for 2 s" "$TMP/err" &&
		ok "an allocator that hangs in its first malloc: says so" || bad "first malloc: $(cat "$TMP/err")"
	LIBFWD_HANG_AT=start timeout 300 "$R" --timeout=2 --malloc "$TP/libfwd.so" "$TMP/m.wl" >/dev/null 2>&1
	eq "an allocator that hangs in its constructor: ends by SIGALRM" 142 "$?"
	timeout 300 "$R" --timeout=2 --compare "glibc,$TP/libfwd.so(LIBFWD_HANG_AT=start)" "$TMP/m.wl" >"$TMP/out" 2>"$TMP/err"
	eq "--compare, a constructor that hangs: exit 3, the others print" "3 1" "$? $(grep -c '^wall time (usec) *[0-9,]* *failed$' "$TMP/out")"
	grep -q "the replay with $TP/libfwd.so(LIBFWD_HANG_AT=start) failed: killed by signal 14" "$TMP/err" &&
		ok "--compare, a constructor that hangs: named" || bad "constructor: $(cat "$TMP/err")"
	"$R" --timeout=x "$TMP/m.wl" 2>/dev/null; eq "--timeout=x: exit 2" 2 "$?"
	LIBFWD_CRASH_AT=500 "$R" --compare "glibc,$TP/libfwd.so" --csv "$TMP/m.wl" >"$TMP/out" 2>/dev/null
	eq "--compare --csv with a crashing allocator: exit 3, glibc's row alone" "3 glibc" "$? $(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "allocator") c = i } NR > 1 { print $c }' "$TMP/out" | xargs)"
	mkdir -p "$TMP/sp ace"; cp "$TP/libfwd.so" "$TMP/sp ace/"
	"$R" --malloc "$TMP/sp ace/libfwd.so" "$TMP/m.wl" >/dev/null 2>"$TMP/err"; eq "a library path with a space: exit 3" 3 "$?"
	grep -q 'LD_PRELOAD cannot name a path with a space' "$TMP/err" && ok "a path with a space: says why" || bad "space: $(cat "$TMP/err")"
	w="$TMP/q\"b\\c"; mkdir -p "$w"; cp "$TP/libfwd.so" "$w/"
	"$R" --compare "glibc,$w/libfwd.so" --csv "$TMP/m.wl" >"$TMP/q.csv"; eq "--compare --csv: exit 0" 0 "$?"
	eq "--compare --csv: one header, a row an allocator" "1 3" "$(grep -c '^cycles,' "$TMP/q.csv") $(wc -l <"$TMP/q.csv")"
	"$R" --compare "glibc,$w/libfwd.so" --json "$TMP/m.wl" >"$TMP/q.json"; eq "--compare --json: exit 0" 0 "$?"
	if command -v python3 >/dev/null; then
		eq "--compare --csv: the odd path read back" "$w/libfwd.so" "$(python3 -c 'import csv, sys; print(list(csv.DictReader(open(sys.argv[1])))[1]["allocator"])' "$TMP/q.csv")"
		eq "--compare --json: one array, the odd path read back" "$w/libfwd.so" "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[1]["allocator"])' "$TMP/q.json")"
	else
		echo "# python3 not installed: the CSV and JSON are not parsed back"
	fi
fi
# --- --no-timing: the same calls replayed, none timed, and the output says so
"$R" --no-timing --csv "$TMP/m.wl" >"$TMP/nt.csv"; eq "--no-timing: exit 0" 0 "$?"
eq "--no-timing: malloc calls as in the workload" "$(wl "$TMP/m.wl" malloc)" "$(csv "$TMP/nt.csv" malloc_calls)"
eq "--no-timing: free calls as in the workload" "$(wl "$TMP/m.wl" free)" "$(csv "$TMP/nt.csv" free_calls)"
eq "--no-timing: no call time" 0 "$(csv "$TMP/nt.csv" total_call_cycles)"
eq "--no-timing: no percentiles" "0 0 0" "$(csv "$TMP/nt.csv" malloc_p50_cycles) $(csv "$TMP/nt.csv" free_max_cycles) $(csv "$TMP/nt.csv" calloc_p99_cycles)"
"$R" --no-timing "$TMP/m.wl" | grep -q '^Cycles a call' && bad "--no-timing: a percentile line" || ok "--no-timing: no percentile lines"
grep -q 'off (--no-timing' "$TMP/nt.csv" && ok "--no-timing: the timer column says off" || bad "--no-timing: timer column: $(tail -n 1 "$TMP/nt.csv")"
ge "a timed replay has call time" 1 "$(csv "$TMP/m.csv" total_call_cycles)"
"$R" --no-timing --compare glibc -r 2 "$TMP/m.wl" >"$TMP/ntc"; eq "--no-timing --compare: exit 0" 0 "$?"
eq "--no-timing reaches the compared runs (their call time is 0)" 0 "$(awk '/^total call time/ { gsub(",", "", $NF); print $NF }' "$TMP/ntc")"
"$R" --compare glibc,/nonexistent/lib.so "$TMP/m.wl" 2>"$TMP/err"; eq "missing allocator: exit 3" 3 "$?"
"$R" --malloc=nosuch "$TMP/m.wl" 2>"$TMP/err"; eq "unknown allocator: exit 2 (a usage error)" 2 "$?"
grep -q 'no allocator of that name' "$TMP/err" && ok "says the allocator is unknown" || bad "unknown allocator message"
"$R" --malloc= "$TMP/m.wl" 2>"$TMP/err"; eq "--malloc with nothing: exit 2" 2 "$?"
"$R" --csv --json "$TMP/m.wl" >/dev/null 2>&1; eq "--csv and --json together: exit 2" 2 "$?"
finish
