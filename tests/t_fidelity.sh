# The program's memory beside the replay's: a program in phases (many small blocks, most freed,
# an idle time, larger blocks, all freed) traces its own memory samples; trace2wl carries them,
# with the idle time as an AT; a glibc replay's peak growth comes within 15% of the program's,
# printed after the summary's first 12 lines and in --csv, --json and --compare; on another
# allocator or other settings the figures say what that allocator would have used.  --pace
# waits for the program's times (the replay takes at least as long as the program's time of
# its last idle-marked call).  A trace without samples converts and replays, with no fidelity
# figures, and a workload of version 1 replays.
. tests/lib.sh
R="$BIN/trace_run"
csv() { awk -F, -v k="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == k) c = i } NR == 2 { print $c }' "$1"; }
wl() { "$TP/wl_check" "$1" | awk -v k="$2" '$1 == k { print $2 }'; }
json() { tr ',{}' '\n\n\n' <"$1" | awk -F': ' -v k="\"$2\"" '$1 ~ k { print $2 }' | tr -d ' '; }

"$TP/selftrace" phases "$TMP/p"; eq "phases: traced itself" 0 "$?"
"$BIN/trace2wl" "$TMP/p.wl" "$TMP/p" 2>"$TMP/sum"; eq "phases: converted" 0 "$?"
samples=$(count "$TMP/p" samples)
eq "phases: the workload holds every sample" "$samples" "$(wl "$TMP/p.wl" samples)"
eq "phases: valid" 0 "$(wl "$TMP/p.wl" violations)"
ge "phases: the idle time is marked" 1 "$(wl "$TMP/p.wl" at)"
grep -q "^  memory samples   $samples: anonymous RSS " "$TMP/sum" && ok "phases: the summary counts the samples" || bad "phases: $(grep samples "$TMP/sum")"
"$BIN/trace_dump" -H "$TMP/p.wl" >"$TMP/h"
grep -q '^# samples   ' "$TMP/h" && ok "trace_dump: the samples in the header" || bad "trace_dump: no samples line"
# the program's peak comes after its idle time (1 ms or more), and within the trace's time
at=$(sed -n 's/^# samples .* at \([0-9,]*\) us)$/\1/p' "$TMP/h" | tr -d ,)
ran=$(sed -n 's/^# pace .* the trace ran \([0-9,]*\) us$/\1/p' "$TMP/h" | tr -d ,)
check "trace_dump: the peak's time after the idle time and within the run ($at us of $ran)" \
	test "${at:-0}" -ge 1000 -a "${at:-0}" -le "${ran:-0}"

"$R" -i 1 "$TMP/p.wl" >"$TMP/p.txt"; eq "phases: replayed" 0 "$?"
eq "phases: the summary's 11th line is the total call time" "Total call time" "$(sed -n 11p "$TMP/p.txt" | cut -d: -f1)"
grep -q "^Program as traced: [0-9,]* Kb peak anonymous RSS growth; this replay: [0-9,]* Kb ([-+][0-9.]*%); the two curves differ by [0-9.]*% of that peak on average over the program's time ([0-9.]*% call by call); as fast as it goes, a replay does not keep the program's time between its calls (--pace does)$" "$TMP/p.txt" \
	&& ok "phases: the fidelity line" || bad "phases: $(tail -n 2 "$TMP/p.txt")"
check "phases: after the original summary" test "$(grep -n '^Program as traced' "$TMP/p.txt" | cut -d: -f1)" -gt 11
"$R" --json -i 1 "$TMP/p.wl" >"$TMP/p.json"
for k in program_rss_growth_kb replay_rss_growth_kb fidelity_peak_error fidelity_curve_error fidelity_time_error; do
	v=$(json "$TMP/p.json" $k)
	echo "$v" | grep -Eq '^-?[0-9]+(\.[0-9]+)?$' && ok "json: $k ($v)" || bad "json: $k: '$v'"
done
eq "json: the replay is the program's (glibc, no settings)" 1 "$(json "$TMP/p.json" fidelity_applies)"
"$R" --csv -i 1 "$TMP/p.wl" >"$TMP/p.csv"
prog=$(csv "$TMP/p.csv" program_rss_growth_kb); replay=$(csv "$TMP/p.csv" replay_rss_growth_kb)
err=$(csv "$TMP/p.csv" fidelity_peak_error)
echo "# program $prog Kb, replay $replay Kb, peak error $err, curve error $(csv "$TMP/p.csv" fidelity_curve_error)"
eq "csv: the error is the two growths' (as a fraction)" "$(echo "$replay $prog" | awk '{ printf "%.2f", ($1 - $2) / $2 }')" "$(echo "$err" | awk '{ printf "%.2f", $1 }')"
if [ "${SANITIZE:-}" != 1 ]; then   # ASan's allocator: not the program's
	check "phases: the glibc replay's peak growth within 15% of the program's ($replay against $prog Kb)" \
		test "$((replay * 100))" -ge "$((prog * 85))" -a "$((replay * 100))" -le "$((prog * 115))"
fi

# the same program traced by the tracer (libmtracectl.so), not by itself
traced "$TMP/tp" "$TP/selftrace" phases -; eq "phases, traced: exit 0" 0 "$?"
tp=$(one_file "$TMP/tp.*")
"$BIN/trace2wl" -q "$TMP/tp.wl" "$tp"
ge "phases, traced: the workload holds the tracer's samples" 3 "$(wl "$TMP/tp.wl" samples)"
if [ "${SANITIZE:-}" != 1 ]; then
	"$R" --csv -i 1 "$TMP/tp.wl" >"$TMP/tp.csv"
	prog=$(csv "$TMP/tp.csv" program_rss_growth_kb); replay=$(csv "$TMP/tp.csv" replay_rss_growth_kb)
	check "phases, traced: the glibc replay's peak growth within 15% of the program's ($replay against $prog Kb)" \
		test "$((replay * 100))" -ge "$((prog * 85))" -a "$((replay * 100))" -le "$((prog * 115))"
fi

# --- other settings: what this allocator would have used
"$R" -i 1 --mallopt M_ARENA_MAX=1 "$TMP/p.wl" >"$TMP/o.txt"
grep -q '^Program as traced (on .*libc.so.6): [0-9,]* Kb peak anonymous RSS growth; what this allocator would have used: .*(not a fidelity figure: this replay.s allocator or settings are not the traced ones)$' "$TMP/o.txt" \
	&& ok "other settings: said plainly" || bad "other settings: $(tail -n 1 "$TMP/o.txt")"
"$R" --compare 'glibc,glibc(M_ARENA_MAX=1)' -i 1 "$TMP/p.wl" >"$TMP/c.txt"; eq "--compare: exit 0" 0 "$?"
for row in "program RSS growth (KiB)" "replay RSS growth (KiB)" "vs the program, at peak" "vs the program, by time" "vs the program, by call"; do
	grep -q "^$row " "$TMP/c.txt" && ok "--compare: a row '$row'" || bad "--compare: no row '$row'"
done
grep -q "^ what that allocator would have used, not how faithful the replay is)$" "$TMP/c.txt" \
	&& ok "--compare: the other settings' column said plainly" || bad "--compare: $(tail -n 3 "$TMP/c.txt")"
"$R" --compare glibc,glibc --csv -i 1 "$TMP/p.wl" >"$TMP/cc.csv"
eq "--compare --csv: the fields read back from each run" "1 1" "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "fidelity_applies") c = i } NR > 1 { printf "%s ", $c }' "$TMP/cc.csv" | sed 's/ $//')"

# --- pace: each stream waits for its calls' times; the replay lasts at least as long as the
# program's time of its last marked call (a lower bound: never a flaky upper one)
last_at=$("$BIN/trace_dump" "$TMP/p.wl" | awk '/ at [0-9.]+ s \(after an idle time\)$/ { t = $3 } END { printf "%d", t * 1000000 }')
ge "pace: the idle time is at least 150 ms in" 150000 "$last_at"
"$R" --csv --pace -l "$TMP/pace.tsv" "$TMP/p.wl" >"$TMP/pace.csv"; eq "--pace: exit 0" 0 "$?"
ge "--pace: the replay waited for the program's times (usec)" "$last_at" "$(csv "$TMP/pace.csv" wall_usec)"
"$R" --csv --pace=3 "$TMP/p.wl" >"$TMP/pace3.csv"; eq "--pace=3: exit 0" 0 "$?"
ge "--pace=3: a third of them" "$((last_at / 3))" "$(csv "$TMP/pace3.csv" wall_usec)"
eq "--pace: the timeline says the program's time" "program_ms" "$(sed -n 2p "$TMP/pace.tsv" | cut -f 8)"
"$R" --pace=0 "$TMP/p.wl" >/dev/null 2>&1; eq "--pace=0: exit 2" 2 "$?"
"$R" --pace=x "$TMP/p.wl" >/dev/null 2>&1; eq "--pace=x: exit 2" 2 "$?"
"$BIN/trace2wl" -q --pace-threshold=0 "$TMP/p0.wl" "$TMP/p"
eq "--pace-threshold=0: no AT" 0 "$(wl "$TMP/p0.wl" at)"
"$BIN/trace2wl" -q --pace-threshold=x "$TMP/px.wl" "$TMP/p" 2>/dev/null; eq "--pace-threshold=x: exit 2" 2 "$?"

# --- trace_plot rss: the program's curve beside the replays', by the program's time where
# every timeline says where its replay was in it (program_ms), else by calls
"$R" -i 2 -l "$TMP/fast.tsv" "$TMP/p.wl" >/dev/null
eq "a fast replay's timeline says the program's time too" "program_ms" "$(sed -n 2p "$TMP/fast.tsv" | cut -f 8)"
cut -f 1-7 "$TMP/fast.tsv" >"$TMP/fast7.tsv"
"$BIN/trace_plot" -o "$TMP/bycalls.svg" "$TMP/p.wl" "$TMP/fast7.tsv" 2>/dev/null; eq "trace_plot: workload and timeline: exit 0" 0 "$?"
grep -q '>the program, as traced<' "$TMP/bycalls.svg" && ok "trace_plot: the program's curve" || bad "trace_plot: no program curve"
grep -q '>calls completed (all threads)<' "$TMP/bycalls.svg" && ok "trace_plot: a timeline without the program's time: by calls" || bad "trace_plot: not by calls"
"$BIN/trace_plot" -o "$TMP/bytime.svg" "$TMP/p.wl" "$TMP/pace.tsv" 2>/dev/null; eq "trace_plot: a paced timeline: exit 0" 0 "$?"
grep -q 'time (replays: where they were in it)<' "$TMP/bytime.svg" && ok "trace_plot: paced: by the program's time" || bad "trace_plot: paced: not by time"
"$BIN/trace_plot" -o "$TMP/mixed.svg" "$TMP/p.wl" "$TMP/pace.tsv" "$TMP/fast.tsv" 2>/dev/null; eq "trace_plot: paced and unpaced: exit 0" 0 "$?"
grep -q 'time (replays: where they were in it)<' "$TMP/mixed.svg" && ok "trace_plot: paced and unpaced: by the program's time" || bad "trace_plot: mixed: not by time"
"$BIN/trace_plot" -o "$TMP/mixed7.svg" "$TMP/p.wl" "$TMP/pace.tsv" "$TMP/fast7.tsv" 2>/dev/null
grep -q '>calls completed (all threads)<' "$TMP/mixed7.svg" && ok "trace_plot: one timeline without the program's time: by calls" || bad "trace_plot: mixed7: not by calls"
if command -v python3 >/dev/null; then   # read back: no overlaps, units on the axes (t_charts.sh)
	python3 tests/svgcheck.py "$TMP/bycalls.svg" "$TMP/bytime.svg" "$TMP/mixed.svg" >"$TMP/chk"; eq "trace_plot: the charts read well" 0 "$?"
fi
"$BIN/trace_plot" -o "$TMP/x.svg" "$TMP/p.wl" 2>"$TMP/err"; eq "trace_plot: the workload alone: exit 2" 2 "$?"
cut -f 1-4 "$TMP/fast.tsv" >"$TMP/old.tsv"
"$BIN/trace_plot" -o "$TMP/x.svg" "$TMP/p.wl" "$TMP/old.tsv" 2>"$TMP/err"; eq "trace_plot: a timeline without calls: exit 2" 2 "$?"
grep -q 'no calls column' "$TMP/err" && ok "trace_plot: says why" || bad "trace_plot: $(cat "$TMP/err")"
"$BIN/trace_plot" -o "$TMP/x.svg" "$TMP/old.tsv" 2>/dev/null; eq "trace_plot: the older timeline alone still draws" 0 "$?"

# a workload whose marks lie past its trace's end would make a paced replay wait for as long as
# the file says: refused
"$TP/mkfixture" wl-at "$TMP/at.wl"
"$R" --pace "$TMP/at.wl" >/dev/null 2>"$TMP/err"; eq "an AT after the trace's end: refused" 1 "$?"
grep -q "a call at 5000000 us, after the trace's end (1000 us)" "$TMP/err" && ok "an AT after the end: says where" || bad "AT: $(cat "$TMP/err")"

# --- a trace without samples: replayed, with no fidelity figures
"$TP/mkfixture" trace-edge "$TMP/edge"
"$BIN/trace2wl" -q --pace-threshold=0 "$TMP/edge.wl" "$TMP/edge"
"$R" "$TMP/edge.wl" >"$TMP/e.txt"; eq "no samples: replayed" 0 "$?"
grep -q '^Program as traced' "$TMP/e.txt" && bad "no samples: no fidelity line" || ok "no samples: no fidelity line"
"$R" -i 2 -l "$TMP/e.tsv" "$TMP/edge.wl" >/dev/null
"$BIN/trace_plot" -o "$TMP/x.svg" "$TMP/edge.wl" "$TMP/e.tsv" 2>"$TMP/err"; eq "trace_plot: a workload without samples: exit 1" 1 "$?"
"$R" --csv "$TMP/edge.wl" >"$TMP/e.csv"
eq "no samples: csv fields empty" "" "$(csv "$TMP/e.csv" program_rss_growth_kb)$(csv "$TMP/e.csv" fidelity_peak_error)"
"$R" --json "$TMP/edge.wl" >"$TMP/e.json"
eq "no samples: json null" "null" "$(json "$TMP/e.json" fidelity_curve_error)"

# --- a workload of version 1 (what trace2wl wrote before version 2: the same bytes but the
# version) still replays; version 2's operations in one are refused
cp "$TMP/edge.wl" "$TMP/v1.wl"
printf '\001\000\000\000' | dd of="$TMP/v1.wl" bs=1 seek=8 conv=notrunc 2>/dev/null
"$BIN/trace_dump" -H "$TMP/v1.wl" | grep -q 'mtrace workload v1,' && ok "version 1: read as such" || bad "version 1: $("$BIN/trace_dump" -H "$TMP/v1.wl" | head -n 2)"
"$R" --csv "$TMP/v1.wl" >"$TMP/v1.csv"; eq "version 1: replays" 0 "$?"
eq "version 1: every free" "$(csv "$TMP/e.csv" free_calls)" "$(csv "$TMP/v1.csv" free_calls)"
cp "$TMP/p.wl" "$TMP/bad1.wl"
printf '\001\000\000\000' | dd of="$TMP/bad1.wl" bs=1 seek=8 conv=notrunc 2>/dev/null
"$BIN/trace_dump" -c "$TMP/bad1.wl" >/dev/null 2>"$TMP/err"; eq "version 1 with samples: refused" 1 "$?"
grep -q 'version-1 workload with version-2 fields' "$TMP/err" && ok "version 1 with samples: says why" || bad "version 1: $(cat "$TMP/err")"
finish
