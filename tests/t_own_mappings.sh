# Memory the program maps itself: the trace holds its mmap, munmap, mremap and brk calls (the
# allocator's own apart), trace2wl carries the program's as MAP, UNMAP and REMAP calls (a
# munmap of any part of any mappings, a mremap of a whole one, the break moved) and says when
# most of the memory bypassed malloc, and trace_run replays them so that its RSS includes them,
# reported apart.  A workload's map ids can never make a replay unmap what it did not map.
. tests/lib.sh
R="$BIN/trace_run"
csv() { awk -F, -v k="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == k) c = i } NR == 2 { print $c }' "$1"; }
wl() { "$TP/wl_check" "$1" | awk -v k="$2" '$1 == k { print $2 }'; }

# --- a program that maps 32 MiB itself, writes it, and frees nothing through malloc
"$TP/selftrace" mapped "$TMP/m"; eq "32 MiB: traced itself" 0 "$?"
eq "32 MiB: the trace holds the mmap" 1 "$(count "$TMP/m" mmap)"
eq "32 MiB: and both munmaps" 2 "$(count "$TMP/m" munmap)"
eq "32 MiB: no allocator call" 0 "$(count "$TMP/m" malloc)"
"$BIN/trace2wl" "$TMP/m.wl" "$TMP/m" 2>"$TMP/sum"; eq "32 MiB: converted" 0 "$?"
grep -q "note: most of this program's memory bypassed malloc: it mapped 32 MiB itself" "$TMP/sum" && ok "32 MiB: the summary says the memory bypassed malloc" || bad "32 MiB: summary: $(cat "$TMP/sum")"
grep -q "the program's: mmap 1, munmap 2, mremap 0, brk 0;" "$TMP/sum" && ok "32 MiB: the summary counts the mappings" || bad "32 MiB: $(grep mappings "$TMP/sum")"
eq "32 MiB: a MAP" 1 "$(wl "$TMP/m.wl" map)"
eq "32 MiB: two UNMAPs" 2 "$(wl "$TMP/m.wl" unmap)"
eq "32 MiB: valid" 0 "$(wl "$TMP/m.wl" violations)"
"$R" --csv -i 1 "$TMP/m.wl" >"$TMP/m.csv"; eq "32 MiB: replayed" 0 "$?"
eq "32 MiB: the replay mapped 32 MiB" 32768 "$(csv "$TMP/m.csv" replay_mapped_kb)"
growth=$(csv "$TMP/m.csv" maxrss_growth_kb)
check "32 MiB: the replay's RSS includes them ($growth Kb)" test "$growth" -ge 31000
"$R" "$TMP/m.wl" >"$TMP/m.txt"
grep -q "^Program's own mappings: 32,768 Kb at the most, replayed (in the RSS above)$" "$TMP/m.txt" && ok "32 MiB: reported apart" || bad "32 MiB: $(tail -n 3 "$TMP/m.txt")"
eq "32 MiB: the summary's first 11 lines keep their layout" "Total call time: 0" "$(sed -n 11p "$TMP/m.txt" | cut -d' ' -f1-4)"

# --- the same program traced by the tracer (libmtracectl.so), not by itself
traced "$TMP/tm" "$TP/selftrace" mapped -; eq "32 MiB, traced: exit 0" 0 "$?"
tm=$(one_file "$TMP/tm.*")
eq "32 MiB, traced: the trace holds the mmap" 1 "$(count "$tm" mmap)"
eq "32 MiB, traced: and both munmaps" 2 "$(count "$tm" munmap)"
"$BIN/trace2wl" -q "$TMP/tm.wl" "$tm"
"$R" --csv -i 1 "$TMP/tm.wl" >"$TMP/tm.csv"; eq "32 MiB, traced: replayed" 0 "$?"
eq "32 MiB, traced: the replay mapped 32 MiB" 32768 "$(csv "$TMP/tm.csv" replay_mapped_kb)"
growth=$(csv "$TMP/tm.csv" maxrss_growth_kb)
check "32 MiB, traced: the replay's RSS includes them ($growth Kb)" test "$growth" -ge 31000

# --- cut in the middle, remapped, the break moved, the allocator's own left out
"$TP/mkprogmem" v2 "$TMP/v2"
"$BIN/trace2wl" -q "$TMP/v2.wl" "$TMP/v2"
"$BIN/trace_dump" "$TMP/v2.wl" | grep -E ' (map|unmap|remap)\(' | awk '{ $1 = ""; print }' >"$TMP/ops"
cat >"$TMP/want" <<'W'
 2 map(map 0, 2097152)
 4 unmap(map 0, offset 1048576, 1048576)
 5 remap(map 0, 3145728)
 7 map(map 1, 1048576)
 8 unmap(map 0, offset 0, 3145728)
 9 unmap(map 1, offset 524288, 524288)
W
cmp -s "$TMP/ops" "$TMP/want" && ok "v2: the program's mappings as MAP, UNMAP, REMAP (the allocator's own not)" || bad "v2: $(diff "$TMP/want" "$TMP/ops" | tr '\n' ' ')"
eq "v2: two map ids" 2 "$(wl "$TMP/v2.wl" maps)"
eq "v2: valid" 0 "$(wl "$TMP/v2.wl" violations)"
"$R" --csv "$TMP/v2.wl" >"$TMP/v2.csv"; eq "v2: replayed" 0 "$?"
eq "v2: 4 MiB mapped at the most (3 remapped, 1 of break)" 4096 "$(csv "$TMP/v2.csv" replay_mapped_kb)"
"$BIN/trace2wl" -q --dj-format "$TMP/v2.dj" "$TMP/v2b.wl" "$TMP/v2"; eq "v2: --dj-format leaves the mappings out" 0 "$?"
"$R" --csv "$TMP/v2.dj" >"$TMP/v2dj.csv"; eq "v2: its dj/malloc encoding replays" 0 "$?"
eq "v2: dj/malloc: the allocator calls, no mapping" "2 0" "$(csv "$TMP/v2dj.csv" malloc_calls) $(csv "$TMP/v2dj.csv" replay_mapped_kb)"

# --- map ids as a hostile workload uses them: the replay unmaps only what it mapped
"$TP/mkfixture" wl-maps "$TMP/h.wl"
"$R" --csv "$TMP/h.wl" >"$TMP/h.csv" 2>"$TMP/h.err"; eq "hostile map ids: replayed, unharmed" 0 "$?"
eq "hostile map ids: the calls after them ran" 1 "$(csv "$TMP/h.csv" malloc_calls)"
finish
