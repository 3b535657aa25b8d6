# The allocator's own mappings are the allocator's: on jemalloc (and on tcmalloc and mimalloc
# where installed), with its background thread on, a program that allocates enough for its
# allocator to map extents, inside traced calls and outside any (jemalloc's mallocx, an entry
# point the tracer does not see), and maps 1 MiB itself: the trace flags the allocator's
# mappings as its own, so the workload holds the program's one mapping alone; and trace2wl
# repairs nothing (a mapping made inside a traced call, written after that call's record with
# an order point before it, is not out of order).
. tests/lib.sh
wl() { "$TP/wl_check" "$1" | awk -v k="$2" '$1 == k { print $2 }'; }
jso=$(ls /usr/lib/*/libjemalloc.so.2 /usr/lib/libjemalloc.so.2 2>/dev/null | head -n 1)
[ -n "$jso" ] || skip "libjemalloc.so.2 is not installed (apt-get install libjemalloc2)"
export MALLOC_CONF=background_thread:true
for so in "$jso" $(ls /usr/lib/*/libtcmalloc_minimal.so.4 /usr/lib/*/libmimalloc.so.2 2>/dev/null); do
	name=$(basename "$so")
	LD_PRELOAD="$so" "$TP/allocmaps" >"$TMP/plain"
	MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/$name" LD_PRELOAD="$LIB $so" "$TP/allocmaps" >"$TMP/traced"
	eq "$name: exit 0" 0 "$?"
	check "$name: the same output as untraced" cmp "$TMP/plain" "$TMP/traced"
	f=$(one_file "$TMP/$name.*[0-9]")
	check "$name: the trace validates" "$BIN/trace_dump" -c "$f"
	"$BIN/trace_dump" "$f" >"$TMP/d"
	eq "$name: the program's own mapping, as the program's" 1 "$(grep -c 'mmap(0, 1048576, .*) = 0x[0-9a-f]*$' "$TMP/d")"
	[ "$so" = "$jso" ] && ge "$name: the allocator's mappings, as its own" 2 "$(grep -c 'mmap(.*\[own\]$' "$TMP/d")"
	"$BIN/trace2wl" "$TMP/$name.wl" "$f" 2>"$TMP/sum"; eq "$name: converted" 0 "$?"
	eq "$name: one mapping replayed, the program's (MAP, UNMAP)" "1 1" "$(wl "$TMP/$name.wl" map) $(wl "$TMP/$name.wl" unmap)"
	eq "$name: valid" 0 "$(wl "$TMP/$name.wl" violations)"
	grep -q "repaired: 0 allocations of a still-live address, 0 records out of order" "$TMP/sum" &&
		ok "$name: trace2wl repairs nothing" || bad "$name: $(grep repaired "$TMP/sum")"
done
finish
