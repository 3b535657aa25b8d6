# A fidelity score weighed by the program's time: a program that idles with 64 MiB more for 90%
# of its time and makes 99.8% of its calls with memory low (mkwlmem idle-miss), replayed without
# the plateau (its calls do not make it), scores far off over the program's time and near call
# by call; the summary's headline, --csv, --json and --compare give the time's figure first.
# The same program whose calls do hold the plateau (idle-hold) scores near by time, paced and
# fast (a fast replay samples its state where the program had been idle, at the AT); a stream
# that has not made its next call holds a fast replay's place in the program's time back to that
# call's time, whatever the other streams' calls add up to (late).  A block
# the program fills between its calls (fill: its samples rise for 8 s without a call) is filled
# by a paced replay as the program's curve rises, not at its malloc; its peak stays the program's;
# likewise a mapping of the program's own (fill-map).
. tests/lib.sh
R="$BIN/trace_run"
csv() { awk -F, -v k="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == k) c = i } NR == 2 { print $c }' "$1"; }
json() { tr ',{}' '\n\n\n' <"$1" | awk -F': ' -v k="\"$2\"" '$1 ~ k { print $2 }' | tr -d ' '; }
# within LO HI X: LO <= X <= HI (fractions)
within() { awk -v lo="$1" -v hi="$2" -v x="$3" 'BEGIN { exit !(x != "" && x >= lo && x <= hi) }'; }
for k in idle-miss idle-hold fill fill-map late; do "$TP/mkwlmem" $k "$TMP/$k.wl"; done

# --- the plateau missed: far off by time, near by calls, fast and paced
"$R" --csv "$TMP/idle-miss.wl" >"$TMP/mf.csv"; eq "idle-miss, fast: exit 0" 0 "$?"
"$R" --csv --pace=20 -i 1 "$TMP/idle-miss.wl" >"$TMP/mp.csv"; eq "idle-miss, paced: exit 0" 0 "$?"
for m in mf mp; do
	t=$(csv "$TMP/$m.csv" fidelity_time_error); c=$(csv "$TMP/$m.csv" fidelity_curve_error)
	check "idle-miss ($m): far off over the program's time ($t)" within 0.8 1.0 "$t"
	check "idle-miss ($m): near call by call, which hides it ($c)" within 0 0.05 "$c"
done
"$R" "$TMP/idle-miss.wl" >"$TMP/m.txt"
line=$(grep '^Program as traced' "$TMP/m.txt")
echo "$line" | grep -Eq "; the two curves differ by (8[0-9]|9[0-9])\.[0-9]% of that peak on average over the program's time \([0-4]\.[0-9]% call by call\); as fast as it goes, a replay does not keep the program's time between its calls \(--pace does\)$" \
	&& ok "the summary's headline is the figure over time, and a fast replay says what it cannot" || bad "headline: $line"
"$R" --pace=20 "$TMP/idle-miss.wl" | grep '^Program as traced' | grep -q 'as fast as it goes' \
	&& bad "paced: says it is not" || ok "a paced replay's line does not say it"
"$R" --json "$TMP/idle-miss.wl" >"$TMP/m.json"
check "json: fidelity_time_error ($(json "$TMP/m.json" fidelity_time_error))" within 0.8 1.0 "$(json "$TMP/m.json" fidelity_time_error)"
check "json: fidelity_curve_error kept ($(json "$TMP/m.json" fidelity_curve_error))" within 0 0.05 "$(json "$TMP/m.json" fidelity_curve_error)"
"$R" --compare glibc "$TMP/idle-miss.wl" >"$TMP/c.txt"; eq "--compare: exit 0" 0 "$?"
bytime=$(grep -n '^vs the program, by time ' "$TMP/c.txt"); bycall=$(grep -n '^vs the program, by call ' "$TMP/c.txt")
echo "$bytime" | grep -Eq ' (8[0-9]|9[0-9])\.[0-9]%$' && ok "--compare: the row by time ($bytime)" || bad "--compare: $bytime"
check "--compare: by time before by call" test "${bytime%%:*}" -lt "${bycall%%:*}"

# --- the plateau held: near by time.  near: the replay of the allocator the program ran on; far under ASan, whose allocator keeps
# freed blocks a while (its quarantine)
if [ "${SANITIZE:-}" = 1 ]; then near() { echo "$1: $3 (ASan's allocator: not checked)"; }
else near() { check "$1 ($3)" within 0 "$2" "$3"; }; fi
"$R" --csv --pace=10 -i 1 "$TMP/idle-hold.wl" >"$TMP/hp.csv"; eq "idle-hold, paced: exit 0" 0 "$?"
near "idle-hold, paced: near over the program's time" 0.15 "$(csv "$TMP/hp.csv" fidelity_time_error)"
"$R" --csv -l "$TMP/hf.tsv" "$TMP/idle-hold.wl" >"$TMP/hf.csv"; eq "idle-hold, fast: exit 0" 0 "$?"
near "idle-hold, fast: its state at the idle time sampled, near over time" 0.15 "$(csv "$TMP/hf.csv" fidelity_time_error)"
# (the timeline has that sample: the plateau's 64 MiB at the program's 9 s)
awk -F'\t' 'NR > 2 && $8 == 9000 && $6 >= 65536 { f = 1 } END { exit !f }' "$TMP/hf.tsv" \
	&& ok "idle-hold, fast: the timeline's row at the AT" || bad "idle-hold, fast: $(cat "$TMP/hf.tsv")"

# --- a fast replay's place in the program's time: a stream not started yet (one replay thread:
# the second waits for the first to end) holds it back to its first call's time (1 s), however
# many calls the other made (1,000, which the program had made by 3 s)
"$R" --threads=1 -l "$TMP/late.tsv" "$TMP/late.wl" >/dev/null; eq "late: exit 0" 0 "$?"
at=$(awk -F'\t' 'NR > 2 && $5 == 1000 { print $8 + 0 }' "$TMP/late.tsv" | sort -u | tr '\n' ' ')
eq "late: at 1,000 calls of the first stream, the program's time is the second's first call" "1000 " "$at"

# --- a block filled between calls, followed
"$R" --csv --pace=10 -i 1 -l "$TMP/fp.tsv" "$TMP/fill.wl" >"$TMP/fp.csv"; eq "fill, paced: exit 0" 0 "$?"
near "fill, paced: the block filled as the program's curve rose" 0.15 "$(csv "$TMP/fp.csv" fidelity_time_error)"
near "fill, paced: its peak the program's (growth above it)" 0.05 "$(csv "$TMP/fp.csv" fidelity_peak_error | tr -d -)"
# half way through the fill (4 s) the replay held about half the block, not all of it
half=$(awk -F'\t' 'NR > 2 && $8 >= 3500 && $8 <= 4500 { print $6 - base; exit } NR == 3 { base = $6 }' "$TMP/fp.tsv")
check "fill, paced: half of it at half time (${half:-?} KiB of 65,536)" within 16384 49152 "${half:-0}"
"$R" --csv --pace=10 -i 1 "$TMP/fill-map.wl" >"$TMP/fm.csv"; eq "fill-map, paced: exit 0" 0 "$?"
t=$(csv "$TMP/fm.csv" fidelity_time_error); p=$(csv "$TMP/fm.csv" fidelity_peak_error)
check "fill-map, paced: a mapping of the program's filled as its curve rose ($t)" within 0 0.15 "$t"
check "fill-map, paced: its peak the program's ($p)" within -0.05 0.05 "$p"
"$R" --csv "$TMP/fill.wl" >"$TMP/ff.csv"
t=$(csv "$TMP/ff.csv" fidelity_time_error)
check "fill, fast: touched at its call, far off by time ($t)" within 0.25 0.6 "$t"
"$R" --csv --pace=10 --touch=pages "$TMP/fill.wl" >"$TMP/fpp.csv"
t=$(csv "$TMP/fpp.csv" fidelity_time_error)
check "fill, paced, --touch=pages: touched at its call ($t)" within 0.25 0.6 "$t"
finish
