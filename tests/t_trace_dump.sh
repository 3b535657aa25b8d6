# trace_dump prints header and records, and rejects bad files with one error naming the offset.
. tests/lib.sh
traced "$TMP/t" "$TP/entry_points" --count >/dev/null
f=$(one_file "$TMP/t.*")
"$BIN/trace_dump" "$f" >"$TMP/dump"
eq "valid trace: exit 0" 0 "$?"
grep -q "^# exe       $TP/entry_points" "$TMP/dump" && ok "header shows the exe" || bad "exe line"
grep -q '^# cmdline   .*entry_points --count' "$TMP/dump" && ok "header shows the command line" || bad "cmdline line"
grep -q '^# order     no record precedes its chunk' "$TMP/dump" && ok "header: the capture promises chunk-bound order" || bad "order line: $(grep '^# order' "$TMP/dump")"
eq "header: the writer's count of calls, as many as the records" "$(count "$f" calls)" "$(sed -n 's/^# status    finished, ran [0-9.]* s, \([0-9,]*\) calls recorded.*/\1/p' "$TMP/dump" | tr -d ,)"
"$TP/mkfixture" trace-edge "$TMP/edge"
# slots no record was committed to: in a finished trace, space reserved and not used (not
# records lost); in one that did not finish, possibly records being written when it ended
eq "finished: the unused slots said for what they are" "2 slots reserved and not used" \
	"$("$BIN/trace_dump" -c "$TMP/edge" | sed 's/.*, //')"
cp "$TMP/edge" "$TMP/unfinished"
# (the header's flags at offset 20, this machine's byte order: FINISHED is 8, in the first byte
# on a little-endian machine, the last on a big-endian one)
at=20; [ "$(printf '\001\000' | od -An -tu2 | tr -d ' ')" = 1 ] || at=23
low=$(od -An -tu1 -j $at -N 1 "$TMP/edge" | tr -d ' ')
printf "$(printf '\\%03o' $((low & ~8)))" | dd of="$TMP/unfinished" bs=1 seek=$at conv=notrunc 2>/dev/null
eq "not finished: the unwritten slots may be records cut short" \
	"2 unwritten slots skipped (reserved, or being written when the trace ended)" \
	"$("$BIN/trace_dump" -c "$TMP/unfinished" | sed 's/.*, \([0-9]* unwritten\)/\1/')"
"$BIN/trace_dump" -H "$TMP/edge" | grep -q '^# order     .*older writer' && ok "header: a trace without the flag says so" || bad "order line of an unflagged trace"
grep -q 'calloc(10002, 1) = 0x' "$TMP/dump" && ok "calloc line" || bad "calloc line"
grep -q 'posix_memalign(128, 10005) = 0x' "$TMP/dump" && ok "posix_memalign line" || bad "posix_memalign line"
eq "-n limits records" 3 "$("$BIN/trace_dump" -n 3 "$f" | grep -vc '^#')"
"$BIN/trace_dump" -H "$f" | grep -q '^#   offset' && bad "-H printed records" || ok "-H prints the header only"
"$BIN/trace_dump" -H -c "$f" | grep -q ": valid trace: " && ok "-H -c: -c wins (it validates the whole file)" || bad "-H -c printed nothing"
"$BIN/trace_dump" -a "$f" | grep -q ' chunk of 1024 bytes' && ok "-a shows chunk records" || bad "-a chunk records: $("$BIN/trace_dump" -a "$f" | grep -m1 chunk)"
cat "$f" | "$BIN/trace_dump" -c - >/dev/null && ok "reads standard input" || bad "stdin"

# --sorted: the records in their global order.  The fixture's file order goes back in time
# (thread 200's chunk, 140..190, follows thread 100's, 10..200); sorted, every tick in order
# and the same records
"$BIN/trace_dump" --ticks "$TMP/edge" | awk '$1 ~ /^[0-9]+$/ { print $2 }' | paste -sd' ' >"$TMP/ticks"
case " $(cat "$TMP/ticks") " in *" 200 140 "*) ok "the fixture's file order goes back in time" ;; *) bad "fixture file order: $(cat "$TMP/ticks")" ;; esac
eq "--sorted: every record in the order of its ticks" "$(seq 10 10 200 | paste -sd' ')" \
	"$("$BIN/trace_dump" --sorted --ticks "$TMP/edge" | awk '$1 ~ /^[0-9]+$/ { print $1 }' | paste -sd' ')"
"$BIN/trace_dump" --ticks "$TMP/edge" | awk '$1 ~ /^[0-9]+$/ { $1 = ""; print }' | sort >"$TMP/file.recs"
"$BIN/trace_dump" --sorted --ticks "$TMP/edge" | awk '$1 ~ /^[0-9]+$/ { print " " $0 }' | sed 's/  */ /g' | sort >"$TMP/sorted.recs"
sed -i 's/  */ /g' "$TMP/file.recs"
check "--sorted: the same records as in file order, each once" cmp -s "$TMP/file.recs" "$TMP/sorted.recs"
eq "--sorted: the summary line as in file order" "$("$BIN/trace_dump" "$TMP/edge" | tail -n 1)" "$("$BIN/trace_dump" --sorted "$TMP/edge" | tail -n 1)"
"$BIN/trace_dump" --sorted "$TMP/edge" | grep -q '^#      seconds     tid  call$' && ok "--sorted: no offset column" || bad "--sorted columns: $("$BIN/trace_dump" --sorted "$TMP/edge" | grep tid)"
eq "--sorted -n 3: three records" 3 "$("$BIN/trace_dump" --sorted -n 3 "$TMP/edge" | grep -vc '^#')"
eq "--sorted -n 3: the first three ticks" "10 20 30" "$("$BIN/trace_dump" --sorted --ticks -n 3 "$TMP/edge" | awk '$1 ~ /^[0-9]+$/ { print $1 }' | paste -sd' ')"
"$BIN/trace_dump" --sorted -a "$TMP/edge" >/dev/null 2>&1; eq "--sorted --all: exit 2" 2 "$?"
# a program's two threads, calls interleaved: time never goes back sorted, and every call is there
"$BIN/mtracectl" -q -o "$TMP/two" -- "$TP/xthread" >/dev/null 2>&1
two=$(one_file "$TMP/two.*")
"$BIN/trace_dump" --sorted --ticks "$two" >"$TMP/two.sorted"; eq "--sorted, two threads: exit 0" 0 "$?"
eq "--sorted, two threads: time never goes back" 0 "$(awk '$1 ~ /^[0-9]+$/ { if ($1 < last) n++; last = $1 } END { print n + 0 }' "$TMP/two.sorted")"
eq "--sorted, two threads: every call" "$(count "$two" calls)" "$(grep -v '^#' "$TMP/two.sorted" | grep -vc ' memory: ')"

expect_bad() { # DESCRIPTION FILE PATTERN
	"$BIN/trace_dump" "$2" >/dev/null 2>"$TMP/err"; rc=$?
	if [ $rc -eq 1 ] && grep -q -- "$3" "$TMP/err" && [ "$(wc -l <"$TMP/err")" -eq 1 ]; then ok "$1: $(cat "$TMP/err")"
	else bad "$1: exit $rc, stderr: $(cat "$TMP/err")"; fi
}
: >"$TMP/empty"; expect_bad "empty file" "$TMP/empty" "offset 0: empty file"
head -c 100 "$f" >"$TMP/short"; expect_bad "truncated header" "$TMP/short" "offset 100: truncated header"
head -c 4096 /dev/urandom >"$TMP/garbage"; expect_bad "garbage" "$TMP/garbage" "offset 0: not an mtrace trace"
# (version 3: 32-byte slots, the first a chunk record; a slot's call is its first byte, flags
# its second.  The older 64-byte layout: mkfixture's traces)
head -c $((4096 + 32 + 10)) "$f" >"$TMP/cut"; expect_bad "truncated record" "$TMP/cut" "offset 4128: truncated record (10 of 32 bytes)"
# (cut at a record's end: whole records, fewer calls than the writer counted as it closed it)
at=$("$BIN/trace_dump" "$f" | awk '!/^#/ && ++n == 2 { print $1; exit }')   # (32 or 64 bytes)
head -c "$at" "$f" >"$TMP/cut3"
expect_bad "cut at a record's end" "$TMP/cut3" \
	"offset $at: truncated: its writer recorded [0-9,]* calls"
cp "$f" "$TMP/badcall"; printf '\115' | dd of="$TMP/badcall" bs=1 seek=$((4096 + 32)) conv=notrunc 2>/dev/null
expect_bad "unknown call type" "$TMP/badcall" "offset 4128: unknown call type 77"
cp "$f" "$TMP/badwide"; printf '\201' | dd of="$TMP/badwide" bs=1 seek=$((4096 + 32 + 1)) conv=notrunc 2>/dev/null
printf '\003' | dd of="$TMP/badwide" bs=1 seek=$((4096 + 64)) conv=notrunc 2>/dev/null
expect_bad "a wide record whose second slot is a record" "$TMP/badwide" "offset 4160: a wide record's second slot that is not one"
cp "$f" "$TMP/nochunk"; dd if=/dev/zero of="$TMP/nochunk" bs=1 seek=4096 count=32 conv=notrunc 2>/dev/null
expect_bad "a record outside any chunk" "$TMP/nochunk" "offset 4128: a record outside any chunk"
"$TP/mkfixture" trace-edge "$TMP/old"
cp "$TMP/old" "$TMP/badflags"; printf '\200' | dd of="$TMP/badflags" bs=1 seek=$((4096 + 64 + 5)) conv=notrunc 2>/dev/null
expect_bad "unknown flags (64-byte records)" "$TMP/badflags" "offset 4160: unknown record flags 0x80"
cp "$f" "$TMP/badhflags"; printf '\032\200' | dd of="$TMP/badhflags" bs=1 seek=20 conv=notrunc 2>/dev/null
expect_bad "unknown header flags" "$TMP/badhflags" "offset 20: unknown header flags 0x801a"
cp "$f" "$TMP/badids"; printf '\032\100' | dd of="$TMP/badids" bs=1 seek=20 conv=notrunc 2>/dev/null
expect_bad "stack ids without stacks" "$TMP/badids" \
	"offset 20: the stack ids flag in a version 6 trace without call stacks"
# each header string must lie in the header's string area: the command line, the allocator's
# settings and its path (offsets 64, 96, 104; their lengths 4 bytes on)
for s in "64 command line lies" "96 allocator settings lie" "104 allocator path lies"; do
	set -- $s
	cp "$f" "$TMP/badstr"; printf '\377\377' | dd of="$TMP/badstr" bs=1 seek=$(($1 + 4)) conv=notrunc 2>/dev/null
	expect_bad "a string outside the header (offset $1)" "$TMP/badstr" "offset $1: $2 $3 $4 outside the header"
done
cp "$f" "$TMP/badver"; printf '\011' | dd of="$TMP/badver" bs=1 seek=12 conv=notrunc 2>/dev/null
expect_bad "future version" "$TMP/badver" "offset 12: unsupported format version 9"
cp "$f" "$TMP/badrs"; printf '\020\000' | dd of="$TMP/badrs" bs=1 seek=14 conv=notrunc 2>/dev/null
expect_bad "header size too small" "$TMP/badrs" "offset 14: bad header size 16"
expect_bad "missing file" "$TMP/nonexistent" "No such file"
"$BIN/trace_dump" --help | grep -q '^Usage: trace_dump' && ok "--help" || bad "--help"
"$BIN/trace_dump" --version | grep -q '^trace_dump (mtrace) ' && ok "--version" || bad "--version"
"$BIN/trace_dump" --bogus >/dev/null 2>&1; eq "bad option: exit 2" 2 "$?"
"$BIN/trace_dump" >/dev/null 2>&1; eq "no file: exit 2" 2 "$?"

# --- workloads: the header, then each stream's operations, numbered as trace_run counts calls
wlc() { "$TP/wl_check" "$1" | awk -v k="$2" '$1 == k { print $2 }'; }
"$BIN/trace2wl" -q --dj-format "$TMP/w.dj" "$TMP/w.wl" "$f"
"$BIN/trace_dump" "$TMP/w.wl" >"$TMP/wd"; eq "workload: exit 0" 0 "$?"
grep -q "^# program   $TP/entry_points (pid $(count "$f" pid))$" "$TMP/wd" && ok "workload: the program and pid" || bad "workload program: $(grep program "$TMP/wd")"
eq "workload: a stream line for each of its streams" "$(wlc "$TMP/w.wl" threads)" "$(grep -c '^# stream [0-9]*: thread ' "$TMP/wd")"
eq "workload: a numbered line for every call" "$(wlc "$TMP/w.wl" calls)" "$(grep -c '^ *[0-9][0-9]*  *[0-9][0-9]*  [a-z_]*(' "$TMP/wd")"
eq "workload: malloc(10001) seven times, each into a slot" 7 "$(grep -c ' malloc(10001) -> slot [1-9]' "$TMP/wd")"
eq "workload: every free, of a slot" "$(wlc "$TMP/w.wl" free)" "$(grep -c ' free(slot [1-9][0-9]*)$' "$TMP/wd")"
grep -q ' failed$' "$TMP/wd" && ok "workload: failed calls marked" || bad "workload: no failed call"
"$BIN/trace_dump" -c "$TMP/w.wl" | grep -q "^$TMP/w.wl: valid workload: [0-9,]* calls in [0-9]* streams*, [0-9,]* waits*, all satisfiable$" &&
	ok "workload -c: one line" || bad "workload -c: $("$BIN/trace_dump" -c "$TMP/w.wl" 2>&1)"
gzip -c "$TMP/w.wl" >"$TMP/w.wl.gz"
"$BIN/trace_dump" "$TMP/w.wl.gz" | tail -n +2 | cmp -s - "$(tail -n +2 "$TMP/wd" >"$TMP/wd2"; echo "$TMP/wd2")" &&
	ok "workload, gzip-compressed: printed the same" || bad "workload .gz differs"
"$BIN/trace_dump" "$TMP/w.dj" >"$TMP/wdj"; eq "dj/malloc workload: exit 0" 0 "$?"
eq "dj/malloc workload: printed translated, every call" "$(grep -c '^ *[0-9][0-9]*  *[0-9][0-9]*  [a-z_]*(' "$TMP/wd")" "$(grep -c '^ *[0-9][0-9]*  *[0-9][0-9]*  [a-z_]*(' "$TMP/wdj")"
"$BIN/trace_dump" -s 0 --from 3 -n 2 "$TMP/w.wl" | grep -v '^#' | awk '$2 ~ /^[0-9]+$/ { print $2 }' | paste -sd' ' >"$TMP/from"
eq "workload -s 0 --from 3 -n 2: calls 3 and 4 of stream 0" "3 4" "$(cat "$TMP/from")"
eq "workload -s 0: stream 0 only" 1 "$("$BIN/trace_dump" -s 0 "$TMP/w.wl" | grep -c '^# stream ')"
"$BIN/trace_dump" -s 99 "$TMP/w.wl" >/dev/null 2>"$TMP/err"; eq "workload -s 99: exit 2" 2 "$?"
grep -q 'it has streams 0 to' "$TMP/err" && ok "workload -s 99: says which there are" || bad "-s 99: $(cat "$TMP/err")"
"$TP/mkfixture" wl-deadlock "$TMP/dead"
"$BIN/trace_dump" "$TMP/dead" >"$TMP/dd" 2>"$TMP/err"; eq "deadlocking workload: exit 1" 1 "$?"
grep -q 'dead: offset [0-9]*: deadlock' "$TMP/err" && ok "deadlocking workload: the error names the offset" || bad "deadlock: $(cat "$TMP/err")"
eq "deadlocking workload: still printed (its waits show why)" 2 "$(grep -c ' wait for stream ' "$TMP/dd")"
"$BIN/trace_dump" -c "$TMP/dead" >/dev/null 2>&1; eq "deadlocking workload -c: exit 1" 1 "$?"
head -c 1100 "$TMP/w.wl" >"$TMP/wcut"
"$BIN/trace_dump" "$TMP/wcut" >/dev/null 2>"$TMP/err"; eq "truncated workload: exit 1" 1 "$?"
grep -q 'wcut: offset 1100: ' "$TMP/err" && ok "truncated workload: the offset" || bad "truncated workload: $(cat "$TMP/err")"
gzip -c "$TMP/wcut" >"$TMP/wcut.gz"
"$BIN/trace_dump" -c "$TMP/wcut.gz" "$TMP/w.wl" >"$TMP/out" 2>"$TMP/err"; eq "a broken compressed workload, then a good one: exit 1" 1 "$?"
grep -q "wcut.gz: offset 1100: " "$TMP/err" && ok "a broken compressed workload: named as given" || bad "wcut.gz: $(cat "$TMP/err")"
grep -q "w.wl: valid workload" "$TMP/out" && ok "... and the next file still checked" || bad "next file: $(cat "$TMP/out")"
"$BIN/trace_dump" - <"$TMP/w.wl" >/dev/null 2>"$TMP/err"; eq "a workload on standard input: exit 1" 1 "$?"
grep -q 'a workload, not a trace.*give trace_dump its file name' "$TMP/err" && ok "a workload on standard input: says what to do" || bad "stdin workload: $(cat "$TMP/err")"
# and the trace tools given a workload say what it is
"$BIN/trace2wl" "$TMP/x.wl" "$TMP/w.wl" 2>"$TMP/err"; eq "trace2wl given a workload: exit 1" 1 "$?"
grep -q "w.wl: offset 0: a workload, not a trace (trace_run replays it, trace_dump prints it)" "$TMP/err" && ok "trace2wl given a workload: says so" || bad "trace2wl: $(cat "$TMP/err")"
"$BIN/trace_stats" "$TMP/w.dj" >/dev/null 2>"$TMP/err"; eq "trace_stats given a dj/malloc workload: exit 1" 1 "$?"
grep -q 'a workload, not a trace' "$TMP/err" && ok "trace_stats given a dj/malloc workload: says so" || bad "trace_stats: $(cat "$TMP/err")"
finish
