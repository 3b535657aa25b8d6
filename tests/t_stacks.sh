# Call stacks read back (issue 39, the tools' side): a version-5 trace that stackprog writes of
# itself with the shared writer (its real return addresses, an OBJECT record for itself, one for
# a library unloaded before the end) names its functions, with file:line where addr2line is
# installed, through tools/lib/analysis/stacks.c (tests/prog/stacks_check); a C++ name is
# demangled where addr2line is installed; a stripped copy gives prog+0x...; another binary at the object's path says "build id differs" once; trace_pack
# embeds the names so that the trace reads the same once the binary is gone; the foreign byte
# order reads the same; the tools that do not care about stacks read such a trace as before.
. tests/lib.sh
C="$TP/stacks_check"
mkdir "$TMP/bin"
cp "$TP/stackprog" "$TMP/bin/prog"
"$TMP/bin/prog" "$TMP/t.mtrace" >"$TMP/lines"; eq "stackprog: exit 0" 0 "$?"
"$C" "$TMP/t.mtrace" >"$TMP/names" 2>"$TMP/err"; eq "stacks_check: exit 0" 0 "$?"
eq "nothing on standard error" "" "$(cat "$TMP/err")"
eq "every call with a CALLER has its stack" "3 2 1" \
	"$(echo $(grep -c ' stack 1: ' "$TMP/names") $(grep -c ' stack 2: ' "$TMP/names") \
	$(grep -c ' stack 3: ' "$TMP/names"))"
grep -q '^malloc 1 stack 0:$' "$TMP/names" && ok "a call without a CALLER: stack 0" ||
	bad "stack 0: $(head -1 "$TMP/names")"
grep -q '^malloc 100 stack 1: alloc_alpha.*; main' "$TMP/names" &&
	grep -q '^malloc 7000 stack 2: alloc_beta.*; main' "$TMP/names" &&
	ok "frames named by the functions that hold them, innermost first" ||
	bad "function names: $(cat "$TMP/names")"
grep -q '^malloc 50 stack 3: libgone.so+0x1235$' "$TMP/names" &&
	ok "a frame of a library unloaded since: library+offset" || bad "unloaded: $(cat "$TMP/names")"
if command -v addr2line >/dev/null; then
	alpha=$(awk '$1 == "alloc_alpha" { sub(".*/", "", $2); print $2 }' "$TMP/lines")
	beta=$(awk '$1 == "alloc_beta" { sub(".*/", "", $2); print $2 }' "$TMP/lines")
	grep -q "stack 1: alloc_alpha at $alpha; main at stackprog.c:[0-9]" "$TMP/names" &&
		grep -q "stack 2: alloc_beta at $beta; main at stackprog.c:[0-9]" "$TMP/names" &&
		ok "file:line of each frame ($alpha, $beta)" || bad "lines: $(cat "$TMP/names")"
else
	echo "# addr2line is not installed (binutils): file:line not checked"
fi
"$C" -s "$TMP/t.mtrace" >"$TMP/names_s"
check "read through the reader's hook as order.c's users do: the same" cmp "$TMP/names" \
	"$TMP/names_s"
"$C" -l "$TMP/t.mtrace" >"$TMP/names_l"
grep -q '^malloc 100 stack 1: prog+0x[0-9a-f]*; prog+0x[0-9a-f]*$' "$TMP/names_l" &&
	ok "without the files: object+offset" || bad "-l: $(cat "$TMP/names_l")"
# the foreign byte order: the same names (the strings' bytes kept in order)
"$TP/swap_trace" "$TMP/t.mtrace" "$TMP/swapped"
"$C" "$TMP/swapped" >"$TMP/names_w" 2>&1
check "the other byte order reads the same" cmp "$TMP/names" "$TMP/names_w"
# a stripped copy: no symbol table, named by offset
if command -v strip >/dev/null; then
	strip -o "$TMP/bin/prog.stripped" "$TMP/bin/prog"
	"$TMP/bin/prog.stripped" "$TMP/s.mtrace" >/dev/null
	"$C" "$TMP/s.mtrace" >"$TMP/names_st"
	grep -q '^malloc 100 stack 1: prog.stripped+0x[0-9a-f]*; prog.stripped+0x' "$TMP/names_st" &&
		ok "a stripped binary: prog.stripped+0x..." || bad "stripped: $(cat "$TMP/names_st")"
	# its symbols from a separate debug file found by build id under MTRACE_DEBUG_DIR
	bid=$(readelf -n "$TMP/bin/prog" | awk '/Build ID/ { print $3 }')
	mkdir -p "$TMP/dbg/.build-id/${bid%"${bid#??}"}"
	objcopy --only-keep-debug "$TMP/bin/prog" "$TMP/dbg/.build-id/${bid%"${bid#??}"}/${bid#??}.debug"
	MTRACE_DEBUG_DIR="$TMP/dbg" "$C" "$TMP/s.mtrace" >"$TMP/names_dbg"
	grep -q '^malloc 100 stack 1: alloc_alpha[ ;].*main' "$TMP/names_dbg" &&
		ok "a stripped binary named from its debug file under MTRACE_DEBUG_DIR/.build-id" ||
		bad "debug file: $(cat "$TMP/names_dbg")"
else
	echo "# strip is not installed (binutils): the stripped copy not checked"
fi
# C++ names demangled (a function named _ZN5cache4fillEm): through addr2line, also for a file
# without line tables; raw without addr2line
if command -v strip >/dev/null; then
	strip --strip-debug -o "$TMP/bin/nodebug" "$TMP/bin/prog"
	"$TMP/bin/nodebug" "$TMP/n.mtrace" >/dev/null
	"$C" "$TMP/n.mtrace" >"$TMP/names_n"
	if command -v addr2line >/dev/null; then
		grep -q '^malloc 33 stack 4: cache::fill(unsigned long); main$' "$TMP/names_n" &&
			ok "a C++ name demangled (no line tables)" || bad "C++: $(cat "$TMP/names_n")"
	fi
	PATH=/nonexistent "$C" "$TMP/n.mtrace" >"$TMP/names_n2"
	grep -q '^malloc 33 stack 4: _ZN5cache4fillEm; main$' "$TMP/names_n2" &&
		ok "without addr2line: the C++ name raw" || bad "C++ raw: $(cat "$TMP/names_n2")"
fi
# another binary where the object was: its build id differs, said once, frames by offset
cp "$TMP/bin/prog" "$TMP/bin/keep"
cp "$TP/stacks_check" "$TMP/bin/prog"
"$C" "$TMP/t.mtrace" >"$TMP/names_o" 2>"$TMP/err"
eq "build id differs: said once" 1 "$(grep -c 'bin/prog: build id differs' "$TMP/err")"
grep -q '^malloc 100 stack 1: prog+0x' "$TMP/names_o" && ok "build id differs: named by offset" ||
	bad "other binary: $(cat "$TMP/names_o")"
mv "$TMP/bin/keep" "$TMP/bin/prog"
# trace_pack embeds the names: the binary gone, the same report
"$BIN/trace_pack" -o "$TMP/p.mtrace.gz" "$TMP/t.mtrace" >/dev/null 2>"$TMP/err"
eq "trace_pack: exit 0" 0 "$?"
grep -q "the names of 6 code addresses added" "$TMP/err" && ok "trace_pack: 6 names added" ||
	bad "trace_pack: $(cat "$TMP/err")"
"$BIN/trace_pack" -q -o "$TMP/psw.mtrace.gz" "$TMP/swapped" >/dev/null 2>&1
rm "$TMP/bin/prog"
"$C" "$TMP/p.mtrace.gz" >"$TMP/names_p" 2>"$TMP/err"
check "packed, the binary gone: the same names" cmp "$TMP/names" "$TMP/names_p"
"$C" -l "$TMP/psw.mtrace.gz" >"$TMP/names_psw" 2>&1
check "packed in the other byte order, the binary gone: the same names" cmp "$TMP/names" \
	"$TMP/names_psw"
"$C" -s -l "$TMP/p.mtrace.gz" >"$TMP/names_pl"
check "packed, without any file: the same names" cmp "$TMP/names" "$TMP/names_pl"
"$BIN/trace_pack" -q -o "$TMP/p2.mtrace.gz" "$TMP/p.mtrace.gz" >/dev/null 2>&1
gzip -dc "$TMP/p.mtrace.gz" | wc -c >"$TMP/n1"; gzip -dc "$TMP/p2.mtrace.gz" | wc -c >"$TMP/n2"
check "packed again: no name added twice" cmp "$TMP/n1" "$TMP/n2"
# --anonymize: no stacks, objects or names left
"$BIN/trace_pack" -q -A -o "$TMP/a.mtrace.gz" "$TMP/p.mtrace.gz" >/dev/null
"$C" "$TMP/a.mtrace.gz" | tail -1 >"$TMP/an"
eq "--anonymize: no call stacks left" "stacks 0 has 0" "$(cat "$TMP/an")"
check "--anonymize: no name left" sh -c "! gzip -dc '$TMP/a.mtrace.gz' | grep -q -e alloc_alpha -e stackprog"
# the tools that do not care skip the new records
eq "trace_stats: 8 calls" 8 "$("$BIN/trace_stats" --tsv "$TMP/p.mtrace.gz" |
	awk -F'\t' '$1 == "calls" && $2 == "total" { print $3 }')"
"$BIN/trace2wl" -q "$TMP/w.wl" "$TMP/p.mtrace.gz"; eq "trace2wl: exit 0" 0 "$?"
eq "trace2wl: 8 calls" 8 "$("$TP/wl_check" "$TMP/w.wl" | awk '$1 == "calls" { print $2 }')"
"$BIN/trace_plot" -o "$TMP/p.svg" "$TMP/p.mtrace.gz" >/dev/null 2>&1; eq "trace_plot: exit 0" 0 "$?"
"$BIN/trace_run" "$TMP/w.wl" >/dev/null 2>&1; eq "trace_run replays its workload: exit 0" 0 "$?"
finish
