# A memory sample that falls due while a thread exits is left to the next call of another thread:
# the exiting thread cannot take it, and a large release right after (sort's 1.4 GB buffer, freed
# as its worker thread ends) must find it still due, or the program's peak goes unsampled.  exitsample: 64 MiB written, a thread exits with calls while a sample is due,
# then the block is freed at once (a tenth of the interval, 100 ms, would have let it take one
# early); its trace's samples reach the 64 MiB.
. tests/lib.sh
(export MTRACE_CTL_MEMORY_MS=1000; traced "$TMP/es" "$TP/exitsample" 1000); eq "exitsample: exit 0" 0 "$?"
f=$(one_file "$TMP/es.*")
"$BIN/trace_stats" --tsv "$f" >"$TMP/st"; eq "trace_stats: exit 0" 0 "$?"
growth=$(awk -F"\t" '$1 == "program" && $2 == "anon_rss_growth_bytes" { print $3 }' "$TMP/st")
ge "the samples hold the 64 MiB written before the release" $((60 << 20)) "${growth:-0}"
finish
