# trace_run's figures: the summary follows dj/malloc's layout line by line, naming the
# timer's unit (--dj-summary: exactly dj's lines); call times as percentiles and whole
# distributions (--latency); Max RSS is the replay's growth; calls that fail in the replay
# show; --no-timing times nothing and says so; a timer that counts nanoseconds says so in
# every output; each timer the CPU offers can be forced, and the Timer line names it.
. tests/lib.sh
. tests/lib_trace_run.sh
make_m

# --- the summary, line by line (harnesses parse --dj-summary by line number)
"$R" --dj-summary "$TMP/m.wl" >"$TMP/sum"
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
MTRACE_RUN_TIMER=clock "$R" --dj-summary "$TMP/m.wl" >"$TMP/sumns"
eq "--dj-summary, the timer in nanoseconds: dj's words all the same" "cycles sizeof cycles" \
	"$(sed -n '1s/.* //p; 7s/ .*//p; 12s/.* //p' "$TMP/sumns" | paste -sd' ')"
"$R" "$TMP/m.wl" >"$TMP/human"
shape() { sed 's/[0-9][0-9,]*/N/g; s/  */ /g'; }
eq "the summary: dj's lines but the sizeof one" "$(sed 7d "$TMP/sum" | sed -n '2,5p; 7,10p' | shape)" \
	"$(sed -n '2,5p; 7,10p' "$TMP/human" | shape)"
grep -q '^Timer: ' "$TMP/sum" && ok "the timer is named" || bad "timer line"
grep -q '^Harness memory: ' "$TMP/sum" && ok "harness memory reported" || bad "harness line"
"$R" --json "$TMP/m.wl" | grep -q '^{"cycles": [0-9]*, .*"malloc_calls": [0-9]*' && ok "--json" || bad "--json"

# --- call times as distributions (the histogram's arithmetic: tests/unit/u_lat_hist.c): the
# percentiles of a replay, in order, within the largest, in every output
grep -q '^\(Cycles\|Nanoseconds\) a call, p50 / p90 / p99 / p99.9 / max:$' "$TMP/sum" && ok "the summary has the percentiles" || bad "no percentiles: $(sed -n '14,20p' "$TMP/sum")"
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
eq "--latency: column header, the timer's unit" "class	$(csv "$TMP/latd.csv" timer_unit)	calls	at_or_below" "$(sed -n 2p "$TMP/lat.tsv")"
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

# --- Max RSS is the replay's: a 10 MB workload whose program never held more than a few
# hundred KiB.  Validation reads the whole file before the replay: START is the process before
# the replay, without the file's pages, so that growth shows the allocator's, far below the
# file's size.
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
# in a single run's summary and in --compare's table alike (not the absolute peak, harness
# included), with its START -> END; the units are said once, after the 11 lines.  A 4 MiB
# block, touched: the process's own few MiB before the replay would show as a difference.
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
# own pages is more than that apart)
[ "${g2:-0}" -gt 0 ] && [ $(( (single - g2) * 10 )) -le "$g2" ] && [ $(( (g2 - single) * 10 )) -le "$g2" ] &&
	ok "a single run and --compare: the same Max RSS ($single, $g2 KiB)" || bad "Max RSS: single run $single KiB, --compare $g2 KiB"
grep -q '^Units: Kb is KiB; "usec across N threads" is the replay threads'"'"' user CPU time;$' "$TMP/one" &&
	ok "the units said after the 11 lines" || bad "units: $(grep -i units "$TMP/one")"
"$R" --help | tr '\n' ' ' | grep -q "Kb is KiB" && ok "--help says what Kb is" || bad "--help: units"
# the harness's tables the replay writes as it goes are resident before it starts: a workload of
# 500,000 signal points and no memory (each a futex word written when its count is reached, 4 MB)
# grows the anonymous RSS by far less than that
"$TP/mkfixture" wl-signals "$TMP/sig.wl" 500000
"$R" -l "$TMP/sig.tsv" "$TMP/sig.wl" >/dev/null; eq "signal points: exit 0" 0 "$?"
grow=$(awk -F'\t' 'NR == 3 { b = $6 } NR > 2 && $6 - b > m { m = $6 - b } END { print m + 0 }' "$TMP/sig.tsv")
check "signal points: the replay's anonymous RSS grew by $grow KiB, not their 3,906" test "$grow" -lt 1024
# and each replay thread's call-time histogram (38 KiB of its stack): 1,000 threads of one call
# each (Max RSS: the exact peak, which the threads' histograms made 25 to 32 MiB)
"$TP/mkfixture" wl-longchain "$TMP/lc.wl" 1000
"$R" --csv "$TMP/lc.wl" >"$TMP/lc.csv"; eq "1,000 threads: exit 0" 0 "$?"
grow=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "maxrss_growth_kb") c = i } NR == 2 { print $c }' "$TMP/lc.csv")
check "1,000 threads: Max RSS grew by ${grow:-?} KiB, not by their histograms" test "${grow:-99999}" -lt 4096

# --- failures that show: a replay made to fail (an address-space limit its malloc of 1 GiB
# does not fit; under ASan, the largest allocation it allows) where the program's call
# succeeded: counted on a line of its own right after the original 11, named with the first
# call, exit 4 (0 with --allow-failures); a --compare column so marked, without ratios
printf '= Start\n+ 0x10000 0x100\n+ 0x20000 0x40000000\n- 0x20000\n- 0x10000\n= End\n' >"$TMP/gig.log"
"$BIN/trace_import" "$TMP/gig.log" "$TMP/gig.trace" && "$BIN/trace2wl" -q "$TMP/gig.wl" "$TMP/gig.trace"
limited() { if [ "${SANITIZE:-}" = 1 ]; then ASAN_OPTIONS="$ASAN_OPTIONS:max_allocation_size_mb=512" "$@"; else (ulimit -v 400000; "$@"); fi; }
limited "$R" "$TMP/gig.wl" >"$TMP/out" 2>"$TMP/err"
eq "a replay whose malloc fails: exit 4" 4 "$?"
first='1 call that succeeded in the program failed (the first: a malloc of 1,073,741,824 bytes, stream 0, its call 2)'
eq "... the failure on line 12, after the 11" "FAILED: $first: the figures above are not comparable" "$(sed -n 12p "$TMP/out")"
sed -n 1,11p "$TMP/out" | grep -q FAILED && bad "... the 11 lines changed" || ok "... the 11 lines as they were"
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

# --- --no-timing: the same calls replayed, none timed, and the output says so
"$R" --no-timing --csv "$TMP/m.wl" >"$TMP/nt.csv"; eq "--no-timing: exit 0" 0 "$?"
eq "--no-timing: malloc calls as in the workload" "$(wl "$TMP/m.wl" malloc)" "$(csv "$TMP/nt.csv" malloc_calls)"
eq "--no-timing: free calls as in the workload" "$(wl "$TMP/m.wl" free)" "$(csv "$TMP/nt.csv" free_calls)"
eq "--no-timing: no call time" 0 "$(csv "$TMP/nt.csv" total_call_cycles)"
eq "--no-timing: no percentiles" "0 0 0" "$(csv "$TMP/nt.csv" malloc_p50_cycles) $(csv "$TMP/nt.csv" free_max_cycles) $(csv "$TMP/nt.csv" calloc_p99_cycles)"
"$R" --no-timing "$TMP/m.wl" | grep -q '^Cycles a call' && bad "--no-timing: a percentile line" || ok "--no-timing: no percentile lines"
grep -q 'off (--no-timing' "$TMP/nt.csv" && ok "--no-timing: the timer column says off" || bad "--no-timing: timer column: $(tail -n 1 "$TMP/nt.csv")"
ge "a timed replay has call time" 1 "$(csv "$TMP/lat.csv" total_call_cycles)"
"$R" --no-timing --compare glibc -r 2 "$TMP/m.wl" >"$TMP/ntc"; eq "--no-timing --compare: exit 0" 0 "$?"
eq "--no-timing reaches the compared runs (their call time is 0)" 0 "$(awk '/^total call time/ { gsub(",", "", $NF); print $NF }' "$TMP/ntc")"
# --- a timer that counts nanoseconds (a CPU without RDTSCP; forced here): every output says
# so, none says cycles
MTRACE_RUN_TIMER=clock "$R" "$TMP/m.wl" >"$TMP/ns.txt"
eq "ns timer: the first line" "ns" "$(sed -n '1s/^[0-9,]* //p' "$TMP/ns.txt")"
eq "ns timer: the total call time" "ns" "$(sed -n 's/^Total call time: [0-9,]* //p' "$TMP/ns.txt")"
grep -q '^Nanoseconds a call, p50' "$TMP/ns.txt" && ok "ns timer: the percentiles' heading" || bad "ns percentiles: $(grep 'a call' "$TMP/ns.txt")"
grep -qi 'cycles' "$TMP/ns.txt" && bad "ns timer: the summary says cycles: $(grep -i cycles "$TMP/ns.txt")" || ok "ns timer: the summary never says cycles"
grep -q '^sizeof' "$TMP/ns.txt" && bad "ns timer: the sizeof line" || ok "the summary without the sizeof line"
MTRACE_RUN_TIMER=clock "$R" --csv -L "$TMP/ns.tsv" "$TMP/m.wl" >"$TMP/ns.csv"
eq "ns timer: --csv's timer_unit" ns "$(csv "$TMP/ns.csv" timer_unit)"
MTRACE_RUN_TIMER=clock "$R" --json "$TMP/m.wl" | grep -q '"timer_unit": "ns"}$' && ok "ns timer: --json's timer_unit" || bad "ns timer: json"
eq "ns timer: --latency's column" "class	ns	calls	at_or_below" "$(sed -n 2p "$TMP/ns.tsv")"
"$BIN/trace_plot" -o "$TMP/ns.svg" "$TMP/ns.tsv"
grep -q '>malloc (ns)<' "$TMP/ns.svg" && ok "ns timer: the latency chart's axis" || bad "ns timer: latency axis"
"$BIN/trace_plot" -o "$TMP/mix.svg" "$TMP/ns.tsv" "$TMP/lat.tsv" 2>"$TMP/err"; rc=$?
if [ "$(csv "$TMP/latd.csv" timer_unit)" != ns ]; then
	eq "latency files of two units: refused (exit 1)" 1 "$rc"
	grep -q 'counts call times in ns, .* in cycles: a chart shows one unit' "$TMP/err" && ok "... saying why" || bad "mixed units: $(cat "$TMP/err")"
fi
MTRACE_RUN_TIMER=clock "$R" --compare glibc,glibc --csv "$TMP/m.wl" >"$TMP/nscmp.csv"
"$BIN/trace_plot" -o "$TMP/nscmp.svg" "$TMP/nscmp.csv"
grep -q '>malloc p99 (ns)<' "$TMP/nscmp.svg" && ok "ns timer: the compare chart's titles" || bad "ns timer: compare chart"
MTRACE_RUN_TIMER=clock "$R" --compare glibc,glibc "$TMP/m.wl" >"$TMP/nscmp.txt"
eq "ns timer: --compare's timed rows say ns" "elapsed (ns) p50 malloc (ns) p99 malloc (ns) p50 free (ns) p99 free (ns) avg malloc (ns) avg calloc (ns) avg realloc (ns) avg free (ns) total call time (ns)" \
	"$(grep '(ns)' "$TMP/nscmp.txt" | cut -c1-26 | sed 's/ *$//' | paste -sd' ')"
# --- each timer this machine has, forced: named on the Timer line, in its unit
flags=$(sed -n 's/^flags[[:space:]]*: / /p' /proc/cpuinfo 2>/dev/null | head -n 1)
has() { case "$flags " in *" $1 "*) return 0 ;; esac; return 1; }
for tm in rdtscp lfence-rdtsc clock_gettime; do
	case $tm in
	rdtscp) has constant_tsc && has nonstop_tsc && has rdtscp; avail=$?; unit=cycles ;;
	lfence-rdtsc) has constant_tsc && has nonstop_tsc; avail=$?; unit=cycles ;;
	*) avail=0 unit=ns ;;
	esac
	if [ $avail -ne 0 ]; then echo "# this CPU has no $tm timer: not tried"; continue; fi
	MTRACE_RUN_TIMER=$tm "$R" "$TMP/m.wl" >"$TMP/tm.txt"
	eq "timer $tm forced: the Timer line names it" "$tm" "$(sed -n 's/^Timer: \([^ ]*\).*/\1/p' "$TMP/tm.txt")"
	eq "timer $tm forced: the summary's unit" "$unit" "$(sed -n 's/^Total call time: [0-9,]* //p' "$TMP/tm.txt")"
done
eq "--compare of a single run: its corner says so" "(a single run each)" "$(head -n 1 "$TMP/nscmp.txt" | cut -c1-26 | sed 's/ *$//')"
finish
