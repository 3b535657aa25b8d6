# capture of call stacks: with --stacks every allocating call's CALLER names a stack whose frame 0 lies in the
# function that made the call (a signal handler's too), a stack unwinds to main through code
# with no frame pointers, a C++ new's holds the function that called it, each stack a file
# names is defined in that file (a fork child's anew), and the program behaves as untraced;
# OBJECT records name the objects loaded, dlopen'ed and dlclose'd; without it the header has no
# MTRACE_HF_STACKS and the trace no CALLER or STACK record.
. tests/lib.sh
prog=$TP/stacks
"$prog" fork >"$TMP/plain"
MTRACE_CTL_STACKS=64 traced "$TMP/s" "$prog" fork >"$TMP/out" 2>"$TMP/err"
# (the functions' addresses differ from run to run: their names and the end are the same)
eq "traced with stacks: the program's output as untraced" "$(awk '{ print $1 }' "$TMP/plain")" \
	"$(awk '{ print $1 }' "$TMP/out")"
eq "traced with stacks: nothing on stderr" "" "$(cat "$TMP/err")"
# each function's range in the process: its address there, its size from the symbol table
nm -S "$prog" | awk 'NR == FNR { size[$4] = $2; next }
	$1 in size { printf "%s %s %s\n", $1, $2, size[$1] }' - "$TMP/out" >"$TMP/ranges"
eq "the functions' ranges found" 9 "$(grep -c . "$TMP/ranges")"
# per file: CALLER a in the range of the function named for its call's size, and every id it
# names defined by a STACK whose frame 0 is that a; prints "SIZE FUNCTION-OR-NONE" a call and
# "undefined ID" / "mismatch ID"
where() {
	"$BIN/trace_dump" "$1" | awk -v ranges="$TMP/ranges" '
	function hex(s,   v, i, c) { v = 0; s = tolower(s); sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1
			v = v * 16 + c }
		return v }
	BEGIN { while ((getline l < ranges) > 0) { split(l, f, " "); n++; name[n] = f[1]
			lo[n] = hex(f[2]); hi[n] = lo[n] + hex(f[3]) } }
	function fname(a,   i) { for (i = 1; i <= n; i++) if (a >= lo[i] && a < hi[i]) return name[i]
		return "-" }
	$4 == "stack" && $5 ~ /:$/ { id = $5; sub(/:/, "", id); frame0[id] = hex($6)
		fr[id] = ""; for (i = 6; i <= NF; i++) fr[id] = fr[id] " " fname(hex($i) - 1)
		next }
	$4 == "caller:" { id = $6; sub(/,/, "", id); pending = 1
		if (!(id in frame0)) print "undefined " id
		# (the return address: the CALLER slot of a call with no stack gives it; a record
		# holding its stack id gives the stack, whose frame 0 it is)
		a = NF >= 9 ? hex($9) : frame0[id]
		if (NF >= 9 && frame0[id] != a) print "mismatch " id
		next }
	pending { pending = 0; call = $0; sub(/^ *[0-9]+ +[-0-9.]+ +[0-9]+ +/, "", call)
		sz = call; sub(/\).*/, "", sz); sub(/.*[(, ]/, "", sz)
		fn = "none"; for (i = 1; i <= n; i++) if (a >= lo[i] && a < hi[i]) fn = name[i]
		print sz, fn; if (id in fr) print "frames " sz fr[id] }'
}
parent=$(one_file "$TMP/s.$(ls "$TMP" | sed -n 's/^s\.\([0-9]*\)$/\1/p' | sort -n | head -n 1)")
child=$(one_file "$TMP/s.$(ls "$TMP" | sed -n 's/^s\.\([0-9]*\)$/\1/p' | sort -n | tail -n 1)")
check "parent and child traces" test -n "$parent" -a -n "$child" -a "$parent" != "$child"
where "$parent" >"$TMP/pw"
eq "malloc(1111): 3 calls from alloc_one" 3 "$(grep -c '^1111 alloc_one$' "$TMP/pw")"
eq "calloc(2, 1111): 2 calls from alloc_two" 2 "$(grep -c '^1111 alloc_two$' "$TMP/pw")"
eq "realloc(0, 3333): 1 call from alloc_three" 1 "$(grep -c '^3333 alloc_three$' "$TMP/pw")"
eq "malloc(4444) in a signal handler: from on_signal" 1 "$(grep -c '^4444 on_signal$' "$TMP/pw")"
# the chain, unwound from the .eh_frame tables (no frame pointers): nest3 nest2 nest1 main
eq "malloc(6666): its stack nest3, nest2, nest1, main (then libc)" "frames 6666 nest3 nest2 nest1 main" \
	"$(grep '^frames 6666 ' "$TMP/pw" | cut -d' ' -f1-6)"
eq "parent: every stack named is defined, frame 0 its caller's" 0 "$(grep -c '^undefined\|^mismatch' "$TMP/pw")"
where "$child" >"$TMP/cw"
eq "child: malloc(5555) from child_alloc" 1 "$(grep -c '^5555 child_alloc$' "$TMP/cw")"
eq "child: malloc(1111) from alloc_one, 3 calls" 3 "$(grep -c '^1111 alloc_one$' "$TMP/cw")"
eq "child: every stack named is defined in its own file" 0 "$(grep -c '^undefined\|^mismatch' "$TMP/cw")"
for f in "$parent" "$child"; do
	check "$(basename "$f"): valid trace" "$BIN/trace_dump" -c "$f"
done
# header: flags (offset 20) and stack_depth, through mtracectl --stacks=5
flags() { od -An -tu4 -j20 -N4 "$1" | tr -d ' '; }
eq "header: MTRACE_HF_STACKS" 8192 $(( $(flags "$parent") & 8192 ))
"$BIN/mtracectl" -q --stacks=5 -o "$TMP/d" "$prog" >/dev/null
d=$(one_file "$TMP/d.*")
eq "mtracectl --stacks=5: MTRACE_HF_STACKS" 8192 $(( $(flags "$d") & 8192 ))
eq "mtracectl --stacks=5: CALLER records" 1 "$("$BIN/trace_dump" "$d" | grep -c 'caller: .*' | awk '{ print ($1 >= 7) }')"
"$BIN/mtracectl" -q --stacks=0 -o "$TMP/z" "$prog" >/dev/null 2>&1
eq "mtracectl --stacks=0: a usage error" 2 "$?"

# C++: operator new (libstdc++) calls malloc; the function that called new is in the stack
cxx=$TP/stacks_cxx
MTRACE_CTL_STACKS=8 traced "$TMP/c" "$cxx" >"$TMP/out"
nm -S "$cxx" | awk 'NR == FNR { size[$4] = $2; next }
	$1 in size { printf "%s %s %s\n", $1, $2, size[$1] }' - "$TMP/out" >"$TMP/ranges"
eq "C++: make_widgets found" 1 "$(grep -c . "$TMP/ranges")"
c=$(one_file "$TMP/c.*")
where "$c" >"$TMP/xw"
check "C++: new char[7777]'s stack holds make_widgets" grep -q '^frames 7777 .*make_widgets' "$TMP/xw"

# libraries: one dlopen'ed and kept, one dlclose'd before the end: OBJECT load records for both,
# an unload record for the second, each call's frame 0 in its library's function and range
MTRACE_CTL_STACKS=16 traced "$TMP/l" "$prog" dl >"$TMP/out"
eq "dl: the program's output" "stacks ok" "$(tail -n 1 "$TMP/out")"
for lib in keep gone; do
	nm -S "$TP/libstk_$lib.so" | awk 'NR == FNR { size[$4] = $2; next }
		$1 in size { printf "%s %s %s\n", $1, $2, size[$1] }' - "$TMP/out"
done >"$TMP/ranges"
eq "dl: the libraries' functions found" 2 "$(grep -c . "$TMP/ranges")"
l=$(one_file "$TMP/l.*")
"$BIN/trace_dump" "$l" >"$TMP/ld"
where "$l" >"$TMP/lw"
eq "dl: malloc(8888) from stk_keep_alloc" 1 "$(grep -c '^8888 stk_keep_alloc$' "$TMP/lw")"
eq "dl: malloc(9999) from stk_gone_alloc" 1 "$(grep -c '^9999 stk_gone_alloc$' "$TMP/lw")"
keep_id=$(awk '/object [0-9]* loaded.*libstk_keep.so$/ { print $5 }' "$TMP/ld")
gone_id=$(awk '/object [0-9]* loaded.*libstk_gone.so$/ { print $5 }' "$TMP/ld")
check "dl: OBJECT load records of both libraries" test -n "$keep_id" -a -n "$gone_id"
eq "dl: an unload record for the library closed" 1 "$(grep -c "object $gone_id unloaded" "$TMP/ld")"
eq "dl: none for the library kept" 0 "$(grep -c "object $keep_id unloaded" "$TMP/ld")"
check "dl: every library loaded has a build id" test "$(grep -c 'object [0-9]* loaded.*build id none' "$TMP/ld")" = 0
# the frame of malloc(9999) lies in the mapped range its OBJECT record gives
range=$(awk '/object [0-9]* loaded.*libstk_gone.so$/ { sub(/,$/, "", $10); print $10 }' "$TMP/ld")
f0=$(awk '$4 == "stack" { f[$5] = $6 } $4 == "caller:" { a = f[$6 ":"] }
	$4 ~ /^malloc\(9999\)/ { print a }' "$TMP/ld")
inside=$(awk -v r="$range" -v a="$f0" 'function hex(s,   v, i) { v = 0; s = tolower(s)
	sub(/^0x/, "", s); for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef",
	substr(s, i, 1)) - 1; return v }
	BEGIN { split(r, b, "-"); print (hex(a) >= hex(b[1]) && hex(a) < hex(b[2])) }')
eq "dl: malloc(9999)'s frame 0 inside libstk_gone.so's mapped range" 1 "$inside"
check "dl: valid trace" "$BIN/trace_dump" -c "$l"
# the unload recorded at the dlclose itself: here no allocation comes after it
MTRACE_CTL_STACKS=16 traced "$TMP/q" "$prog" dlquiet >"$TMP/out"
eq "dlquiet: the program's output" "stacks ok" "$(tail -n 1 "$TMP/out")"
q=$(one_file "$TMP/q.*")
"$BIN/trace_dump" "$q" >"$TMP/qd"
gone_id=$(awk '/object [0-9]* loaded.*libstk_gone.so$/ { print $5 }' "$TMP/qd")
check "dlquiet: a load record for the library closed" test -n "$gone_id"
eq "dlquiet: its unload recorded at the dlclose" 1 "$(grep -c "object $gone_id unloaded" "$TMP/qd")"
check "dlquiet: valid trace" "$BIN/trace_dump" -c "$q"

# a library closed and another opened at its address, its code at the same offsets with another
# frame: no rule nor kept stack of the first may unwind the second's frame
MTRACE_CTL_STACKS=16 traced "$TMP/w" "$prog" dlswap >"$TMP/out"
eq "dlswap: the program's output" "stacks ok" "$(tail -n 1 "$TMP/out")"
if grep -qx "same place" "$TMP/out"; then
	{ nm -S "$prog"; nm -S "$TP/libstk_rb.so"; } | awk 'NR == FNR { size[$4] = $2; next }
		$1 in size { printf "%s %s %s\n", $1, $2, size[$1] }' - "$TMP/out" >"$TMP/ranges"
	where "$(one_file "$TMP/w.*")" >"$TMP/ww"
	check "dlswap: malloc(3232)'s stack: stk_r_alloc, swap_libs, main" \
		grep -q '^frames 3232 stk_r_alloc swap_libs main' "$TMP/ww"
else
	echo "ok - dlswap: skipped: the loader put libstk_rb.so elsewhere than libstk_ra.so"
fi

# calls too large for a compact record with its stack id (calloc's count over 20 bits, a size
# over 40) are written wide: their sizes read back, by the fast path (trace_count) and by
# trace_dump, each with alloc_wide's stack; the compact one too
MTRACE_CTL_STACKS=64 traced "$TMP/wide" "$prog" wide >"$TMP/wout"
eq "wide: the program's exit" 0 "$?"
w=$(one_file "$TMP/wide.*")
eq "wide: calloc(2097152, 1) read back" 1 "$(count "$w" calloc 2097152)"
eq "wide: malloc(2199023255552) read back" 1 "$(count "$w" malloc 2199023255552)"
eq "wide: aligned_alloc(64, 192) read back" 1 "$(count "$w" aligned_alloc 192)"
nm -S "$prog" | awk 'NR == FNR { size[$4] = $2; next }
	$1 in size { printf "%s %s %s\n", $1, $2, size[$1] }' - "$TMP/wout" >"$TMP/ranges"
where "$w" >"$TMP/ww"
eq "wide: the three calls from alloc_wide, by their stacks" \
	"1 alloc_wide 192 alloc_wide 2199023255552 alloc_wide" \
	"$(grep " alloc_wide$" "$TMP/ww" | sort | tr "\n" " " | sed "s/ $//")"
eq "wide: no CALLER slot (the records hold their stacks)" 0 \
	"$("$BIN/trace_dump" "$w" | grep -c 'called from')"
# trace_pack --anonymize drops the stacks and encodes each record again in as many slots: the
# same calls at the same offsets
"$BIN/trace_pack" -q -A -o - "$w" | gzip -dc >"$TMP/wide-anon"
calls_at() { "$BIN/trace_dump" "$1" | awk '$4 ~ /^[a-z_]+\(/ { c = $4; sub(/\(.*/, "", c); print $1, c }'; }
eq "wide, anonymized: the same calls at the same offsets" "$(calls_at "$w")" \
	"$(calls_at "$TMP/wide-anon")"

# without stacks: nothing of them
traced "$TMP/n" "$prog" >/dev/null
n=$(one_file "$TMP/n.*")
eq "no --stacks: no MTRACE_HF_STACKS" 0 $(( $(flags "$n") & 8192 ))
eq "no --stacks: no CALLER, STACK or OBJECT record" 0 \
	"$("$BIN/trace_dump" "$n" | grep -c 'caller: \|  stack [0-9]*:\|  object [0-9]* ')"
# more distinct stacks (65,536) than the tracer's table holds: the calls it had no room for
# name stack 0, the header counts them, trace_dump -H and trace_stats --sites say so
MTRACE_CTL_STACKS=8 traced "$TMP/many" "$TP/manystacks"
eq "65,536 stacks: the program's exit" 0 "$?"
m=$(one_file "$TMP/many.*")
zero=$("$BIN/trace_dump" "$m" | grep -c 'caller: stack 0,')
ge "65,536 stacks: some calls found the table full" 1 "$zero"
eq "the header counts them" "$zero" \
	"$("$BIN/trace_dump" -H "$m" | sed -n 's/^# stacks *\([0-9,]*\) allocating calls found.*/\1/p' | tr -d ,)"
check "trace_stats --sites says how many calls have no stack" \
	sh -c "'$BIN/trace_stats' --sites '$m' | grep -q 'calls have no stack'"
finish
