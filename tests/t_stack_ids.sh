# A trace whose records hold their stacks' ids (format 6) reads as the same trace with a CALLER
# slot before each allocating call (caller_form rewrites it so): every allocator entry point and
# its edge cases (failed calls, realloc(p, 0)), durations off and on, native and swapped byte
# order; trace_dump, trace_stats (--sites, --collapsed, --json, --follow), trace_plot --flame,
# trace_pack (names embedded, -A) and trace2wl report the same of both.
# (trace_pack appends its names to a swapped trace in that byte order, chunk records too.)
. tests/lib.sh
# the reports of a file but for its name, file offsets, slot counts and rates (wall time)
strip() {
	sed "s|$1|FILE|g; s|$(basename "$1")|FILE|g" |
		awk '/^ *[0-9]+ +(-?[0-9.]+|-) +[0-9]+ /{ $1 = "" } 1' |
		sed -E 's/[0-9,]+ slots reserved/N slots reserved/; s/[0-9,]+ bytes\)/N bytes)/;
			s/[0-9,]+\/s/R\/s/g'
}
reports() {
	f=$1
	{
		echo "== dump"; "$BIN/trace_dump" "$f"
		for o in --sites --collapsed --json "--sites --json"; do
			echo "== stats $o"; "$BIN/trace_stats" $o "$f"; echo "rc $?"
		done
		echo "== follow"; timeout -k 5 60 "$BIN/trace_stats" --follow "$f"; echo "rc $?"
		echo "== flame"; "$BIN/trace_plot" --flame "$f"; echo "rc $?"
		"$BIN/trace_pack" -o "$f.p.gz" "$f" 2>/dev/null; echo "pack rc $?"
		echo "== packed"; "$BIN/trace_dump" "$f.p.gz" | grep -v '^# file'
		echo "== packed sites"; "$BIN/trace_stats" --sites "$f.p.gz"
		"$BIN/trace_pack" -A -o "$f.a.gz" "$f" 2>/dev/null; echo "pack -A rc $?"
		echo "== anonymized"; "$BIN/trace_dump" "$f.a.gz" | grep -v '^# file'
		"$BIN/trace2wl" -o "$f.wl" "$f" >/dev/null 2>&1; echo "trace2wl rc $?"
	} 2>&1 | strip "$f"
}
calls='malloc|calloc|realloc|memalign|valloc|pvalloc|posix_memalign|aligned_alloc|reallocarray'
for mode in plain durations; do
	env=
	[ $mode = durations ] && env=MTRACE_CTL_DURATIONS=1
	timeout -k 5 60 env $env MTRACE_CTL_STACKS=16 MTRACE_CTL_QUIET=1 \
		MTRACE_CTL_FILE="$TMP/$mode" LD_PRELOAD="$LIB" "$TP/entry_points" >/dev/null 2>&1
	v6=$(one_file "$TMP/$mode.*")
	[ $mode = plain ] && plain_v6=$v6
	check "$mode: one trace" test -n "$v6"
	"$TP/caller_form" "$v6" "$TMP/$mode.v5"
	check "$mode: rewritten with CALLER slots" test -s "$TMP/$mode.v5"
	"$TP/swap_trace" "$v6" "$TMP/$mode.sw"
	check "$mode: swapped" test -s "$TMP/$mode.sw"
	reports "$v6" >"$TMP/$mode.r6"
	reports "$TMP/$mode.v5" >"$TMP/$mode.r5"
	reports "$TMP/$mode.sw" >"$TMP/$mode.rsw"
	"$BIN/trace_dump" "$v6" >"$TMP/$mode.d6"
	eq "$mode: every allocating call has its stack" \
		"$(grep -cE " ($calls)\\(" "$TMP/$mode.d6")" \
		"$(grep -c ' caller: stack [1-9]' "$TMP/$mode.d6")"
	eq "$mode: the tools report the same of the ids and of CALLER slots" "" \
		"$(diff "$TMP/$mode.r6" "$TMP/$mode.r5" | head -n 8)"
	# (the other byte order is said in the format line)
	eq "$mode: and of the ids in the other byte order" "" \
		"$(diff "$TMP/$mode.r6" "$TMP/$mode.rsw" | grep -v 'format    mtrace' |
		   grep '^[<>]' | head -n 8)"
	eq "$mode: the swapped trace, packed with its names, reads back" 0 \
		"$("$BIN/trace_dump" "$TMP/$mode.sw.p.gz" >/dev/null 2>&1; echo $?)"
	"$BIN/trace_dump" "$v6.p.gz" >"$TMP/$mode.dp"
	ge "$mode: the names trace_pack embeds dumped as symbols" 1 \
		"$(grep -c ' symbol 0x[0-9a-f]* in object [0-9]*: [^ ]' "$TMP/$mode.dp")"
	eq "$mode: no record dumped as an empty line" 0 \
		"$(grep -cE '^ *[0-9]+ +[-0-9.]+ +[0-9]+ *$' "$TMP/$mode.dp")"
	eq "$mode: the same workload" "" "$(cmp "$v6.wl" "$TMP/$mode.v5.wl" 2>&1)"
done
# the program's own mappings (calls with a result and a size, not the allocator's): no stack
timeout -k 5 60 env MTRACE_CTL_STACKS=8 MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/maps" \
	LD_PRELOAD="$LIB" "$TP/allocmaps" >/dev/null 2>&1
maps=$(one_file "$TMP/maps.*")
"$TP/caller_form" "$maps" "$TMP/maps.v5"
# (but for the offsets and the unused slots of a layout that differs)
dump_maps() {
	"$BIN/trace_dump" "$1" | awk '/^ *[0-9]/{ $1 = "" } 1' | grep -v '^# file\|slots reserved'
}
dump_maps "$maps" >"$TMP/maps.d6"
dump_maps "$TMP/maps.v5" >"$TMP/maps.d5"
check "a program's mmap: in the trace" grep -q ' mmap(0, 1048576' "$TMP/maps.d6"
eq "a program's mmap: no CALLER before it in either form" "" \
	"$(diff "$TMP/maps.d6" "$TMP/maps.d5" | head -n 4)"
# hostile slots: id bits in a mapping call's second slot are refused alike by the reader and by
# --follow; an id that names no STACK reads as no stack, the size as written
at=$(grep ' mmap(0, 1048576' "$TMP/maps.d6" >/dev/null &&
	"$BIN/trace_dump" "$maps" | awk '/ mmap\(0, 1048576/ { print $1; exit }')
cp "$maps" "$TMP/badmap"
printf '\005' | dd of="$TMP/badmap" bs=1 seek=$((at + 33)) conv=notrunc 2>/dev/null
for t in "" --follow; do
	"$BIN/trace_stats" $t "$TMP/badmap" >/dev/null 2>"$TMP/err"
	eq "id bits in a mapping call's second slot: trace_stats${t:+ $t} refuses them" \
		"1 $TMP/badmap: offset $((at + 32)): a wide record's second slot that is not one" \
		"$? $(sed 's/^trace_stats: //' "$TMP/err")"
done
at=$("$BIN/trace_dump" "$plain_v6" | awk '/ malloc\(100\) = / { print $1; exit }')
cp "$plain_v6" "$TMP/badid"
printf '\357\315\253' | dd of="$TMP/badid" bs=1 seek=$((at + 29)) conv=notrunc 2>/dev/null
"$BIN/trace_dump" "$TMP/badid" >"$TMP/badid.d" 2>&1
eq "an id naming no STACK: read as it is, the size as written" \
	"0 caller: stack 11259375 malloc(100)" \
	"$? $(grep -A1 'caller: stack 11259375' "$TMP/badid.d" |
	      awk 'NR == 1 { printf "%s %s %s ", $4, $5, $6 } NR == 2 { print $4 }')"
"$BIN/trace_stats" --sites "$TMP/badid" >"$TMP/badid.s" 2>&1
eq "an id naming no STACK: a site of no call stack" "0 named" \
	"$? $(grep -q '(no call stack)' "$TMP/badid.s" && echo named)"
# more stacks than the tracer's table holds: calls that found it full name stack 0 (a CALLER
# slot before them), the others hold their ids
timeout -k 5 120 env MTRACE_CTL_STACKS=8 MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/many" \
	LD_PRELOAD="$LIB" "$TP/manystacks" >/dev/null 2>&1
many=$(one_file "$TMP/many.*")
"$TP/caller_form" "$many" "$TMP/many.v5"
dump_maps "$many" >"$TMP/many.d6"
dump_maps "$TMP/many.v5" >"$TMP/many.d5"
ge "a full table: calls with stack 0" 1 "$(grep -c 'caller: stack 0,' "$TMP/many.d6")"
eq "a full table: dumps the same in either form" "" \
	"$(diff "$TMP/many.d6" "$TMP/many.d5" | head -n 4)"
"$BIN/trace_stats" --sites "$many" | sed 2d >"$TMP/many.s6"
"$BIN/trace_stats" --sites "$TMP/many.v5" | sed 2d >"$TMP/many.s5"
eq "a full table: the same sites in either form" "" \
	"$(diff "$TMP/many.s6" "$TMP/many.s5" | head -n 4)"
finish
