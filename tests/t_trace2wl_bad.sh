# trace2wl on bad input: one clear error naming the byte offset, exit 1, and no output file
# (not even a temporary one) left behind; usage errors exit 2; an unwritable output exits 3.
. tests/lib.sh
"$TP/mkfixture" trace-edge "$TMP/edge"
size=$(stat -c %s "$TMP/edge")
expect_bad() { # DESCRIPTION FILE PATTERN
	rm -f "$TMP"/out.wl*
	"$BIN/trace2wl" "$TMP/out.wl" "$2" >/dev/null 2>"$TMP/err"; rc=$?
	left=$(ls "$TMP"/out.wl* 2>/dev/null | wc -l)
	if [ $rc -eq 1 ] && grep -q -- "$3" "$TMP/err" && [ "$(wc -l <"$TMP/err")" -eq 1 ] && [ "$left" -eq 0 ]; then
		ok "$1: $(cat "$TMP/err")"
	else
		bad "$1: exit $rc, $left files left, stderr: $(cat "$TMP/err")"
	fi
}
: >"$TMP/empty"; expect_bad "empty" "$TMP/empty" "offset 0: empty file"
head -c 5000 /dev/urandom >"$TMP/garbage"; expect_bad "garbage" "$TMP/garbage" "offset 0: not an mtrace trace"
head -c $((size - 10)) "$TMP/edge" >"$TMP/cut"; expect_bad "truncated" "$TMP/cut" "truncated record (54 of 64 bytes)"
cp "$TMP/edge" "$TMP/badcall"; printf '\115' | dd of="$TMP/badcall" bs=1 seek=$((4096 + 64 + 4)) conv=notrunc 2>/dev/null
expect_bad "unknown call" "$TMP/badcall" "offset 4160: unknown call type 77"
cp "$TMP/edge" "$TMP/tid0"; printf '\0\0\0\0' | dd of="$TMP/tid0" bs=1 seek=$((4096 + 64)) conv=notrunc 2>/dev/null
expect_bad "thread id 0" "$TMP/tid0" "offset 4160: thread id 0"
cp "$TMP/edge" "$TMP/badhdr"; printf '\377\377' | dd of="$TMP/badhdr" bs=1 seek=16 conv=notrunc 2>/dev/null
expect_bad "absurd record size" "$TMP/badhdr" "offset 16: bad record size"
"$TP/mkfixture" dj-edge "$TMP/dj"
cp "$TMP/dj" "$TMP/djbad"; printf '\115' | dd of="$TMP/djbad" bs=1 seek=$((64 * 2 + 4)) conv=notrunc 2>/dev/null
expect_bad "dj: unknown record type" "$TMP/djbad" "offset 128: unknown dj record type 77"
head -c 100 "$TMP/dj" >"$TMP/djcut"; expect_bad "dj: truncated" "$TMP/djcut" "offset 64: truncated record"
expect_bad "missing file" "$TMP/nonexistent" "No such file"
# a finished trace cut at a record's start (a copy that stopped): fewer calls than its writer
# counted, refused as trace_pack, trace_stats and trace_dump refuse it
traced "$TMP/whole" "$TP/xthread" 2 2000 >/dev/null
wt=$(one_file "$TMP/whole.*")
at=$("$BIN/trace_dump" "$wt" | awk '!/^#/ && ++n == 200 { print $1; exit }')
head -c "$at" "$wt" >"$TMP/recut"
expect_bad "cut at a record's start" "$TMP/recut" \
	"offset $at: truncated: its writer recorded [0-9,]* calls, the file ends after"
"$BIN/trace2wl" -q "$TMP/out.wl" "$wt" 2>"$TMP/err"; eq "the whole trace: exit 0" 0 "$?"
eq "the whole trace: nothing said" "" "$(cat "$TMP/err")"
# huge sizes, absurd pointers and thread ids are legal values: converted, not crashed on
"$TP/mkfixture" trace-edge "$TMP/huge"
printf '\377\377\377\377\377\377\377\377' | dd of="$TMP/huge" bs=1 seek=$((4096 + 64 + 32)) conv=notrunc 2>/dev/null
printf '\377\377\377\177' | dd of="$TMP/huge" bs=1 seek=$((4096 + 64)) conv=notrunc 2>/dev/null
"$BIN/trace2wl" -q "$TMP/huge.wl" "$TMP/huge"; eq "huge size and thread id: converted" 0 "$?"
"$TP/wl_check" "$TMP/huge.wl" >/dev/null; eq "huge size and thread id: replayable" 0 "$?"
"$BIN/trace2wl" "$TMP/nodir/out.wl" "$TMP/edge" 2>"$TMP/err"; eq "unwritable output: exit 3" 3 "$?"
grep -q "nodir/out.wl: cannot create the temporary file it is written to before it is renamed into place, in $TMP/nodir: No such file or directory" "$TMP/err" && ok "unwritable output: says so" || bad "unwritable: $(cat "$TMP/err")"
# outputs that would destroy what they are made from: refused before anything is written
cp "$TMP/edge" "$TMP/keep"; sum=$(cksum <"$TMP/keep")
untouched() { check "$1: the trace is untouched" test "$(cksum <"$TMP/keep")" = "$sum"; }
"$BIN/trace2wl" "$TMP/keep" "$TMP/keep" 2>"$TMP/err"; eq "trace2wl T T: exit 2" 2 "$?"
grep -q 'keep: the output is also an input' "$TMP/err" && ok "T T: says why" || bad "T T: $(cat "$TMP/err")"; untouched "T T"
"$BIN/trace2wl" "$TMP/keep" <"$TMP/keep" 2>"$TMP/err"; eq "trace2wl TRACE (output name forgotten): exit 2" 2 "$?"
eq "forgotten output: says the output comes first, never to remove the trace" \
	"trace2wl: $TMP/keep is a trace: the output comes first (trace2wl OUTFILE TRACE..., or trace2wl -o OUTFILE TRACE...)" "$(cat "$TMP/err")"; untouched "forgotten output"
"$BIN/trace2wl" "$TMP/keep" "$TMP/new.wl" 2>"$TMP/err"; eq "trace2wl TRACE OUTFILE (dj's order reversed): exit 2" 2 "$?"
grep -q 'is a trace: the output comes first' "$TMP/err" && ok "reversed: says the output comes first" || bad "reversed: $(cat "$TMP/err")"; untouched "reversed"
"$BIN/trace2wl" -q -o "$TMP/o.wl" "$TMP/keep"; eq "-o OUTFILE TRACE: exit 0" 0 "$?"
"$BIN/trace2wl" -q "$TMP/p.wl" "$TMP/keep"
check "-o OUTFILE TRACE: the same workload as OUTFILE TRACE" cmp "$TMP/o.wl" "$TMP/p.wl"
"$BIN/trace_plot" -o "$TMP/keep.svg" "$TMP/keep" >/dev/null 2>&1
"$BIN/trace_import" -o "$TMP/i.trace" "$TMP/nosuch.log" 2>/dev/null; eq "trace_import -o OUTFILE LOG, no such log: exit 1" 1 "$?"
"$BIN/trace2wl" --dj-format "$TMP/keep" "$TMP/x.wl" "$TMP/keep" 2>/dev/null; eq "--dj-format onto the input: exit 2" 2 "$?"; untouched "--dj-format"
"$BIN/trace2wl" -q "$TMP/x.wl" "$TMP/keep"; eq "a workload over an older workload is fine" 0 "$?"
"$BIN/trace2wl" -q "$TMP/x.wl" "$TMP/keep"; eq "(again)" 0 "$?"
"$BIN/trace_plot" -o "$TMP/keep" "$TMP/keep" 2>/dev/null; eq "trace_plot -o onto its input: exit 2" 2 "$?"
"$BIN/trace_plot" -k live -o "$TMP/keep" "$TMP/edge" 2>/dev/null; eq "trace_plot -o onto another trace: exit 2" 2 "$?"; untouched "trace_plot"
"$BIN/trace_run" -l "$TMP/x.wl" "$TMP/x.wl" >/dev/null 2>&1; eq "trace_run --log onto its workload: exit 2" 2 "$?"
"$BIN/trace_import" "$TMP/keep" "$TMP/keep" 2>/dev/null; eq "trace_import onto its log: exit 2" 2 "$?"; untouched "trace_import"
"$BIN/trace_pack" -o "$TMP/keep" "$TMP/keep" >/dev/null 2>&1; eq "trace_pack -o onto its input: exit 2" 2 "$?"; untouched "trace_pack"
if command -v script >/dev/null 2>&1; then   # util-linux: a terminal on standard input
	script -qec "'$BIN/trace2wl' '$TMP/new.wl'" /dev/null >"$TMP/err" 2>&1; eq "trace2wl OUT with a terminal for input: exit 2" 2 "$?"
	grep -q 'standard input is a terminal' "$TMP/err" && ok "terminal input: says why" || bad "terminal: $(cat "$TMP/err")"
fi
"$BIN/trace2wl" 2>/dev/null; eq "no arguments: exit 2" 2 "$?"
"$BIN/trace2wl" --bogus x 2>/dev/null; eq "bad option: exit 2" 2 "$?"
"$BIN/trace2wl" --help | grep -q '^Usage: trace2wl' && ok "--help" || bad "--help"
"$BIN/trace2wl" --version | grep -q '^trace2wl (mtrace) ' && ok "--version" || bad "--version"
finish
