# trace_dump prints header and records, and rejects bad files with one error naming the offset.
. tests/lib.sh
traced "$TMP/t" "$TP/entry_points" --count >/dev/null
f=$(one_file "$TMP/t.*")
"$BIN/trace_dump" "$f" >"$TMP/dump"
eq "valid trace: exit 0" 0 "$?"
grep -q "^# exe       $TP/entry_points" "$TMP/dump" && ok "header shows the exe" || bad "exe line"
grep -q '^# cmdline   .*entry_points --count' "$TMP/dump" && ok "header shows the command line" || bad "cmdline line"
grep -q '^# order     no record precedes its chunk' "$TMP/dump" && ok "header: the capture promises chunk-bound order" || bad "order line: $(grep '^# order' "$TMP/dump")"
"$TP/mkfixture" trace-edge "$TMP/edge"
"$BIN/trace_dump" -H "$TMP/edge" | grep -q '^# order     .*older writer' && ok "header: a trace without the flag says so" || bad "order line of an unflagged trace"
grep -q 'calloc(10002, 1) = 0x' "$TMP/dump" && ok "calloc line" || bad "calloc line"
grep -q 'posix_memalign(128, 10005) = 0x' "$TMP/dump" && ok "posix_memalign line" || bad "posix_memalign line"
eq "-n limits records" 3 "$("$BIN/trace_dump" -n 3 "$f" | grep -vc '^#')"
"$BIN/trace_dump" -H "$f" | grep -q '^#   offset' && bad "-H printed records" || ok "-H prints the header only"
"$BIN/trace_dump" -H -c "$f" | grep -q ": valid trace: " && ok "-H -c: -c wins (it validates the whole file)" || bad "-H -c printed nothing"
"$BIN/trace_dump" -a "$f" | grep -q ' chunk of 4096 bytes' && ok "-a shows chunk records" || bad "-a chunk records"
cat "$f" | "$BIN/trace_dump" -c - >/dev/null && ok "reads standard input" || bad "stdin"

expect_bad() { # DESCRIPTION FILE PATTERN
	"$BIN/trace_dump" "$2" >/dev/null 2>"$TMP/err"; rc=$?
	if [ $rc -eq 1 ] && grep -q -- "$3" "$TMP/err" && [ "$(wc -l <"$TMP/err")" -eq 1 ]; then ok "$1: $(cat "$TMP/err")"
	else bad "$1: exit $rc, stderr: $(cat "$TMP/err")"; fi
}
: >"$TMP/empty"; expect_bad "empty file" "$TMP/empty" "offset 0: empty file"
head -c 100 "$f" >"$TMP/short"; expect_bad "truncated header" "$TMP/short" "offset 100: truncated header"
head -c 4096 /dev/urandom >"$TMP/garbage"; expect_bad "garbage" "$TMP/garbage" "offset 0: not an mtrace trace"
head -c $((4096 + 64 * 3 + 10)) "$f" >"$TMP/cut"; expect_bad "truncated record" "$TMP/cut" "offset 4288: truncated record (10 of 64 bytes)"
cp "$f" "$TMP/badcall"; printf '\115' | dd of="$TMP/badcall" bs=1 seek=$((4096 + 64 + 4)) conv=notrunc 2>/dev/null
expect_bad "unknown call type" "$TMP/badcall" "offset 4160: unknown call type 77"
cp "$f" "$TMP/badflags"; printf '\200' | dd of="$TMP/badflags" bs=1 seek=$((4096 + 64 + 5)) conv=notrunc 2>/dev/null
expect_bad "unknown flags" "$TMP/badflags" "offset 4160: unknown record flags 0x80"
cp "$f" "$TMP/badhflags"; printf '\132' | dd of="$TMP/badhflags" bs=1 seek=20 conv=notrunc 2>/dev/null
expect_bad "unknown header flags" "$TMP/badhflags" "offset 20: unknown header flags 0x5a"
cp "$f" "$TMP/badver"; printf '\011' | dd of="$TMP/badver" bs=1 seek=12 conv=notrunc 2>/dev/null
expect_bad "future version" "$TMP/badver" "offset 12: unsupported format version 9"
cp "$f" "$TMP/badrs"; printf '\020\000' | dd of="$TMP/badrs" bs=1 seek=14 conv=notrunc 2>/dev/null
expect_bad "header size too small" "$TMP/badrs" "offset 14: bad header size 16"
expect_bad "missing file" "$TMP/nonexistent" "No such file"
"$BIN/trace_dump" --help | grep -q '^Usage: trace_dump' && ok "--help" || bad "--help"
"$BIN/trace_dump" --version | grep -q '^trace_dump (mtrace) ' && ok "--version" || bad "--version"
"$BIN/trace_dump" --bogus >/dev/null 2>&1; eq "bad option: exit 2" 2 "$?"
"$BIN/trace_dump" >/dev/null 2>&1; eq "no file: exit 2" 2 "$?"
finish
