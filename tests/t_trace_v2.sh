# Version-2 records read everywhere: mapping calls, memory samples and resident bytes are
# printed, checked against the header (a record the header does not announce, or one that
# cannot be, is refused with its offset), counted by trace_stats (the program's own mappings at
# peak, its samples' peak and growth, what large blocks had resident), read alike in either
# byte order and record by record or in runs, and kept by trace_pack (--anonymize too: a
# munmap of half a mapping still falls inside it).
. tests/lib.sh
"$TP/mkprogmem" v2 "$TMP/v2"
"$BIN/trace_dump" -c "$TMP/v2" >"$TMP/c"; eq "v2: valid" 0 "$?"
# the calls counted are the allocator's, the program's mapping calls apart, as every tool says
grep -q ': valid trace: 5 calls and 9 mapping calls from 1 thread, 3 memory samples,' "$TMP/c" && ok "v2: 5 calls, 9 mapping calls and 3 samples" || bad "v2: $(cat "$TMP/c")"
"$BIN/trace2wl" "$TMP/v2.wl" "$TMP/v2" 2>"$TMP/v2.sum"
eq "trace2wl: the same calls and mapping calls" "5 calls and" "$(sed -n 's/^trace2wl: wrote [^:]*: \([0-9]* calls and\) .*/\1/p' "$TMP/v2.sum")"
eq "trace_stats: the same calls" 5 "$("$BIN/trace_stats" --tsv "$TMP/v2" | awk -F'\t' '$1 == "calls" && $2 == "total" { print $3 }')"
eq "trace_count: the same calls" 5 "$(count "$TMP/v2" calls)"
"$BIN/trace_dump" "$TMP/v2" >"$TMP/d"
grep -q 'munmap(0x7f0000100000, 1048576) resident 524288 \[resident\]$' "$TMP/d" && ok "dump: a munmap with its resident bytes" || bad "dump: $(grep munmap "$TMP/d" | head -n 1)"
grep -q 'mmap(0, 4194304, prot 0x3, flags 0x22) = 0x7e0000000000 \[own\]$' "$TMP/d" && ok "dump: the allocator's own mmap" || bad "dump: own mmap"
grep -q 'mremap(0x7f0000000000, 1048576, 3145728) = 0x7d0000000000 took 5 ns$' "$TMP/d" && ok "dump: mremap" || bad "dump: mremap"
grep -q 'brk(0x5100000) = 0x5080000$' "$TMP/d" && ok "dump: brk" || bad "dump: brk"
grep -q 'memory: anonymous 4,200,000, resident 6,300,000, virtual 14,000,000 bytes$' "$TMP/d" && ok "dump: a memory sample" || bad "dump: sample"
grep -q '= failed ENOMEM \[failed\]$' "$TMP/d" && ok "dump: a failed mmap" || bad "dump: failed mmap"
grep -q '^# recorded  .*mappings.*65,536 bytes.*every 10 ms' "$TMP/d" && ok "dump: the header says what is recorded" || bad "dump: header"
eq "trace_count: 3 mmap" 3 "$(count "$TMP/v2" mmap)"
eq "trace_count: 3 samples" 3 "$(count "$TMP/v2" samples)"
runs_agree "v2: runs and single records agree" "$TMP/v2"

# refused, naming the record
for k in v1-mmap noflag-sample sample-anon own-malloc resident-malloc munmap-result munmap-resident; do
	"$TP/mkprogmem" bad-$k "$TMP/b"
	"$BIN/trace_dump" -c "$TMP/b" >/dev/null 2>"$TMP/e"; rc=$?
	# (the record after the chunk record: 32-byte slots, but 64-byte records in version 1)
	if [ $rc -eq 1 ] && grep -q 'offset 41[26][80]: ' "$TMP/e"; then ok "refused: $k ($(cut -d: -f4- "$TMP/e"))"; else bad "refused: $k: exit $rc, $(cat "$TMP/e")"; fi
done

# trace_stats: the program's own memory
"$BIN/trace_stats" --tsv "$TMP/v2" >"$TMP/s"
st() { awk -F'\t' -v k="$1" '$1 == "program" && $2 == k { print $3 }' "$TMP/s"; }
# 2 MiB mapped; its second half unmapped; the rest remapped to 3 MiB; the break moved up 1 MiB:
# 4 MiB at the peak (the allocator's own 4 MiB apart)
eq "stats: mapped by the program at peak" 4194304 "$(st mapped_peak_bytes)"
eq "stats: the program's mappings" 1 "$(st mappings)"
eq "stats: munmaps" 2 "$(st unmaps)"
eq "stats: remaps" 1 "$(st remaps)"
eq "stats: brk moves" 2 "$(st break_moves)"
eq "stats: the allocator's own, apart" 4194304 "$(st allocator_mapped_peak_bytes)"
eq "stats: samples" 3 "$(st memory_samples)"
eq "stats: peak anonymous RSS" 4200000 "$(st anon_rss_peak_bytes)"
eq "stats: when" 50 "$(st anon_rss_peak_at_ns)"
eq "stats: growth from the first sample" 3200000 "$(st anon_rss_growth_bytes)"
eq "stats: large blocks released" 2 "$(st released_large_blocks)"
eq "stats: their bytes" 1248576 "$(st released_large_bytes)"
eq "stats: of which resident" 397312 "$(st released_large_resident_bytes)"
"$BIN/trace_stats" "$TMP/v2" >"$TMP/txt"
grep -q '^  mapped directly by the program: 4 MiB at peak, 1 mapping' "$TMP/txt" && ok "stats text: mapped directly" || bad "stats text: $(grep mapped "$TMP/txt")"
grep -q "^  peak RSS .* (with the trace's mapped pages)$" "$TMP/txt" && ok "stats text: the peak RSS says what it holds beside the program's" || bad "stats text: $(grep 'peak RSS' "$TMP/txt")"
"$TP/mkfixture" trace-edge "$TMP/edge"
"$BIN/trace_stats" "$TMP/edge" | grep -q 'program memory' && bad "a version-1 trace: no program memory section" || ok "a version-1 trace: no program memory section"

# --diff sets the program's own memory side by side too
"$TP/mkprogmem" untouched "$TMP/u" 1048576
"$BIN/trace_stats" --diff --tsv "$TMP/v2" "$TMP/u" >"$TMP/diff"
eq "--diff: mapped by the program" "4194304 0" "$(awk -F'\t' '$2 == "mapped_by_program_peak" { print $3, $4 }' "$TMP/diff")"
eq "--diff: peak anonymous RSS" "4200000 2000000" "$(awk -F'\t' '$2 == "anon_rss_peak" { print $3, $4 }' "$TMP/diff")"

# the other byte order: the same figures (the header's version-2 fields swapped too)
"$TP/swap_trace" "$TMP/v2" "$TMP/v2.swapped"
"$BIN/trace_stats" --tsv "$TMP/v2.swapped" | grep -v '^trace	file' >"$TMP/s2"
grep -v '^trace	file' "$TMP/s" | cmp -s - "$TMP/s2" && ok "swapped: the same statistics" || bad "swapped: $(grep -v '^trace	file' "$TMP/s" | diff - "$TMP/s2" | head -n 4)"
"$BIN/trace_dump" -H "$TMP/v2.swapped" | grep -q '65,536 bytes or more; memory samples, every 10 ms' && ok "swapped: resident_min and the interval" || bad "swapped: header fields"

# trace_pack keeps them; anonymized, a munmap of half a mapping still falls inside it
"$BIN/trace_pack" -q -o "$TMP/p.gz" "$TMP/v2" >/dev/null; eq "pack: exit 0" 0 "$?"
gzip -dc "$TMP/p.gz" | cmp -s - "$TMP/v2" && ok "pack: the same bytes" || bad "pack: changed"
"$BIN/trace_pack" -q -A -o "$TMP/a.gz" "$TMP/v2" >/dev/null; eq "pack -A: exit 0" 0 "$?"
"$BIN/trace_stats" --tsv "$TMP/a.gz" | grep '^program' >"$TMP/sa"
grep '^program' "$TMP/s" | cmp -s - "$TMP/sa" && ok "pack -a: the same program memory figures" || bad "pack -a: $(grep '^program' "$TMP/s" | diff - "$TMP/sa" | head -n 4)"
"$BIN/trace_dump" "$TMP/a.gz" | grep -c 0x7f0000 | grep -q '^0$' && ok "pack -a: addresses replaced" || bad "pack -a: an address kept"
finish
