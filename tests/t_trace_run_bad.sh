# trace_run refuses bad workloads with one clear error and exit 1, never crashing or hanging:
# out-of-range slots and threads, truncation, garbage, deadlocks, races.
. tests/lib.sh
R="$BIN/trace_run"
expect_bad() { # DESCRIPTION FILE PATTERN
	timeout 20 "$R" "$2" >/dev/null 2>"$TMP/err"; rc=$?
	if [ $rc -eq 1 ] && grep -q -- "$3" "$TMP/err" && [ "$(wc -l <"$TMP/err")" -eq 1 ]; then ok "$1: $(cat "$TMP/err")"
	else bad "$1: exit $rc, stderr: $(cat "$TMP/err")"; fi
}
for k in wl-ok wl-deadlock wl-never wl-badslot wl-badthread; do "$TP/mkfixture" $k "$TMP/$k"; done
"$R" "$TMP/wl-ok" >/dev/null; eq "a good small workload replays" 0 "$?"
expect_bad "deadlock (a cycle)" "$TMP/wl-deadlock" "deadlock: thread 0 waits for thread 1"
expect_bad "a wait for a call that never comes" "$TMP/wl-never" "thread 0 waits for thread 1 to finish call 5, but thread 1 ends after 1 call"
expect_bad "slot out of range" "$TMP/wl-badslot" "offset 1088: malloc: slot 7 out of range"
expect_bad "thread out of range" "$TMP/wl-badthread" "wait for thread 5 of 2"
# races: a slot or map id one stream uses after another with no wait between them (a replay could
# hand the allocator one block from two threads at once); refused before any replay, so every
# time.  An order that comes from a third stream's waits is one (wl-chain), with a stream of the
# chain not waiting it is not (wl-chain-racy).
for k in wl-racy wl-chain wl-chain-racy wl-map-racy; do "$TP/mkfixture" $k "$TMP/$k"; done
expect_bad "a race: a block passed with no wait" "$TMP/wl-racy" "offset 1096: a race: stream 1's call 1 (realloc) and stream 0's call 1 (malloc, at offset 1088) both use slot 1, and no wait orders them, directly or through other streams: a replay may run both at once; the calls before it: trace_dump -s 1 --from 1 -n 20 $TMP/wl-racy$"
"$R" --touch=none "$TMP/wl-chain" >/dev/null; eq "a block passed through a third stream's waits: replayed" 0 "$?"
expect_bad "a race: a chain of waits with a link missing" "$TMP/wl-chain-racy" "offset 1138: a race: stream 2's call 1 (free) and stream 0's call 1 (malloc, at offset 1120) both use slot 1,"
expect_bad "a race: a mapping unmapped with no wait" "$TMP/wl-map-racy" "offset 1110: a race: stream 1's call 2 (unmap) and stream 0's call 4 (remap, at offset 1099) both use map id 0,"
# a chain of streams, each waiting for the one before and using the slot of the one before that:
# ordered through a third stream every time, checked with clocks over the streams passing blocks;
# 1,000 in one run of the check, 20,000 more than its memory bound checks (8 runs): refused so
"$TP/mkfixture" wl-longchain "$TMP/chain1k" 1000; "$TP/mkfixture" wl-longchain "$TMP/chain20k" 20000
"$BIN/trace_dump" -c "$TMP/chain1k" >"$TMP/out" 2>&1; eq "a chain of 1,000 streams: valid" 0 "$?"
expect_bad "a chain of 20,000 streams: beyond the check's bound" "$TMP/chain20k" "offset 641038: stream 2's call 1 (realloc) and stream 0's call 1 (malloc, at offset 641024) both use slot 1, stream 2 with no wait of its own for the other; whether other streams' waits order such uses is checked for 1112 of the streams whose blocks are so used, and there are 19998;"
# the damaged dj/malloc workload of a bug report (fixtures/racy-dj.wl): its replay aborted in
# glibc 4 times in 30; refused, each time, by trace_run and trace_dump (offsets: of its
# translation, as trace_dump shows it)
racy=$ROOT/tests/fixtures/racy-dj.wl
for i in 1 2 3; do expect_bad "racy-dj.wl, run $i: refused" "$racy" "^trace_run: $racy: offset 33021: a race: stream 1's call 3006 (malloc) and stream 0's call 3506 (free, at offset 18673) both use slot 411, .*: trace_dump -s 1 --from 2996 -n 20 $racy$"; done
"$BIN/trace_dump" -c "$racy" >"$TMP/out" 2>"$TMP/err"
eq "racy-dj.wl: trace_dump -c: exit 1, nothing printed" "1 0" "$? $(wc -c <"$TMP/out")"
grep -q "^trace_dump: $racy: offset 33021: a race: " "$TMP/err" && ok "racy-dj.wl: trace_dump -c names the race" || bad "trace_dump -c: $(cat "$TMP/err")"
"$BIN/trace_dump" -s 1 --from 2996 -n 20 "$racy" 2>/dev/null | grep -q '^ *33021 *3006  malloc(100) -> slot 411$' &&
	ok "racy-dj.wl: the command given shows the racing call" || bad "racy-dj.wl: the dump does not show offset 33021"
size=$(stat -c %s "$TMP/wl-ok")
# stream 0's offset (the thread table's first field, at 1,024) moved into the table, the header
cp "$TMP/wl-ok" "$TMP/overlap"; printf '\032\004' | dd of="$TMP/overlap" bs=1 seek=1024 conv=notrunc 2>/dev/null
expect_bad "a stream overlapping the thread table" "$TMP/overlap" "offset 1024: stream of thread 0 overlaps the thread table"
cp "$TMP/wl-ok" "$TMP/inhdr"; printf '\144\000' | dd of="$TMP/inhdr" bs=1 seek=1024 conv=notrunc 2>/dev/null
expect_bad "a stream inside the header" "$TMP/inhdr" "offset 1024: stream of thread 0 lies outside the file"
head -c $((size - 3)) "$TMP/wl-ok" >"$TMP/cut"; expect_bad "truncated" "$TMP/cut" "truncated or padded"
# random bytes, the first not ALLOC_PTRS (8): otherwise 1 run in 256 would look like a dj/malloc
# workload and be refused for another reason ("opcode N in the preamble")
{ printf '\377'; head -c 1999 /dev/urandom; } >"$TMP/garbage"; expect_bad "garbage" "$TMP/garbage" "not an mtrace workload"
{ printf '\010'; head -c 1999 /dev/urandom; } >"$TMP/djgarbage"; expect_bad "garbage that begins as a dj/malloc workload" "$TMP/djgarbage" "offset"
: >"$TMP/empty"; expect_bad "empty" "$TMP/empty" "empty file"
expect_bad "missing" "$TMP/nonexistent" "No such file"
printf '\010\012\011\002\012\001\013\177\001' >"$TMP/bad.dj"; expect_bad "dj: stream past the end" "$TMP/bad.dj" "past the end"
printf '\010\003\011\002\012\001\013\007\001\007\001\002\001\005\001' >"$TMP/hang.dj"
expect_bad "dj: a SYNC_R nobody writes" "$TMP/hang.dj" "no SYNC_W writes"
# thread 0: SYNC_R 1, MALLOC 1 16, SYNC_W 1 - it waits for a write it makes itself later
printf '\010\002\011\002\012\001\013\007\001\007\001\002\001\020\006\001\001' >"$TMP/self.dj"
expect_bad "dj: a thread waiting for its own later SYNC_W" "$TMP/self.dj" "writes itself later: the replay would hang"
# through the re-execution for --malloc or --tunables (and a decompression or a dj translation
# before it), messages still name the user's file, never the temporary copy.  (An ASan build
# refuses a preload before its runtime: it re-executes for tunables instead.)
reexec="--malloc=$TP/libfwd.so"
[ "${SANITIZE:-}" = 1 ] && reexec="--tunables=glibc.malloc.tcache_count=7"
if command -v gzip >/dev/null; then
	gzip -c "$TMP/wl-badslot" >"$TMP/badslot.gz"; gzip -c "$TMP/hang.dj" >"$TMP/hang.dj.gz"
	for f in badslot.gz hang.dj.gz hang.dj; do
		timeout 20 "$R" "$reexec" "$TMP/$f" >/dev/null 2>"$TMP/err"; rc=$?
		if [ $rc -eq 1 ] && grep -q "^trace_run: $TMP/$f: " "$TMP/err" && ! grep -q "trace_run\.[A-Za-z0-9]*:" "$TMP/err"
		then ok "${reexec%%=*} $f: names it: $(cat "$TMP/err")"; else bad "${reexec%%=*} $f: exit $rc: $(cat "$TMP/err")"; fi
	done
else
	echo "gzip absent: the compressed cases of the re-execution not checked"
	"$R" "$reexec" "$TMP/hang.dj" >/dev/null 2>"$TMP/err"
	grep -q "^trace_run: $TMP/hang.dj: " "$TMP/err" && ok "${reexec%%=*} hang.dj: names it" || bad "${reexec%%=*} hang.dj: $(cat "$TMP/err")"
fi
# an allocator the loader cannot preload, or one that defines no malloc: the replay would measure
# glibc under its name (ld.so only warns); an ASan build refuses any preload before its runtime
if [ "${SANITIZE:-}" != 1 ]; then
	"$R" --malloc "$ROOT/README.md" "$TMP/wl-ok" >"$TMP/out" 2>"$TMP/err"; eq "--malloc of a file that is not ELF: exit 3" 3 "$?"
	grep -q 'README.md could not be preloaded' "$TMP/err" && ok "not ELF: says so" || bad "not ELF: $(cat "$TMP/err")"
	check "not ELF: no figures printed" test ! -s "$TMP/out"
	"$R" --malloc "$TP/libctor.so" "$TMP/wl-ok" >"$TMP/out" 2>"$TMP/err"; eq "--malloc of a library without malloc: exit 3" 3 "$?"
	grep -q 'libctor.so was preloaded but defines no malloc' "$TMP/err" && ok "no malloc: says so" || bad "no malloc: $(cat "$TMP/err")"
fi
# a workload whose blocks exceed the memory available (a malloc of twice MemAvailable, from a
# two-line mtrace() log): refused before the replay, exit 3, one line saying what to do.
# (An address-space limit, or ASan's largest allocation, makes the malloc fail where a replay
# would touch it: the test never drives the machine out of memory.)
big=$(awk '/^MemAvailable:/ { printf "%.0f\n", $2 * 1024 * 2 }' /proc/meminfo)
printf '= Start\n+ 0x10000 0x%x\n- 0x10000\n= End\n' "$big" >"$TMP/big.log"
"$BIN/trace_import" "$TMP/big.log" "$TMP/big.trace" && "$BIN/trace2wl" -q "$TMP/big.wl" "$TMP/big.trace"
limited() { if [ "${SANITIZE:-}" = 1 ]; then ASAN_OPTIONS="$ASAN_OPTIONS:max_allocation_size_mb=4096" "$@"; else (ulimit -v 4000000; "$@"); fi; }
limited "$R" "$TMP/big.wl" >"$TMP/out" 2>"$TMP/err"
eq "blocks beyond the memory available: exit 3" 3 "$?"
grep -q "^trace_run: $TMP/big.wl: its blocks reach [0-9,]* MiB live at their peak (its ideal RSS), more than the [0-9,]* MiB of memory available here (.*): .*--touch=none" "$TMP/err" &&
	[ "$(wc -l <"$TMP/err")" -eq 1 ] && ok "blocks beyond the memory available: one line, what to do" || bad "memory: $(cat "$TMP/err")"
check "blocks beyond the memory available: no figures" test ! -s "$TMP/out"
limited "$R" --compare glibc,glibc "$TMP/big.wl" >"$TMP/out" 2>"$TMP/err"
eq "--compare, blocks beyond the memory available: exit 3, one line" "3 1" "$? $(wc -l <"$TMP/err")"
limited "$R" --touch=none "$TMP/big.wl" >/dev/null 2>"$TMP/err"
grep -q "memory available" "$TMP/err" && bad "--touch=none: refused all the same" || ok "--touch=none: replayed (nothing touched)"
"$R" --mallopt M_ARENA_MAX=4294967296 "$TMP/wl-ok" >/dev/null 2>"$TMP/err"; eq "--mallopt beyond an int: exit 2" 2 "$?"
grep -q 'out of range' "$TMP/err" && ok "--mallopt beyond an int: says so" || bad "--mallopt: $(cat "$TMP/err")"
"$R" 2>/dev/null; eq "no workload: exit 2" 2 "$?"
"$R" --help | grep -q '^Usage: trace_run' && ok "--help" || bad "--help"
"$R" --version | grep -q '^trace_run (mtrace) ' && ok "--version" || bad "--version"
finish
