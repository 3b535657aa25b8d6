# trace_pack: packed traces are read as they are by every tool; anonymized ones keep no address,
# program, pid, thread id, date or setting but the allocators' numbers, and convert to the same
# workload streams; failures leave no file behind.
. tests/lib.sh
P="$BIN/trace_pack"
( export GLIBC_TUNABLES=glibc.malloc.tcache_count=0:glibc.malloc.arena_max=1; traced "$TMP/x" "$TP/xthread" 3 5000 >/dev/null )
f=$(one_file "$TMP/x.*"); pid=$(count "$f" pid)
cd "$TMP"
name=$("$P" "$f" 2>"$TMP/err"); eq "pack: exit 0" 0 "$?"
case "$name" in "$(hostname)-xthread-$pid.mtrace.gz") ok "named HOST-PROGRAM-PID.mtrace.gz ($name)" ;; *) bad "name: $name" ;; esac
grep -q "xthread (pid $pid), [0-9,]* records from 4 threads over" "$TMP/err" && ok "shows program, records, threads, time span" || bad "summary: $(cat "$TMP/err")"
check "gzip data" sh -c "head -c 2 '$name' | od -An -tx1 | grep -q '1f 8b'"
"$BIN/trace_dump" -c "$name" >/dev/null; eq "trace_dump reads the packed trace" 0 "$?"
"$BIN/trace_stats" --tsv "$f" | grep -v '^trace' >"$TMP/s1"
"$BIN/trace_stats" --tsv "$name" | grep -v '^trace' >"$TMP/s2"
check "trace_stats gives the same figures from the packed trace" cmp "$TMP/s1" "$TMP/s2"
"$BIN/trace2wl" -q "$TMP/orig.wl" "$f"
"$BIN/trace2wl" -q "$TMP/packed.wl" "$name"
check "trace2wl converts the packed trace to the same workload" cmp "$TMP/orig.wl" "$TMP/packed.wl"
# -q: the name on standard output, nothing on standard error
name=$("$P" -q -o "$TMP/q.gz" "$f" 2>"$TMP/err"); eq "-q: exit 0" 0 "$?"
eq "-q: the name still printed" "$TMP/q.gz" "$name"
eq "-q: nothing on standard error" "" "$(cat "$TMP/err")"
gzip -dc "$TMP/q.gz" >"$TMP/q.raw"; gzip -dc "$TMP/$(hostname)-xthread-$pid.mtrace.gz" >"$TMP/n.raw"
check "-q: the same trace packed" cmp "$TMP/q.raw" "$TMP/n.raw"
# progress: -p shows the check, then the compression (how far the compressor has read its
# input, and of how much); nothing without -p when stderr is no terminal
"$P" -p -o "$TMP/pg.gz" "$f" >/dev/null 2>"$TMP/err"; eq "-p: exit 0" 0 "$?"
tr '\r' '\n' <"$TMP/err" | grep -q "^trace_pack: compressing $f with gzip: [0-9]*% ([0-9,]* MiB of [0-9,]* MiB)" &&
	ok "-p: the compression's progress" || bad "-p: $(cat -A "$TMP/err" | head -c 400)"
tr '\r' '\n' <"$TMP/err" | grep -q "^trace_pack: $f: [0-9]*% " && ok "-p: the check's progress" || bad "-p check: $(cat -A "$TMP/err" | head -c 400)"
"$P" -o "$TMP/pg2.gz" "$f" >/dev/null 2>"$TMP/err"
eq "no -p, no terminal: no progress line" 0 "$(tr -cd '\r' <"$TMP/err" | wc -c | tr -d ' ')"
# from standard input (read twice: validated, then compressed): it was packed empty, exit 0
mkdir -p "$TMP/ptmp"
TMPDIR="$TMP/ptmp" "$P" -o "$TMP/in.gz" - <"$f" 2>"$TMP/err"; eq "standard input: exit 0" 0 "$?"
grep -q '^trace_pack: <stdin>: xthread' "$TMP/err" && ok "standard input: named so" || bad "stdin: $(cat "$TMP/err")"
gzip -dc "$TMP/in.gz" | cmp -s - "$f" && ok "standard input: the packed trace is the trace" || bad "standard input: packed trace differs"
eq "standard input: no copy left behind" "" "$(ls "$TMP/ptmp")"
for z in xz zstd; do
	if command -v $z >/dev/null; then
		"$P" --$z -o "$TMP/p.$z" "$f" >/dev/null 2>&1; eq "--$z: exit 0" 0 "$?"
		"$BIN/trace2wl" -q "$TMP/$z.wl" "$TMP/p.$z"
		check "--$z: same workload" cmp "$TMP/orig.wl" "$TMP/$z.wl"
	else
		echo "# $z not installed: its case is not run"
	fi
done

# anonymized
"$P" --anonymize -o "$TMP/anon.gz" "$f" >/dev/null 2>&1; eq "--anonymize: exit 0" 0 "$?"
"$BIN/trace_dump" "$TMP/anon.gz" >"$TMP/anon.dump"; eq "the anonymized trace validates" 0 "$?"
grep -q '^# exe       (left out on request)' "$TMP/anon.dump" && ok "program and command line left out" || bad "exe line"
grep -q 'xthread' "$TMP/anon.dump" && bad "the program's name is still in it" || ok "the program's name is nowhere in it"
"$BIN/trace_dump" "$f" | grep -o '= 0x[0-9a-f]*' | sort -u | head -n 200 | sed 's/= //' >"$TMP/addrs"
ge "original addresses to look for" 50 "$(wc -l <"$TMP/addrs")"
eq "no original address survives" 0 "$(grep -c -w -F -f "$TMP/addrs" "$TMP/anon.dump")"
"$BIN/trace2wl" -q "$TMP/anon.wl" "$TMP/anon.gz"
# wlops WORKLOAD: every call of every stream, and the program's memory samples, as trace_dump
# prints them, the thread ids aside
wlops() { "$BIN/trace_dump" "$1" | sed -n '/^# stream/,$p' | sed 's/^\(# stream [0-9]*\): thread [0-9]*,/\1,/'; }
wlops "$TMP/orig.wl" >"$TMP/o.ops"; wlops "$TMP/anon.wl" >"$TMP/a.ops"
ge "calls in the workload" 20000 "$(wc -l <"$TMP/o.ops")"
check "anonymized: identical workload streams (every call of every thread, same times)" cmp "$TMP/o.ops" "$TMP/a.ops"
# a trace of 4-byte pointers stays one: its stand-ins fit in 32 bits
"$TP/swap_trace" --ptr32 "$TMP/p32"
"$P" --anonymize -o "$TMP/p32anon.gz" "$TMP/p32" >/dev/null 2>&1; eq "--anonymize, 4-byte pointers: exit 0" 0 "$?"
check "4-byte pointers: the anonymized trace validates" "$BIN/trace_dump" -c "$TMP/p32anon.gz"
"$BIN/trace2wl" -q "$TMP/p32.wl" "$TMP/p32"; "$BIN/trace2wl" -q "$TMP/p32anon.wl" "$TMP/p32anon.gz"
wlops "$TMP/p32.wl" >"$TMP/o.ops"; wlops "$TMP/p32anon.wl" >"$TMP/a.ops"
check "4-byte pointers: identical workload streams" cmp "$TMP/o.ops" "$TMP/a.ops"
# what anonymizing keeps: a program run with secrets in its MALLOC_* variables, a jemalloc
# option naming a file, a tunable that glibc ignores, and its allocator under /home
mkdir -p "$TMP/home/alice/lib"
so=$(ls /usr/lib/*/libjemalloc.so.2 /usr/lib/libjemalloc.so.2 2>/dev/null | head -n 1)
if [ -n "$so" ]; then
	cp "$so" "$TMP/home/alice/lib/"
	so=$TMP/home/alice/lib/libjemalloc.so.2 base=libjemalloc.so.2
else
	echo "# jemalloc is not installed: the allocator's path is glibc's"
	base=libc.so.6
fi
MALLOC_TOKEN=alice_password_123 MALLOC_CONF=prof_prefix:/home/alice/jeprof,narenas:2 \
	GLIBC_TUNABLES=glibc.malloc.arena_max=1:glibc.malloc.check=xyzzy MIMALLOC_SECRET=abc \
	TCMALLOC_MEMFS_MALLOC_PATH=/home/alice/hugepages TCMALLOC_RELEASE_RATE=2.5 \
	MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/s" LD_PRELOAD="$LIB${so:+ $so}" \
	"$TP/xthread" 2 200 alice_argument >/dev/null
s=$(one_file "$TMP/s.*"); spid=$(count "$s" pid)
"$BIN/trace_dump" "$s" | grep -q "^# settings .*MALLOC_TOKEN=alice_password_123" && ok "the trace holds the secrets" || bad "secrets not in the trace"
(cd "$TMP" && "$P" -A "$s" >"$TMP/sname" 2>/dev/null); eq "--anonymize of it: exit 0" 0 "$?"
eq "named anon-1.mtrace.gz (not the host's name nor the pid)" anon-1.mtrace.gz "$(cat "$TMP/sname")"
gzip -dc "$TMP/$(cat "$TMP/sname")" >"$TMP/s.anon"
ge "anonymized: a trace of some size" 8192 "$(wc -c <"$TMP/s.anon")"
for secret in alice_password_123 MALLOC_TOKEN prof_prefix /home/alice jeprof xyzzy MIMALLOC_SECRET \
	hugepages alice_argument xthread; do
	eq "anonymized: no '$secret' in its bytes" 0 "$(grep -a -c -F -e "$secret" "$TMP/s.anon")"
done
"$BIN/trace_dump" "$TMP/s.anon" >"$TMP/s.dump"; eq "the anonymized trace validates" 0 "$?"
grep -q "^# settings  GLIBC_TUNABLES=glibc.malloc.arena_max=1 .*MALLOC_CONF=narenas:2" "$TMP/s.dump" &&
	ok "the allocators' settings of their grammar remain: $(grep '^# settings' "$TMP/s.dump")" || bad "settings: $(grep '^# settings' "$TMP/s.dump")"
grep -q "^# settings .*TCMALLOC_RELEASE_RATE=2.5" "$TMP/s.dump" && ok "a numeric tcmalloc setting remains" || bad "TCMALLOC_RELEASE_RATE gone"
grep -q "^# allocator $base," "$TMP/s.dump" && ok "the allocator's file name remains ($base), not its directory" || bad "allocator: $(grep '^# allocator' "$TMP/s.dump")"
grep -q "^# process   pid 0, parent 0$" "$TMP/s.dump" && ok "pid and parent pid are 0" || bad "pids: $(grep '^# process' "$TMP/s.dump")"
grep -q "^# started   1970-01-01 00:00:00.000000000 UTC$" "$TMP/s.dump" && ok "the start date is 0" || bad "date: $(grep '^# started' "$TMP/s.dump")"
eq "no record of thread $spid (the pid: thread ids are replaced)" 0 "$(awk -v p="$spid" '$3 == p' "$TMP/s.dump" | wc -l)"
eq "three threads still, 1 to 3" "1 2 3" "$(awk '/^ *[0-9]+ +[0-9.]+ +[0-9]+ /{ print $3 }' "$TMP/s.dump" | sort -u | tr '\n' ' ' | sed 's/ $//')"
"$BIN/trace_dump" "$s" | awk '/^ *[0-9]+ +[0-9.]+ +[0-9]+ /{ print $2 }' >"$TMP/t1"
awk '/^ *[0-9]+ +[0-9.]+ +[0-9]+ /{ print $2 }' "$TMP/s.dump" >"$TMP/t2"
check "every record at the same time from the start" cmp "$TMP/t1" "$TMP/t2"
"$BIN/trace_dump" "$s" | grep "^# clock" >"$TMP/c1"; grep "^# clock" "$TMP/s.dump" >"$TMP/c2"
check "the same clock and rate" cmp "$TMP/c1" "$TMP/c2"

"$TP/mkfixture" dj-edge "$TMP/dj"
"$P" --anonymize -o "$TMP/dj.gz" "$TMP/dj" 2>"$TMP/err"; eq "--anonymize of a dj trace: exit 1" 1 "$?"
grep -q 'rewrites mtrace traces' "$TMP/err" && ok "says why" || bad "dj anonymize: $(cat "$TMP/err")"

# failures leave nothing behind
head -c 5000 "$f" >"$TMP/cut"
"$P" -o "$TMP/cut.gz" "$TMP/cut" 2>"$TMP/err"; eq "truncated trace: exit 1" 1 "$?"
check "truncated trace: no output, not even a temporary one" sh -c "! ls '$TMP'/cut.gz* >/dev/null 2>&1"
# cut at a record's end (a copy that stopped there): fewer calls than its writer counted
# (a record's start, from its offset: records are 32 or 64 bytes)
head -c "$("$BIN/trace_dump" "$f" | awk '!/^#/ && ++n == 100 { print $1; exit }')" "$f" >"$TMP/cut2"
"$P" -o "$TMP/cut2.gz" "$TMP/cut2" 2>"$TMP/err"; eq "trace cut at a record's end: exit 1" 1 "$?"
grep -q "^trace_pack: $TMP/cut2: offset [0-9]*: truncated: its writer recorded [0-9,]* calls" \
	"$TMP/err" &&
	ok "... says so, with the offset" || bad "cut at a record's end: $(cat "$TMP/err")"
check "... no output" sh -c "! ls '$TMP'/cut2.gz* >/dev/null 2>&1"
PATH=/nonexistent "$P" --xz -o "$TMP/nope.xz" "$f" 2>"$TMP/err"; eq "no compressor: exit 3" 3 "$?"
grep -q "apt-get install xz-utils" "$TMP/err" && ok "no compressor: names the package" || bad "no compressor: $(cat "$TMP/err")"
"$P" 2>/dev/null; eq "no trace: exit 2" 2 "$?"
(cd "$TMP" && "$P" --gzip --xz "$f" >/dev/null 2>"$TMP/err"); eq "two compressors: exit 2 (the last one won)" 2 "$?"
grep -q 'choose one' "$TMP/err" && ok "two compressors: says so" || bad "two compressors: $(cat "$TMP/err")"
# levels: the compressor's own default unless asked (gzip -9 took 4 times as long as -6 for
# 0.5% less, zstd -19 270 times as long as -3); each compressor's range
"$P" --level 1 -o "$TMP/l1.gz" "$f" 2>/dev/null; eq "--level 1: exit 0" 0 "$?"
"$BIN/trace_dump" -c "$TMP/l1.gz" >/dev/null; eq "--level 1: the packed trace reads" 0 "$?"
"$P" --level 12 -o "$TMP/l12.gz" "$f" 2>"$TMP/err"; eq "--level 12 with gzip: exit 2" 2 "$?"
grep -q "gzip's levels go from 1 to 9" "$TMP/err" && ok "--level 12 with gzip: says the range" || bad "level: $(cat "$TMP/err")"
"$P" --level x -o "$TMP/lx.gz" "$f" 2>/dev/null; eq "--level x: exit 2" 2 "$?"
"$P" --help | grep -q '^Usage: trace_pack' && ok "--help" || bad "--help"
"$P" --version | grep -q '^trace_pack (mtrace) ' && ok "--version" || bad "--version"
finish
