# trace_stats --sites and --collapsed, trace_plot --flame, and trace_import's @ callers: reports
# by call site, against a hand-made trace whose figures are known (prog/mkstacks.c), glibc
# mtrace() logs with callers, and a program traced with --stacks (prog/sites_prog.c).
. tests/lib.sh
S="$BIN/trace_stats"
PL="$BIN/trace_plot"
have_py=0; command -v python3 >/dev/null && have_py=1
[ $have_py = 1 ] || echo "# no python3: the JSON and the SVG are not parsed, only grepped"
# jsite FILE RANKING NAME KEY...: the figures of the site NAME (its innermost frame's function)
# in a ranking of trace_stats --sites --json; RANKING "-": the document's own (peak.bytes, ...)
jsite() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
r, n, keys = sys.argv[2], sys.argv[3], sys.argv[4:]
if r == "-":
	x = d
else:
	x = [x for x in d["sites"][r] if x["site"] == n or x["frames"][0].split(" at ")[0] == n][0]
def get(x, k):
	for p in k.split("."):
		x = x[p]
	return x
print(" ".join(str(get(x, k)) for k in keys))' "$@" 2>&1
}
# columns FILE: the lines wider than 80 columns (the ellipsis is one)
columns() { sed 's/…/./g' "$1" | awk 'length($0) > 80' | wc -l; }
# folded_sum FILE: the sum of --collapsed's counts
folded_sum() { awk '{ s += $NF } END { print s + 0 }' "$1"; }

# --- a hand-made trace: three stacks -----------------------------------------------------------
"$TP/mkstacks" "$TMP/s.tr"
"$S" --sites "$TMP/s.tr" >"$TMP/s.txt" 2>"$TMP/s.err"; eq "sites: exit 0" 0 "$?"
for f in cache_fill parse leak_some; do
	grep -q "  $f\$" "$TMP/s.txt" && ok "sites: names $f" || bad "sites: $f not named"
done
grep -q '^  ideal RSS peak 4.74 KiB in 12 blocks, at call 12$' "$TMP/s.txt" &&
	grep -q '^  live at the end 250 B in 5 blocks$' "$TMP/s.txt" && ok "sites: the peak and the end" ||
	bad "sites: peak and end lines: $(sed -n 4,5p "$TMP/s.txt")"
awk '/^Live at the end/ { f = 1; next } f && /^$/ { exit } f' "$TMP/s.txt" >"$TMP/leaks.txt"
eq "sites: the one leaking site, its bytes and blocks" "250 B 5 5 50 B leak_some" \
	"$(sed -n 2p "$TMP/leaks.txt" | tr -s ' ' | sed 's/^ //')"
eq "sites: every line fits 80 columns" 0 "$(columns "$TMP/s.txt")"
"$S" --sites --depth=2 "$TMP/s.tr" | grep -q '  cache_fill < load_all$' && ok "--depth=2: two frames a site" ||
	bad "--depth=2: no 'cache_fill < load_all'"
"$S" --sites --json "$TMP/s.tr" >"$TMP/s.json"; eq "sites --json: exit 0" 0 "$?"
if [ $have_py = 1 ]; then
	eq "json: the peak" "4850 12 12" "$(jsite "$TMP/s.json" - - peak.bytes peak.blocks peak.call)"
	eq "json: cache_fill at the peak" "4000 4 4 1000" \
		"$(jsite "$TMP/s.json" peak cache_fill peak_bytes peak_blocks calls size)"
	eq "json: parse (calloc and malloc, sizes mixed)" "600 3 5 800 None" \
		"$(jsite "$TMP/s.json" allocated parse peak_bytes peak_blocks calls bytes size)"
	eq "json: leaks" "250 5" "$(jsite "$TMP/s.json" leaks leak_some leak_bytes leak_blocks)"
	"$S" --sites --json --depth=3 "$TMP/s.tr" >"$TMP/s3.json"
	eq "json --depth=3: the frames, innermost first" "['parse', 'load_all', 'main']" \
		"$(jsite "$TMP/s3.json" calls parse frames)"
fi
"$S" --collapsed "$TMP/s.tr" >"$TMP/peak.folded"
eq "collapsed: a line a stack, outermost frame first" "main;load_all;cache_fill 4000
main;leak_some 250
main;load_all;parse 600" "$(cat "$TMP/peak.folded")"
for w in peak:4850 leaks:250 allocated:5050 calls:14; do
	"$S" --collapsed --what=${w%%:*} "$TMP/s.tr" >"$TMP/f"
	eq "collapsed --what=${w%%:*}: lines sum to the total" "${w#*:}" "$(folded_sum "$TMP/f")"
done
"$S" --collapsed --what=nonsense "$TMP/s.tr" >/dev/null 2>&1; eq "--what=nonsense: usage" 2 "$?"
"$S" --sites --tsv "$TMP/s.tr" >/dev/null 2>&1; eq "--sites --tsv: usage" 2 "$?"

# --- the flame graph ---------------------------------------------------------------------------
"$PL" --flame -o "$TMP/f.svg" "$TMP/s.tr" 2>/dev/null; eq "flame: exit 0" 0 "$?"
if [ $have_py = 1 ]; then
	python3 -c "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])" "$TMP/f.svg" &&
		ok "flame: well-formed XML" || bad "flame: not XML"
fi
for f in cache_fill parse leak_some load_all main; do
	grep -q "<title>$f: " "$TMP/f.svg" && ok "flame: a frame of $f" || bad "flame: no $f"
done
grep -q 'ideal-RSS peak: 4.74 KiB in 12 blocks' "$TMP/f.svg" && ok "flame: says what and how much" ||
	bad "flame: no header"
grep -q '<script\|xlink:href=\|@import\|url(' "$TMP/f.svg" && bad "flame: refers outside" || ok "flame: self-contained"
"$PL" --flame=leaks -o "$TMP/l.svg" "$TMP/s.tr" 2>/dev/null
grep -q '<title>leak_some: 250 B (100.0%)' "$TMP/l.svg" && ! grep -q '<title>cache_fill' "$TMP/l.svg" &&
	ok "flame=leaks: the leak alone" || bad "flame=leaks: wrong frames"

# --- trace_import: glibc mtrace() logs' @ callers ----------------------------------------------
long=$(printf 'very_long_function_name_%.0s' 1 2 3 4 5)end
cat >"$TMP/m.log" <<LOG
= Start
@ ./prog:(cache_fill+0x12)[0x401234] + 0x1000 100
@ ./prog:(cache_fill+0x12)[0x401234] + 0x2000 100
@ ./prog:(leak_some+0x8)[0x401300] + 0x3000 30
@ /lib/x86_64-linux-gnu/libc.so.6:(strdup+0x1a)[0x7f0012345678] + 0x4000 7
@ ./prog:[0x401400] + 0x5000 50
@ [0x401500] + 0x6000 60
@ ./prog:($long+0x4)[0x401600] + 0x7000 70
@ ./prog:(cache_fill+0x12)[0x401234] - 0x1000
@ ./prog:(cache_fill+0x12)[0x401234] - 0x2000
= End
LOG
"$BIN/trace_import" "$TMP/m.log" "$TMP/m.tr" 2>/dev/null; eq "import: exit 0" 0 "$?"
"$S" --sites "$TMP/m.tr" >"$TMP/m.txt" 2>&1; eq "import: --sites reads it" 0 "$?"
for f in "200 B *2 *2 *100 B  cache_fill" "30 B *1 *1 *30 B  leak_some" "7 B *1 *1 *7 B  strdup"; do
	grep -q "$f\$" "$TMP/m.txt" && ok "import: site by the log's caller: ${f##* }" || bad "import: no '$f'"
done
grep -q '  very_long_function_name_very_long_.*…$' "$TMP/m.txt" &&
	ok "import: a long name cut with an ellipsis" || bad "import: long name not cut"
eq "import: every line fits 80 columns" 0 "$(columns "$TMP/m.txt")"
if [ $have_py = 1 ]; then
	"$S" --sites --json "$TMP/m.tr" >"$TMP/m.json"
	eq "import: the full name in --json" "$long" "$(jsite "$TMP/m.json" calls "$long" site)"
fi
eq "import: leaks sum" 217 "$("$S" --collapsed --what=leaks "$TMP/m.tr" | awk '{ s += $NF } END { print s }')"
printf '@ ./prog:(f+0x1) + 0x1000 10\n' >"$TMP/bad.log"
"$BIN/trace_import" "$TMP/bad.log" "$TMP/bad.tr" 2>"$TMP/bad.err"; eq "import: a caller not glibc's: exit 1" 1 "$?"
grep -q 'line 1: a caller that is not' "$TMP/bad.err" && ok "import: the bad caller's line named" ||
	bad "import: $(cat "$TMP/bad.err")"

# --- a trace without stacks --------------------------------------------------------------------
printf '+ 0x1000 10\n' >"$TMP/plain.log"
"$BIN/trace_import" "$TMP/plain.log" "$TMP/plain.tr" 2>/dev/null
"$S" --sites "$TMP/plain.tr" >/dev/null 2>"$TMP/plain.err"; eq "no stacks: exit 1" 1 "$?"
grep -q 'recorded without --stacks: mtracectl --stacks' "$TMP/plain.err" && ok "no stacks: says how to record them" ||
	bad "no stacks: $(cat "$TMP/plain.err")"

# --- the same program under glibc's mtrace(), imported ---------------------------------------
dbg=$(ls /lib/*/libc_malloc_debug.so.0 /usr/lib/*/libc_malloc_debug.so.0 /lib/libc_malloc_debug.so.0 2>/dev/null | head -n 1)
if [ -z "$dbg" ]; then
	echo "# no libc_malloc_debug.so.0 (glibc before 2.34 or another libc): sites_prog's mtrace() log not made"
else
	MALLOC_TRACE="$TMP/sp.log" LD_PRELOAD="$dbg" timeout -k 5 60 "$TP/sites_prog" mtrace
	"$BIN/trace_import" "$TMP/sp.log" "$TMP/sp.tr" 2>/dev/null; eq "mtrace() log: imported" 0 "$?"
	"$S" --sites --top=1000 "$TMP/sp.tr" >"$TMP/sp.txt"
	for f in "39.1 KiB *40 *40 *1000 B  cache_fill" "5.86 KiB *30 *30 *200 B  parse" \
		"5.86 KiB *20 *20 *300 B  build" "1000 B *10 *10 *100 B  leak_some"; do
		grep -q "$f\$" "$TMP/sp.txt" && ok "mtrace() log: ${f##* } by name, bytes, blocks, calls" ||
			bad "mtrace() log: no '$f'"
	done
	"$S" --sites --top=1000 --json "$TMP/sp.tr" >"$TMP/sp.json"
	if [ $have_py = 1 ]; then
		for f in "cache_fill 40000 40 40" "parse 6000 30 30" "build 6000 20 20" "leak_some 1000 10 10"; do
			set -- $f
			eq "mtrace() log: $1's bytes, calls, blocks, bytes at the peak" "$2 $3 $4 $2" \
				"$(jsite "$TMP/sp.json" allocated $1 bytes calls blocks peak_bytes)"
		done
		eq "mtrace() log: leak_some's leak, the only one" "1000 10 1" \
			"$(jsite "$TMP/sp.json" leaks leak_some leak_bytes leak_blocks) $(jsite "$TMP/sp.json" - - sites.leaks | grep -o "'site'" | wc -l)"
	fi
fi

# --- a program traced with --stacks ------------------------------------------------------------
if ! "$BIN/mtracectl" --help 2>&1 | grep -q -- '--stacks'; then
	echo "# mtracectl has no --stacks (the capture, issue 39a, is not in this tree): sites_prog not traced"
else
	timeout -k 5 60 "$BIN/mtracectl" -q --stacks -o "$TMP/p" -- "$TP/sites_prog" >/dev/null 2>&1
	t=$(one_file "$TMP/p.*")
	"$S" --sites --top=1000 --json "$t" >"$TMP/p.json"; eq "prog: --sites exit 0" 0 "$?"
	"$S" --sites --top=1000 "$t" >"$TMP/p.txt"
	for f in "cache_fill 40000 40 40" "parse 6000 30 30" "build 6000 20 20" "leak_some 1000 10 10"; do
		set -- $f
		grep -q "  $1\( at .*\)\?\$" "$TMP/p.txt" && ok "prog: names $1" || bad "prog: $1 not named"
		[ $have_py = 1 ] && eq "prog: $1's bytes, calls, blocks" "$2 $3 $4" \
			"$(jsite "$TMP/p.json" allocated $1 bytes calls blocks)"
	done
	if [ $have_py = 1 ]; then
		eq "prog: leak_some's leak" "1000 10" "$(jsite "$TMP/p.json" leaks leak_some leak_bytes leak_blocks)"
		eq "prog: cache_fill whole at the peak" "40000 40" \
			"$(jsite "$TMP/p.json" peak cache_fill peak_bytes peak_blocks)"
	fi
fi
finish
