# trace_plot: every kind of chart is well-formed, self-contained SVG with labelled axes in
# units; bad input is refused.  (How the charts read, and their rendering: t_charts.)
. tests/lib.sh
PL="$BIN/trace_plot"
xmlok() { # FILE: well-formed XML?
	if command -v python3 >/dev/null; then python3 -c "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])" "$1"
	elif command -v xmllint >/dev/null; then xmllint --noout "$1"
	else echo "# neither python3 nor xmllint: XML not parsed"; return 0; fi
}
( export GLIBC_TUNABLES=glibc.malloc.tcache_count=0:glibc.malloc.arena_max=1; traced "$TMP/x" "$TP/xthread" 3 20000 >/dev/null )
t=$(one_file "$TMP/x.*")
for k in live sizes lifetime; do
	"$PL" -k $k -o "$TMP/$k.svg" "$t" 2>/dev/null; eq "$k: exit 0" 0 "$?"
	check "$k: well-formed XML" xmlok "$TMP/$k.svg"
	grep -q '<script\|xlink:href=\|@import\|url(' "$TMP/$k.svg" && bad "$k: refers to something outside" || ok "$k: self-contained"
done
grep -q '<polyline' "$TMP/live.svg" && ok "live: a line" || bad "live: no line"
grep -q '>live requested bytes<' "$TMP/live.svg" && grep -q '>allocations per second<' "$TMP/live.svg" && ok "live: both axes named" || bad "live: axis labels"
grep -q '[0-9] \(KiB\|MiB\|B\)<' "$TMP/live.svg" && ok "live: byte ticks in units" || bad "live: byte ticks"
grep -q '[0-9] \(ms\|s\|us\)<' "$TMP/live.svg" && ok "live: time ticks in units" || bad "live: time ticks"
ge "sizes: bars" 3 "$(grep -c '<rect class="bar"' "$TMP/sizes.svg")"
grep -q '>requested size<' "$TMP/sizes.svg" && ok "sizes: axis named" || bad "sizes: axis"

"$ROOT/$B/bin/trace2wl" -q "$TMP/w.wl" "$t"
"$ROOT/$B/bin/trace_run" -i 2 -l "$TMP/a.tsv" "$TMP/w.wl" >/dev/null
"$ROOT/$B/bin/trace_run" -i 2 -l "$TMP/b.tsv" --tunables=glibc.malloc.arena_max=1 "$TMP/w.wl" >/dev/null
"$PL" --label default --label one-arena -o "$TMP/rss.svg" "$TMP/a.tsv" "$TMP/b.tsv" 2>/dev/null; eq "rss: exit 0" 0 "$?"
check "rss: well-formed XML" xmlok "$TMP/rss.svg"
grep -q '>VmRSS growth: default<' "$TMP/rss.svg" && grep -q '>VmRSS growth: one-arena<' "$TMP/rss.svg" && ok "rss: runs overlaid with a legend" || bad "rss legend"
# without --label: each run as its timeline names it, as --compare's columns and the latency
# chart name them (not by its file's name)
"$ROOT/$B/bin/trace_run" --compare 'glibc,glibc(M_ARENA_MAX=1)' -l "$TMP/dup" "$TMP/w.wl" >/dev/null
"$PL" -o "$TMP/dup.svg" "$TMP/dup.glibc" "$TMP/dup.glibc.2" 2>/dev/null
grep -q '>VmRSS growth: glibc(M_ARENA_MAX=1)<' "$TMP/dup.svg" && grep -q '>VmRSS growth: glibc<' "$TMP/dup.svg" &&
	ok "rss: the runs named as --compare names its columns" || bad "rss names: $(grep -o '>VmRSS[^<]*<' "$TMP/dup.svg" | xargs)"
grep -q '>resident memory above the start<' "$TMP/dup.svg" && ok "rss: growth above the start, as the summary's figures" || bad "rss: axis"
# an older timeline (no title line, no baseline row) still draws
tail -n +2 "$TMP/a.tsv" >"$TMP/old.tsv"
"$PL" -o "$TMP/old-rss.svg" "$TMP/old.tsv" 2>/dev/null; eq "rss, an older timeline: exit 0" 0 "$?"
grep -q '>ideal RSS (requested bytes live)<' "$TMP/rss.svg" && ok "rss: ideal RSS line" || bad "rss: ideal"
"$ROOT/$B/bin/trace_run" --compare glibc --csv -r 1 "$TMP/w.wl" >"$TMP/cmp.csv"
"$PL" -o "$TMP/cmp.svg" "$TMP/cmp.csv" 2>/dev/null; eq "compare: exit 0" 0 "$?"
check "compare: well-formed XML" xmlok "$TMP/cmp.svg"
grep -q '>glibc<' "$TMP/cmp.svg" && grep -q '>wall time<' "$TMP/cmp.svg" && grep -q '>Max RSS<' "$TMP/cmp.svg" && ok "compare: bars per allocator for time and RSS" || bad "compare chart"
grep -q '>malloc p99 ([a-z]*)<' "$TMP/cmp.svg" && grep -q '>free p99 ([a-z]*)<' "$TMP/cmp.svg" && ok "compare: the 99th percentiles of malloc and free" || bad "compare: no percentile panels"
# a column with settings: its name holds a comma, quoted in the CSV (it was cut there)
"$ROOT/$B/bin/trace_run" --compare 'glibc,glibc(MALLOC_ARENA_MAX=1,A=2)' --csv "$TMP/w.wl" >"$TMP/cmpq.csv"
"$PL" -o "$TMP/cmpq.svg" "$TMP/cmpq.csv" 2>/dev/null; eq "compare, a quoted name: exit 0" 0 "$?"
grep -q '>glibc(MALLOC_ARENA_MAX=1,A=2)<' "$TMP/cmpq.svg" && ok "compare, a quoted name: read whole" || bad "quoted name: $(grep -o '>glibc[^<]*<' "$TMP/cmpq.svg" | sort -u | xargs)"
# a CSV of an older trace_run (no percentile columns, no timer_unit) still draws its two panels
awk -F, -v OFS=, '{ $0 = $0; n = split($0, f, ","); out = ""; for (i = 1; i <= n; i++) if (i <= 29 || (i >= n - 2 && i < n)) out = out (out == "" ? "" : ",") f[i]; print out }' "$TMP/cmp.csv" >"$TMP/old.csv"
"$PL" -o "$TMP/old.svg" "$TMP/old.csv" 2>/dev/null; eq "compare, an older CSV: exit 0" 0 "$?"
grep -q '>Max RSS<' "$TMP/old.svg" && ! grep -q 'p99' "$TMP/old.svg" && ok "compare, an older CSV: time and RSS, no percentile panel" || bad "old csv chart"
sed '2s/^\(\([^,]*,\)\{31\}\)[^,]*/\1x/' "$TMP/cmp.csv" >"$TMP/badp.csv"
"$PL" -o "$TMP/badp.svg" "$TMP/badp.csv" 2>"$TMP/err"; eq "compare CSV with a malloc p99 of 'x': exit 1" 1 "$?"
grep -q 'badp.csv: line 2: malloc_p99_cycles must be a number' "$TMP/err" && ok "compare CSV: a bad percentile named" || bad "bad p99: $(cat "$TMP/err")"

# latency: trace_run --latency distributions, overlaid; a panel per call class, percentile ticks
"$ROOT/$B/bin/trace_run" -L "$TMP/l1" "$TMP/w.wl" >/dev/null
"$ROOT/$B/bin/trace_run" -L "$TMP/l2" --touch=none "$TMP/w.wl" >/dev/null
"$PL" -o "$TMP/lat.svg" "$TMP/l1" "$TMP/l2" 2>/dev/null; eq "latency: recognised, exit 0" 0 "$?"
check "latency: well-formed XML" xmlok "$TMP/lat.svg"
grep -q '>malloc ([a-z]*)<' "$TMP/lat.svg" && grep -q '>free ([a-z]*)<' "$TMP/lat.svg" && ok "latency: malloc and free panels" || bad "latency panels"
grep -q '>99%<' "$TMP/lat.svg" && grep -q '>90%<' "$TMP/lat.svg" && ok "latency: percentile ticks" || bad "latency: no percentile ticks"
eq "latency: each run named by its allocator, once (one legend)" 2 "$(grep -c '>glibc<' "$TMP/lat.svg")"
eq "latency: a curve per run and class" "$(( 2 * $(awk -F'\t' 'NR > 2 { c[$1] = 1 } END { print length(c) }' "$TMP/l1") ))" "$(grep -c '<polyline' "$TMP/lat.svg")"
"$PL" --label one --label two -o "$TMP/lat2.svg" "$TMP/l1" "$TMP/l2" 2>/dev/null
grep -q '>one<' "$TMP/lat2.svg" && grep -q '>two<' "$TMP/lat2.svg" && ok "latency: -l names the runs" || bad "latency -l"
printf '# trace_run latency: glibc(A=1,B=2), rdtscp (TSC cycles)\nclass\tcycles\tcalls\tat_or_below\nmalloc\t10\t5\t0.5\nmalloc\t19\t5\t1\n' >"$TMP/commas"
"$PL" -k latency -o "$TMP/commas.svg" "$TMP/commas" 2>/dev/null; eq "latency: a name with commas: exit 0" 0 "$?"
grep -q '>glibc(A=1,B=2)<' "$TMP/commas.svg" && ok "latency: a --compare column's name, commas and all, in the legend" || bad "commas: $(grep -o '>glibc[^<]*<' "$TMP/commas.svg")"
printf '# trace_run latency: x, y\nclass\tcycles\tcalls\tat_or_below\nmalloc\t10\t5\t0.5\nmalloc\t9\t5\t1\n' >"$TMP/down"
"$PL" -k latency -o "$TMP/down.svg" "$TMP/down" 2>"$TMP/err"; eq "latency: times going down: exit 1" 1 "$?"
grep -q "down: line 4: malloc's rows must rise" "$TMP/err" && ok "latency: names the line" || bad "latency down: $(cat "$TMP/err")"
printf 'class\tcycles\tcalls\tat_or_below\nmallok\t10\t5\t1\n' >"$TMP/cls"
"$PL" -k latency -o "$TMP/cls.svg" "$TMP/cls" 2>"$TMP/err"; eq "latency: unknown class: exit 1" 1 "$?"
grep -q 'cls: line 2: not a class' "$TMP/err" && ok "latency: unknown class named by line" || bad "latency class: $(cat "$TMP/err")"
printf 'class\tcycles\tcalls\tat_or_below\nmalloc\t10\t5\t1.5\n' >"$TMP/over"
"$PL" -k latency -o "$TMP/over.svg" "$TMP/over" 2>/dev/null; eq "latency: a share above 1: exit 1" 1 "$?"
printf 'class\tcycles\tcalls\tat_or_below\nmalloc\t10\t0\t1\n' >"$TMP/none"
"$PL" -k latency -o "$TMP/none.svg" "$TMP/none" 2>/dev/null; eq "latency: a row of 0 calls (it drew NaN): exit 1" 1 "$?"
"$PL" -k latency -o "$TMP/tl.svg" "$TMP/a.tsv" 2>"$TMP/err"; eq "latency: a timeline given as one: exit 1" 1 "$?"
check "latency: no output left by the failures" sh -c "! ls '$TMP'/down.svg* '$TMP'/cls.svg* '$TMP'/over.svg* '$TMP'/none.svg* '$TMP'/tl.svg* >/dev/null 2>&1"

# long series are reduced, peaks kept: a 2-point-per-column line however long the trace
pts=$(grep -o 'points="[^"]*"' "$TMP/live.svg" | head -n 1 | wc -w)
check "live: at most two points per pixel column ($pts)" test "$pts" -le 1800

# bad input
printf 'time_ms\tvmrss_kb\tvmsize_kb\tideal_kb\n1\t2\tbanana\t4\n' >"$TMP/bad.tsv"
"$PL" -o "$TMP/bad.svg" "$TMP/bad.tsv" 2>"$TMP/err"; eq "bad timeline: exit 1" 1 "$?"
grep -q 'line 2: not four numbers' "$TMP/err" && ok "bad timeline: names the line" || bad "bad timeline: $(cat "$TMP/err")"
check "bad timeline: no output left" sh -c "! ls '$TMP'/bad.svg* >/dev/null 2>&1"
# values strtod alone would take, each drawing nothing or off the chart ("nan" in the points)
for v in nan inf -5 1e308 ' 7' ''; do
	printf 'time_ms\tvmrss_kb\tvmsize_kb\tideal_kb\n1\t2\t3\t4\n2\t%s\t3\t4\n' "$v" >"$TMP/nan.tsv"
	"$PL" -o "$TMP/nan.svg" "$TMP/nan.tsv" 2>"$TMP/err"; eq "timeline VmRSS '$v': exit 1" 1 "$?"
	grep -q 'nan.tsv: line 3: not four numbers' "$TMP/err" && ok "timeline '$v': names the line" || bad "timeline '$v': $(cat "$TMP/err")"
done
printf 'time_ms\tvmrss_kb\tvmsize_kb\tideal_kb\n1\t2\t3\t4\tlater\n' >"$TMP/more.tsv"
"$PL" -o "$TMP/more.svg" "$TMP/more.tsv" 2>/dev/null; eq "timeline with a column added after the four: drawn" 0 "$?"
{ printf 'time_ms\tvmrss_kb\tvmsize_kb\tideal_kb\n1\t2\t3\t4'; head -c 2000 /dev/zero | tr '\0' 0; echo; } >"$TMP/long.tsv"
"$PL" -o "$TMP/long.svg" "$TMP/long.tsv" 2>"$TMP/err"; eq "timeline line too long: exit 1" 1 "$?"
grep -q 'line 2: longer than' "$TMP/err" && ok "too long: names the line" || bad "too long: $(cat "$TMP/err")"
head -n 1 "$TMP/cmp.csv" >"$TMP/nan.csv"
tail -n 1 "$TMP/cmp.csv" | awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if (i == 2) $i = "nan" } 1' >>"$TMP/nan.csv"
"$PL" -o "$TMP/nancmp.svg" "$TMP/nan.csv" 2>"$TMP/err"; eq "compare CSV with wall 'nan': exit 1" 1 "$?"
grep -q 'nan.csv: line 2: wall_usec and maxrss_growth_kb' "$TMP/err" && ok "compare CSV: names the line" || bad "compare CSV: $(cat "$TMP/err")"
check "compare CSV: no output left" sh -c "! ls '$TMP'/nancmp.svg* >/dev/null 2>&1"
# a trace on standard input (read twice: its time range first), compressed too: the chart
# goes to standard output
mkdir -p "$TMP/ptmp"
gzip -c "$t" | TMPDIR="$TMP/ptmp" "$PL" -k live - >"$TMP/stdin.svg" 2>/dev/null; eq "trace on standard input: exit 0" 0 "$?"
check "trace on standard input: the same chart" cmp "$TMP/live.svg" "$TMP/stdin.svg"
eq "trace on standard input: no copy left behind" "" "$(ls "$TMP/ptmp")"
head -c 3000 "$t" >"$TMP/cut"
"$PL" -o "$TMP/cut.svg" "$TMP/cut" 2>/dev/null; eq "truncated trace: exit 1" 1 "$?"
"$PL" -k pie "$t" 2>"$TMP/err"; eq "unknown kind: exit 2" 2 "$?"
# the charts it knows (its registry, named in that error) are the ones --help describes
known=$(sed -n "s/.*unknown --kind 'pie' (\(.*\))\$/\1/p" "$TMP/err" | tr -d ,)
helped=$("$PL" --help | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p' | xargs)
eq "every chart known is in --help, and only those" "$known" "$helped"
"$PL" --help | grep -q '^Usage: trace_plot' && ok "--help" || bad "--help"

# progress: -p forces it (stderr is no terminal here): both passes over the trace
"$PL" -p -k live -o "$TMP/pg.svg" "$t" 2>"$TMP/err"; eq "-p: exit 0" 0 "$?"
tr '\r' '\n' <"$TMP/err" | grep -q "^trace_plot: $t, time range: [0-9]*% " && tr '\r' '\n' <"$TMP/err" | grep -q "^trace_plot: $t: [0-9]*% " &&
	ok "-p: progress of both passes" || bad "-p: $(cat -A "$TMP/err" | head -c 300)"
finish
