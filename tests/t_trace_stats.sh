# trace_stats: figures computed by hand on a synthetic trace (tests/prog/mkfixture.c
# trace-edge), the same from its dj twin and a foreign-byte-order copy, real programs, --diff,
# --tsv/--json, bad input.
. tests/lib.sh
S="$BIN/trace_stats"
"$TP/mkfixture" trace-edge "$TMP/edge"
"$S" --tsv "$TMP/edge" >"$TMP/e.tsv"; eq "exit 0" 0 "$?"
v() { awk -F'\t' -v s="$2" -v k="$3" '$1 == s && $2 == k { print $3 }' "$1"; }
eq "20 calls" 20 "$(v "$TMP/e.tsv" calls total)"
eq "2 failed" 2 "$(v "$TMP/e.tsv" calls failed)"
eq "1 free(NULL)" 1 "$(v "$TMP/e.tsv" calls free_null)"
eq "2 frees of unknown blocks (before tracing, twice)" 2 "$(v "$TMP/e.tsv" calls free_of_unknown_block)"
eq "ideal RSS peak 868 bytes" 868 "$(v "$TMP/e.tsv" memory ideal_rss_peak)"
eq "... reached at 155 ns (the realloc's result point)" 155 "$(v "$TMP/e.tsv" memory ideal_rss_peak_at_ns)"
eq "8 blocks live at the end (leaks at stop)" 8 "$(v "$TMP/e.tsv" memory live_blocks_at_end)"
eq "546 bytes live at the end" 546 "$(v "$TMP/e.tsv" memory live_bytes_at_end)"
eq "2 cross-thread frees (a free and a realloc by thread 200)" 2 "$(v "$TMP/e.tsv" threads cross_thread_frees)"
eq "realloc: 1 moved, 1 to size 0, 2 from NULL, 1 of an unknown block, 1 grew" "1 1 2 1 1" \
	"$(v "$TMP/e.tsv" realloc moved) $(v "$TMP/e.tsv" realloc to_zero) $(v "$TMP/e.tsv" realloc from_null) $(v "$TMP/e.tsv" realloc of_unknown_block) $(v "$TMP/e.tsv" realloc grew)"
eq "size histogram: 2 requests in each of 8-15 .. 256-511" "2 2 2 2 2 2" \
	"$(for b in 8-15 16-31 32-63 64-127 128-255 256-511; do v "$TMP/e.tsv" sizes $b; done | xargs)"
eq "size histogram: bytes in 256-511 (256 + 400)" 656 "$(awk -F'\t' '$1 == "sizes" && $2 == "256-511" { print $4 }' "$TMP/e.tsv")"
eq "top size: 10 bytes, twice" "10	2" "$(awk -F'\t' '$1 == "top_sizes" { print $2 "\t" $3; exit }' "$TMP/e.tsv")"
eq "largest live block: 256 bytes of thread 100" "256	100" "$(awk -F'\t' '$1 == "largest_live" { print $2 "\t" $3; exit }' "$TMP/e.tsv")"
eq "per thread: 100 made 15 calls, 200 made 5" "100 15 200 5" "$(awk -F'\t' '$1 == "thread" { printf "%s %s ", $2, $3 }' "$TMP/e.tsv" | xargs)"

"$TP/swap_trace" "$TMP/edge" "$TMP/edge.swapped"
"$S" --tsv "$TMP/edge.swapped" | grep -v '^trace' >"$TMP/s.tsv"
grep -v '^trace' "$TMP/e.tsv" | cmp - "$TMP/s.tsv" && ok "foreign byte order: the same figures" || bad "swapped figures differ"
"$TP/mkfixture" dj-edge "$TMP/dj"
"$S" --tsv "$TMP/dj" >"$TMP/dj.tsv"
eq "dj trace: ideal RSS peak 804 (no aligned_alloc, reallocarray)" 804 "$(v "$TMP/dj.tsv" memory ideal_rss_peak)"
eq "dj trace: no durations (it has none)" 0 "$(grep -c '^durations_ns' "$TMP/dj.tsv")"
# durations: realloc's are always recorded (2, 2, 5, 2 and 2 ns in the fixture), the others'
# only in a trace taken with durations (the fixture is not)
eq "durations: realloc's 5 calls, avg 2, p50 2, p90 5, max 5 ns" "5 2 2 5 5" \
	"$(for k in realloc_calls realloc_avg realloc_p50 realloc_p90 realloc_max; do v "$TMP/e.tsv" durations_ns $k; done | xargs)"
eq "durations: no malloc durations without them recorded" "" "$(v "$TMP/e.tsv" durations_ns malloc_calls)"
MTRACE_CTL_QUIET=1 "$BIN/mtracectl" -d -o "$TMP/dur" -- "$ROOT/$B/bench/mbench" 1 20000 >/dev/null
dt=$(one_file "$TMP/dur.*")
"$S" --tsv "$dt" >"$TMP/d.tsv"
eq "durations (mtracectl -d): every malloc timed" "$(v "$TMP/d.tsv" calls malloc)" "$(v "$TMP/d.tsv" durations_ns malloc_calls)"
for k in malloc free; do
	set -- $(for p in p50 p99 max avg; do v "$TMP/d.tsv" durations_ns ${k}_$p; done)
	[ "${1:-0}" -gt 0 ] && [ "$1" -le "$2" ] && [ "$2" -le "$3" ] && [ "$4" -le "$3" ] &&
		ok "durations: $k p50 $1 <= p99 $2 <= max $3, avg $4" || bad "durations $k: $*"
done
"$S" "$dt" | grep -q '^call durations$' && ok "durations: a text section" || bad "durations: no text section"
"$S" --diff "$dt" "$TMP/edge" | grep -q '^malloc_p99  *[0-9.]* [nµm]*s ' && ok "durations: --diff compares the 99th percentiles" || bad "durations: --diff"
# a trace with no clock (imported from an mtrace() log: its reallocs have duration 0): none
printf '= Start\n@ ./p:[0x1] + 0x1000 0x10\n@ ./p:[0x1] < 0x1000\n@ ./p:[0x1] > 0x2000 0x20\n- 0x2000\n= End\n' >"$TMP/m.log"
"$BIN/trace_import" "$TMP/m.log" "$TMP/imp" && "$S" --tsv "$TMP/imp" >"$TMP/imp.tsv"
eq "durations: an imported trace (no clock) has none" "1 0" "$(v "$TMP/imp.tsv" calls realloc) $(grep -c '^durations_ns' "$TMP/imp.tsv")"
# --latency: the recorded durations as trace_run --latency writes its call times (trace_plot)
"$S" -L "$TMP/e.lat" "$TMP/edge" >/dev/null 2>"$TMP/err"; eq "--latency, a trace without -d: exit 0" 0 "$?"
grep -q "only realloc's durations are recorded without mtracectl -d" "$TMP/err" && ok "--latency: says only realloc's are there" || bad "--latency warning: $(cat "$TMP/err")"
eq "--latency: title, then header" "# trace_stats latency: program as traced, CLOCK_MONOTONIC|class	ns	calls	at_or_below" "$(head -n 2 "$TMP/e.lat" | paste -sd'|')"
eq "--latency: realloc's rows (2 ticks 4 times, then 5 once)" "realloc 2 4 0.8|realloc 5 1 1" "$(tail -n +3 "$TMP/e.lat" | tr '\t' ' ' | paste -sd'|')"
"$S" -L "$TMP/d.lat" "$dt" >/dev/null; eq "--latency, a trace taken with -d: exit 0" 0 "$?"
for k in malloc free; do
	eq "--latency: every $k's duration, the last share 1" "$(v "$TMP/d.tsv" calls $k) 1" \
		"$(awk -F'\t' -v k=$k '$1 == k { n += $3; f = $4 } END { print n, f }' "$TMP/d.lat")"
done
"$BIN/trace_plot" -o "$TMP/d.svg" "$TMP/d.lat" 2>/dev/null; eq "--latency: trace_plot draws it" 0 "$?"
grep -q '>mbench as traced<' "$TMP/d.svg" && ok "--latency: trace_plot names it after the program" || bad "trace_plot legend of a trace_stats file"
"$S" -L "$TMP/i.lat" "$TMP/imp" >/dev/null 2>"$TMP/err"; eq "--latency, a trace with no durations: exit 1" 1 "$?"
grep -q 'no call durations in it' "$TMP/err" && ok "--latency: says there are none" || bad "--latency none: $(cat "$TMP/err")"
[ -e "$TMP/i.lat" ] && bad "--latency: a file written with no durations" || ok "--latency: no file when there are none"
"$S" -L "$TMP/two.lat" "$TMP/edge" "$dt" >/dev/null 2>&1; eq "--latency with two traces: exit 2" 2 "$?"
gzip -c "$TMP/edge" >"$TMP/edge.gz"
"$S" --tsv "$TMP/edge.gz" | grep -v '^trace' | cmp - "$TMP/s.tsv" && ok "gzip-compressed: the same figures" || bad "gzip figures differ"

# text and JSON
"$S" "$TMP/edge" >"$TMP/e.txt"
grep -q '^  ideal_rss_peak  *868 B$' "$TMP/e.txt" && ok "text: ideal RSS peak line" || bad "text output"
# the text in units people read (bytes in B/KiB/MiB/GiB, times in ns/µs/ms/s, three digits),
# the same figures as --tsv's exact ones
grep -q '^  ideal_rss_peak_at  *155 ns$' "$TMP/e.txt" && ok "text: when, in ns" || bad "text: $(grep peak_at "$TMP/e.txt")"
grep -q '^  requested_bytes  *1.27 KiB$' "$TMP/e.txt" && ok "text: 1,300 bytes as 1.27 KiB" || bad "text: $(grep requested "$TMP/e.txt")"
grep -q '^/.*/edge: ? (pid 4242), 2 threads, 20 calls over 200 ns$' "$TMP/e.txt" && ok "text: the time span in ns" || bad "text: $(head -n 1 "$TMP/e.txt")"
grep -q '^    \[256 B, 512 B)  *2  *656 B$' "$TMP/e.txt" && ok "text: a size bucket as [256 B, 512 B), its bytes in B" || bad "text: $(grep '256 B' "$TMP/e.txt")"
grep -q '^    \[128 ns, 256 ns)  *2$' "$TMP/e.txt" && ok "text: a lifetime bucket in ns" || bad "text: $(grep '128 ns' "$TMP/e.txt")"
# in a real trace: every byte and time figure of the text within 0.5% of the exact one
"$S" "$dt" >"$TMP/d.txt"
units_agree() { # SECTION KEY TEXT_KEY: the text's "N UNIT" against --tsv's exact number
	awk -v want="$(v "$TMP/d.tsv" "$1" "$2")" -v k="$3" '$1 == k {
		m["B"] = 1; m["KiB"] = 1024; m["MiB"] = 1048576; m["GiB"] = 1073741824
		m["ns"] = 1; m["µs"] = 1e3; m["ms"] = 1e6; m["s"] = 1e9
		got = $2 * m[$3]; d = got - want; if (d < 0) d = -d
		good = ($3 in m) && want > 0 && d <= want * 0.005 + 0.5 } END { exit !good }' "$TMP/d.txt" && ok "text: $3 $(grep "^  $3 " "$TMP/d.txt" | awk '{ print $2, $3 }') is $(v "$TMP/d.tsv" "$1" "$2")" ||
		bad "text: $3 '$(grep "^  $3 " "$TMP/d.txt")' against $(v "$TMP/d.tsv" "$1" "$2")"
}
units_agree memory requested_bytes requested_bytes
units_agree memory ideal_rss_peak ideal_rss_peak
units_agree memory ideal_rss_peak_at_ns ideal_rss_peak_at
p50=$(v "$TMP/d.tsv" durations_ns malloc_p50) cell=$(awk '$1 == "malloc" && NF == 14 { print $5, $6 }' "$TMP/d.txt")
awk -v want="$p50" -v got="$cell" 'BEGIN { split(got, g, " "); m["ns"] = 1; m["µs"] = 1e3; m["ms"] = 1e6
	x = g[1] * m[g[2]]; exit !(g[2] in m && x >= want * 0.995 - 0.5 && x <= want * 1.005 + 0.5) }' &&
	ok "text: malloc's p50 $cell is ${p50} ns" || bad "text: malloc p50 '$cell' against $p50 ns: $(grep '^    malloc ' "$TMP/d.txt")"
grep -q '^largest blocks live at the end$' "$TMP/e.txt" && ok "text: largest live blocks" || bad "text: largest"
"$S" --json "$TMP/edge" | grep -q '"memory_ideal_rss_peak": 868' && ok "--json" || bad "--json"
"$S" --json "$TMP/edge" | python3 -c 'import json, sys; json.load(sys.stdin)' 2>/dev/null && ok "--json is valid JSON" || bad "--json does not parse"
# a file name with a quote, a backslash and a tab: still valid JSON, still one TSV field
odd="$TMP/q\"b\\c	d"; cp "$TMP/edge" "$odd"
"$S" --json "$odd" | python3 -c 'import json, sys; print(json.load(sys.stdin)["file"])' >"$TMP/name" 2>/dev/null
check "--json: an odd file name read back" test "$(cat "$TMP/name")" = "$odd"
eq "--tsv: the file name one field" 3 "$("$S" --tsv "$odd" | awk -F '\t' 'NR == 1 { print NF }')"

# a real program, and --diff against another run of it
traced "$TMP/b1" "$TP/bigalloc" 20000 >/dev/null
traced "$TMP/b2" "$TP/bigalloc" 40000 >/dev/null
b1=$(one_file "$TMP/b1.*"); b2=$(one_file "$TMP/b2.*")
"$S" --tsv "$b1" >"$TMP/b1.tsv"; eq "real trace: exit 0" 0 "$?"
eq "real trace: every call" "$(count "$b1" calls)" "$(v "$TMP/b1.tsv" calls total)"
ge "real trace: glibc flags reported (heap growth)" 1 "$(v "$TMP/b1.tsv" glibc grew_the_heap)"
"$S" --diff "$b1" "$b2" >"$TMP/diff"; eq "--diff: exit 0" 0 "$?"
grep -q '^calls ' "$TMP/diff" && grep -q 'x$' "$TMP/diff" && ok "--diff: rows with ratios" || bad "--diff: $(head -n 3 "$TMP/diff")"
"$S" --diff --tsv "$b1" "$b2" | awk -F'\t' '$2 == "calls" { exit !($4 > $3) }' && ok "--diff: B has more calls than A" || bad "--diff calls"
# standard input, named as every tool names it
eq "standard input: named <stdin>, as trace_dump names it" "<stdin>:" "$("$S" - <"$b1" | head -n 1 | cut -d' ' -f1)"
# traces without durations: their percentiles are not recorded, never 0
grep -q '^malloc_p99  *not recorded  *not recorded$' "$TMP/diff" && ok "--diff, no durations: not recorded" || bad "--diff p99: $(grep p99 "$TMP/diff")"
eq "--diff --tsv, no durations: empty fields" "diff malloc_p99_ns   " "$("$S" --diff --tsv "$b1" "$b2" | grep malloc_p99 | tr '\t' ' ')"
"$S" --diff --json "$b1" "$b2" | grep -q '"malloc_p99_ns": \[null, null\]' && ok "--diff --json, no durations: null" || bad "--diff json p99"

# bad input
: >"$TMP/empty"
"$S" "$TMP/empty" >/dev/null 2>"$TMP/err"; eq "empty: exit 1" 1 "$?"
grep -q 'offset 0: empty file' "$TMP/err" && ok "empty: one error naming the offset" || bad "empty: $(cat "$TMP/err")"
head -c 4200 "$TMP/edge" >"$TMP/cut"
"$S" "$TMP/cut" >/dev/null 2>"$TMP/err"; eq "truncated: exit 1" 1 "$?"
grep -q 'truncated record' "$TMP/err" && ok "truncated: says so" || bad "truncated: $(cat "$TMP/err")"
"$S" --diff "$TMP/edge" 2>/dev/null; eq "--diff with one trace: exit 2" 2 "$?"
"$S" --tsv --json "$TMP/edge" >/dev/null 2>&1; eq "--tsv and --json together: exit 2" 2 "$?"
"$S" --help | grep -q '^Usage: trace_stats' && ok "--help" || bad "--help"
"$S" --version | grep -q '^trace_stats (mtrace) ' && ok "--version" || bad "--version"
# on a terminal a sentence is broken at spaces to its width (the terminal would cut a word or a
# number), its words those of the line written to a pipe
"$TP/ptyrun" 40 "$S" "$TMP/edge" >"$TMP/pty.out"; eq "40 columns: exit 0" 0 "$?"
head_pty=$(awk '/^calls$/ { exit } NR > 1 { sub(/^  /, " ") } { printf "%s", $0 }' "$TMP/pty.out")
eq "40 columns: the first line's words whole" "$("$S" "$TMP/edge" | head -n 1)" "$head_pty"
w=$(awk '/^calls$/ { exit } { l = $0; sub(/^ +/, "", l) }
	l ~ / / && length($0) > w { w = length($0) } END { print w + 0 }' "$TMP/pty.out")
if [ "$w" -lt 40 ] && [ "$(awk '/^calls$/ { exit } END { print NR }' "$TMP/pty.out")" -gt 1 ]; then
	ok "40 columns: the first line broken, at most $w columns"
else bad "40 columns: $(head -n 3 "$TMP/pty.out")"; fi
# a finished trace cut at a record's end (a copy that stopped): refused as one cut inside a
# record is (exit 1), saying where
traced "$TMP/whole" "$TP/xthread" 2 2000 >/dev/null
wt=$(one_file "$TMP/whole.*")
# (a record's start, from its offset: records are 32 or 64 bytes)
at=$("$BIN/trace_dump" "$wt" | awk '!/^#/ && ++n == 200 { print $1; exit }')
head -c "$at" "$wt" >"$TMP/cut"
"$S" "$TMP/cut" >"$TMP/out" 2>"$TMP/err"; eq "a trace cut short: exit 1" 1 "$?"
grep -q "^trace_stats: $TMP/cut: offset [0-9]*: truncated: its writer recorded [0-9,]* calls" \
	"$TMP/err" && ok "a trace cut short: says so, with the offset" ||
	bad "cut short: $(cat "$TMP/err")"
"$S" "$wt" >/dev/null 2>"$TMP/err"; eq "the whole trace: exit 0" 0 "$?"
eq "the whole trace: nothing said" "" "$(cat "$TMP/err")"
# progress: -p forces it (stderr is no terminal here)
"$S" -p "$TMP/edge" >/dev/null 2>"$TMP/err"; eq "-p: exit 0" 0 "$?"
tr '\r' '\n' <"$TMP/err" | grep -q "^trace_stats: $TMP/edge: [0-9]*% " && ok "-p: progress" || bad "-p: $(cat -A "$TMP/err" | head -c 300)"
"$S" "$TMP/edge" >/dev/null 2>"$TMP/err"; eq "no -p: nothing on stderr" 0 "$(wc -c <"$TMP/err")"
finish
