# What the program touched: a program that mallocs 64 MiB blocks and writes a quarter of each
# records how much of each was resident at its free; trace2wl puts that after each allocation
# (patched in once the free is met, wherever the stream's bytes are by then: in its buffer,
# in the output, in the scratch file, or all of it on standard output); trace_run's default
# touch then writes as much, so its RSS growth is the program's (a byte a page of every block,
# --touch=pages, makes it four times as much).
. tests/lib.sh
R="$BIN/trace_run"
csv() { awk -F, -v k="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == k) c = i } NR == 2 { print $c }' "$1"; }
wl() { "$TP/wl_check" "$1" | awk -v k="$2" '$1 == k { print $2 }'; }

# --- streams of two threads, each outgrowing its buffer: every RESIDENT filled in
"$TP/mkfixture" trace-v2threads "$TMP/t"
"$BIN/trace2wl" -q "$TMP/t.wl" "$TMP/t"; eq "two threads: converted" 0 "$?"
eq "two threads: valid (waits for the blocks and mapping passed between them)" 0 "$(wl "$TMP/t.wl" violations)"
eq "two threads: three RESIDENTs (two blocks, a mapping)" 3 "$(wl "$TMP/t.wl" resident)"
"$BIN/trace_dump" "$TMP/t.wl" >"$TMP/d"
# stream 0's block (in the output by then) freed by stream 1, stream 1's (in the scratch file)
# by stream 0; the mapping: 1 MiB resident of the half unmapped with a word of it, the other
# half (unmapped without) counted whole
eq "two threads: stream 0's block, freed by the other" "resident: 256 KiB of it" "$(sed -n '/^# stream 0/,/^# stream 1/p' "$TMP/d" | grep -o 'resident: .*')"
eq "two threads: stream 1's block and mapping" "resident: 512 KiB of it resident: 3072 KiB of it" "$(sed -n '/^# stream 1/,$p' "$TMP/d" | grep -o 'resident: .*' | tr '\n' ' ' | sed 's/ $//')"
"$BIN/trace2wl" -q - "$TMP/t" >"$TMP/out.wl"
check "two threads: standard output gets the same bytes" cmp -s "$TMP/out.wl" "$TMP/t.wl"

# --- 64 MiB blocks, a quarter of each written
"$TP/selftrace" quarter "$TMP/q"; eq "quarter: traced itself" 0 "$?"
"$BIN/trace_stats" --tsv "$TMP/q" >"$TMP/qs"
res=$(awk -F'\t' '$2 == "released_large_resident_bytes" { print $3 }' "$TMP/qs")
all=$(awk -F'\t' '$2 == "released_large_bytes" { print $3 }' "$TMP/qs")
check "quarter: the trace says a quarter was resident ($res of $all)" test "$((res * 100 / all))" -ge 24 -a "$((res * 100 / all))" -le 30
"$BIN/trace2wl" -q "$TMP/q.wl" "$TMP/q"
eq "quarter: four RESIDENTs" 4 "$(wl "$TMP/q.wl" resident)"
"$BIN/trace_dump" "$TMP/q.wl" | grep -c 'resident: 1638[0-9] KiB of it' | grep -qx 4 && ok "quarter: each says 16 MiB" || bad "quarter: $("$BIN/trace_dump" "$TMP/q.wl" | grep resident)"
if [ "${SANITIZE:-}" != 1 ]; then   # ASan's allocator: another RSS altogether
	prog=$("$R" --csv -i 1 "$TMP/q.wl" | tee "$TMP/q.csv" | csv /dev/stdin program_rss_growth_kb)
	replay=$(csv "$TMP/q.csv" replay_rss_growth_kb)
	echo "# program $prog Kb, replay $replay Kb"
	check "quarter: the replay's RSS growth within 25% of the program's ($replay against $prog Kb)" \
		test "$((replay * 4))" -le "$((prog * 5))" -a "$((replay * 4))" -ge "$((prog * 3))"
	eq "quarter: four blocks touched as the program had them" 4 "$(csv "$TMP/q.csv" resident_touches)"
	"$R" --csv -i 1 --touch=pages "$TMP/q.wl" >"$TMP/qp.csv"
	pages=$(csv "$TMP/qp.csv" replay_rss_growth_kb)
	check "quarter, --touch=pages: three times the program's at least ($pages against $prog Kb)" test "$pages" -ge "$((prog * 3))"
	eq "quarter, --touch=pages: no block touched as the program had it" 0 "$(csv "$TMP/qp.csv" resident_touches)"
	"$R" --csv -i 1 --touch=none "$TMP/q.wl" >"$TMP/qn.csv"
	check "quarter, --touch=none: below a quarter of the program's" test "$(csv "$TMP/qn.csv" replay_rss_growth_kb)" -lt "$((prog / 4))"
	# --compare's runs touch as the single run does
	"$R" --compare glibc,glibc --csv -i 1 "$TMP/q.wl" >"$TMP/qc.csv"
	eq "quarter, --compare: each run touched as the program had it" "4 4" "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "resident_touches") c = i } NR > 1 { printf "%s ", $c }' "$TMP/qc.csv" | sed 's/ $//')"
fi

# --- a block of twice the memory available that the program never wrote: what a replay that
# touches as the program did needs is what the program held (its samples), not the block's
# size, so it is not refused for memory (by pages it is)
big=$(awk '/^MemAvailable:/ { printf "%.0f\n", $2 * 1024 * 2 }' /proc/meminfo)
"$TP/mkprogmem" untouched "$TMP/u" "$big" && "$BIN/trace2wl" -q "$TMP/u.wl" "$TMP/u"
limited() { if [ "${SANITIZE:-}" = 1 ]; then ASAN_OPTIONS="$ASAN_OPTIONS:max_allocation_size_mb=4096" "$@"; else (ulimit -v 4000000; "$@"); fi; }
limited "$R" "$TMP/u.wl" >/dev/null 2>"$TMP/err"
grep -q "memory available" "$TMP/err" && bad "untouched: refused for memory: $(cat "$TMP/err")" || ok "untouched: not refused for memory (the program held 2 MB)"
limited "$R" --touch=pages "$TMP/u.wl" >/dev/null 2>"$TMP/err"; eq "untouched, --touch=pages: refused" 3 "$?"
grep -q "its blocks reach [0-9,]* MiB live at their peak" "$TMP/err" && ok "untouched, --touch=pages: says the blocks" || bad "untouched, pages: $(cat "$TMP/err")"

# --- the same program traced by the tracer (libmtracectl.so), not by itself
traced "$TMP/tq" "$TP/selftrace" quarter -; eq "quarter, traced: exit 0" 0 "$?"
tq=$(one_file "$TMP/tq.*")
"$BIN/trace2wl" -q "$TMP/tq.wl" "$tq"
eq "quarter, traced: four RESIDENTs, each known" 4 "$("$BIN/trace_dump" "$TMP/tq.wl" | grep -c 'resident: 1638[0-9] KiB of it')"
if [ "${SANITIZE:-}" != 1 ]; then
	"$R" --csv -i 1 "$TMP/tq.wl" >"$TMP/tq.csv"
	prog=$(csv "$TMP/tq.csv" program_rss_growth_kb); replay=$(csv "$TMP/tq.csv" replay_rss_growth_kb)
	check "quarter, traced: the replay within 25% of the program ($replay against $prog Kb)" \
		test "$((replay * 4))" -le "$((prog * 5))" -a "$((replay * 4))" -ge "$((prog * 3))"
fi

# --- blocks the program still holds when it exits: each large one says at the trace's end what
# was resident (a LIVE record), trace2wl puts that after its allocation as from a release, and
# the replay touches what the program had, not the whole of them (eight blocks of 16 MiB, a
# quarter of each written: 32 MiB, not 128)
traced "$TMP/kl" "$TP/keeplive" >"$TMP/kl.out"; eq "kept: exit 0" 0 "$?"
"$TP/keeplive" >"$TMP/kl.plain"
check "kept: the same output as untraced" cmp "$TMP/kl.plain" "$TMP/kl.out"
kl=$(one_file "$TMP/kl.*[0-9]")
check "kept: the trace validates" "$BIN/trace_dump" -c "$kl"
eq "kept: eight blocks live at the end" 8 "$(count "$kl" live)"
"$BIN/trace_dump" "$kl" | awk '/ live at the end: / { gsub(",", "", $(NF - 3)); r = $(NF - 3); n++; if (r >= 4194304 && r < 4194304 + 2097152) k++ } END { exit !(n == 8 && k == 8) }' &&
	ok "kept: each says a quarter of it resident" || bad "kept: $("$BIN/trace_dump" "$kl" | grep 'live at the end' | head -n 3 | tr '\n' ' ')"
"$BIN/trace2wl" "$TMP/kl.wl" "$kl" 2>"$TMP/kl.sum"; eq "kept: converted" 0 "$?"
grep -q "resident *10 of 10 blocks of 65,536 bytes or more say what was resident (8 of them at the end, still live)" "$TMP/kl.sum" &&
	ok "kept: trace2wl knows every block's resident bytes" || bad "kept: $(grep -A1 '^ *resident' "$TMP/kl.sum")"
eq "kept: valid" 0 "$(wl "$TMP/kl.wl" violations)"
if [ "${SANITIZE:-}" != 1 ]; then
	"$R" -m traced --csv -i 1 "$TMP/kl.wl" >"$TMP/kl.csv"; eq "kept: replayed" 0 "$?"
	prog=$(csv "$TMP/kl.csv" program_rss_growth_kb); replay=$(csv "$TMP/kl.csv" replay_rss_growth_kb)
	echo "# program $prog Kb, replay $replay Kb"
	check "kept: the replay's peak growth within 15% of the program's ($replay against $prog Kb)" \
		test "$((replay * 100))" -le "$((prog * 115))" -a "$((replay * 100))" -ge "$((prog * 85))"
	eq "kept: ten blocks touched as the program had them (the 8 MiB one realloc grew too)" 10 "$(csv "$TMP/kl.csv" resident_touches)"
fi
traced "$TMP/ke" "$TP/keeplive" _exit >/dev/null; eq "kept, _exit: exit 0" 0 "$?"
eq "kept, _exit: eight blocks live at the end" 8 "$(count "$(one_file "$TMP/ke.*")" live)"
# a fork child's blocks are its own: its parent's, which it holds too, were recorded in another
# file
traced "$TMP/kf" "$TP/keeplive" fork >/dev/null; eq "kept, fork: exit 0" 0 "$?"
for f in "$TMP"/kf.*; do count "$f" live; done | sort -n | tr '\n' ' ' >"$TMP/kf"
eq "kept, fork: two traces, one block live at the child's end, eight at its parent's" "1 8 " "$(cat "$TMP/kf")"
# more large blocks than the tracer's table holds (16,384): those it has no room for are counted
# in the header, the others said at the end
traced "$TMP/km" "$TP/keeplive" many >/dev/null; eq "kept, 20,008 blocks: exit 0" 0 "$?"
km=$(one_file "$TMP/km.*")
check "kept, 20,008 blocks: the trace validates" "$BIN/trace_dump" -c "$km"
live=$(count "$km" live)
untracked=$("$BIN/trace_dump" -H "$km" | sed -n 's/^# untracked \([0-9,]*\) large blocks.*/\1/p' | tr -d ,)
eq "kept, 20,008 blocks: each said at the end or counted untracked ($live + $untracked)" 20008 "$((live + untracked))"
ge "kept, 20,008 blocks: 3,624 at least had no room" 3624 "$untracked"
finish
