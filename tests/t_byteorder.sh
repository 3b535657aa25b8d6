# A trace written in the other byte order, and one with 4-byte pointers, read the same.
. tests/lib.sh
traced "$TMP/t" "$TP/entry_points" --count >/dev/null
f=$(one_file "$TMP/t.*")
"$TP/swap_trace" "$f" "$TMP/swapped"
check "swapped copy differs from the original" sh -c "! cmp -s '$f' '$TMP/swapped'"
"$BIN/trace_dump" "$f" | grep -v -e '^# file' -e '^# format' >"$TMP/a"
"$BIN/trace_dump" "$TMP/swapped" | grep -v -e '^# file' -e '^# format' >"$TMP/b"
check "every record and header field reads the same" cmp "$TMP/a" "$TMP/b"
runs_agree "swapped: read a run at a time, the same records" "$TMP/swapped"
"$BIN/trace_dump" -H "$TMP/swapped" | grep -q 'big-endian' && ok "reported as big-endian" || bad "endianness line"
# the blocks live at the end, and the header's count of those the tracer had no room for
traced "$TMP/k" "$TP/keeplive" many >/dev/null
f=$(one_file "$TMP/k.*")
"$TP/swap_trace" "$f" "$TMP/kswapped"
"$BIN/trace_dump" "$f" | grep -v -e '^# file' -e '^# format' >"$TMP/a"
"$BIN/trace_dump" "$TMP/kswapped" | grep -v -e '^# file' -e '^# format' >"$TMP/b"
grep -q '^# untracked [1-9]' "$TMP/b" && grep -q ' live at the end: ' "$TMP/b" && cmp -s "$TMP/a" "$TMP/b" &&
	ok "swapped: the blocks live at the end and the count of those untracked read the same" || bad "swapped, live blocks: $(diff "$TMP/a" "$TMP/b" | head -n 4 | tr '\n' ' ')"
"$TP/swap_trace" --ptr32 "$TMP/p32"
runs_agree "4-byte pointers: read a run at a time, the same records" "$TMP/p32"
"$BIN/trace_dump" "$TMP/p32" >"$TMP/d32"
eq "4-byte pointer trace: exit 0" 0 "$?"
grep -q '4-byte pointers' "$TMP/d32" && ok "4-byte pointers reported" || bad "pointer size line"
grep -q 'malloc(24) = 0x8000010 usable 28' "$TMP/d32" && ok "32-bit record read" || bad "32-bit record"
finish
