# trace2wl: conversion of synthetic traces with hand-computed results (ours and dj/malloc's),
# compressed and foreign-byte-order input, real and cross-thread traces checked replayable by
# wl_check, compactness, and the workload checker catching broken workloads.
. tests/lib.sh
wl() { "$TP/wl_check" "$1" | awk -v k="$2" '$1 == k { print $2 }'; }

# --- synthetic: every edge case (expected values computed by hand from tests/prog/mkfixture.c)
"$TP/mkfixture" trace-edge "$TMP/edge"
"$BIN/trace2wl" "$TMP/edge.wl" "$TMP/edge" 2>"$TMP/sum"
eq "edge: exit 0" 0 "$?"
cat "$TMP/sum"
"$TP/wl_check" "$TMP/edge.wl" >"$TMP/chk"; eq "edge: replayable (wl_check)" 0 "$?"
eq "edge: 18 calls (20 records less 2 skipped frees)" 18 "$(wl "$TMP/edge.wl" calls)"
eq "edge: 3 malloc" 3 "$(wl "$TMP/edge.wl" malloc)"
eq "edge: 4 realloc" 4 "$(wl "$TMP/edge.wl" realloc)"
eq "edge: 3 free (NULL, cross-thread, realloc'd)" 3 "$(wl "$TMP/edge.wl" free)"
eq "edge: 2 posix_memalign (one failed)" 2 "$(wl "$TMP/edge.wl" posix_memalign)"
eq "edge: aligned_alloc, reallocarray kept" "1 1" "$(wl "$TMP/edge.wl" aligned_alloc) $(wl "$TMP/edge.wl" reallocarray)"
eq "edge: 2 failed calls flagged" 2 "$(wl "$TMP/edge.wl" failed)"
eq "edge: 2 cross-thread waits" 2 "$(wl "$TMP/edge.wl" waits)"
eq "edge: ideal RSS peak 868 bytes" 868 "$(wl "$TMP/edge.wl" ideal_rss)"
grep -q 'free(NULL) 1, realloc(NULL, n) 2, realloc(p, 0) 1, failed calls 2' "$TMP/sum" && ok "edge: summary counts NULL/zero/failed cases" || bad "edge summary line"
grep -q 'skipped: 2 frees' "$TMP/sum" && ok "edge: pre-trace free and double free skipped and counted" || bad "skipped frees"
grep -q 'replayed from NULL: 1 reallocs' "$TMP/sum" && ok "edge: realloc of an unknown block counted" || bad "realloc unknown"

"$TP/mkfixture" trace-inverted "$TMP/inv"
"$BIN/trace2wl" "$TMP/inv.wl" "$TMP/inv" 2>"$TMP/sum"
grep -q 'repaired: 1 allocations of a still-live address' "$TMP/sum" && ok "inverted: repaired and counted" || bad "inverted: $(cat "$TMP/sum")"
"$TP/wl_check" "$TMP/inv.wl" >/dev/null; eq "inverted: still replayable" 0 "$?"

# 50,000 blocks live (an address map larger than the caches, where a free's map entry is found
# events ahead, and rebuilt while the frees go on), double frees and addresses allocated again
"$TP/mkfixture" trace-manylive "$TMP/many"
"$BIN/trace2wl" "$TMP/many.wl" "$TMP/many" 2>"$TMP/sum"; eq "many live: exit 0" 0 "$?"
"$TP/wl_check" "$TMP/many.wl" >"$TMP/chk"; eq "many live: replayable (wl_check)" 0 "$?"
eq "many live: 159,092 calls, 50,000 live at once, no violation" "159092 50000 0" \
	"$(awk '$1 == "calls" || $1 == "peak_live_slots" || $1 == "violations" { printf "%s%s", s, $2; s = " " }' "$TMP/chk")"
grep -q 'skipped: 7,143 frees' "$TMP/sum" && ok "many live: the 7,143 second frees skipped" ||
	bad "many live: $(cat "$TMP/sum")"

# a record handed out after a later one (the trace broke its promise that none precedes its
# chunk): counted, by trace2wl and trace_stats alike, and every call still there
"$TP/mkfixture" trace-late "$TMP/late1"
"$BIN/trace2wl" "$TMP/late1.wl" "$TMP/late1" 2>"$TMP/sum"; eq "late record: exit 0" 0 "$?"
grep -q 'repaired: 0 allocations of a still-live address, 1 records out of order' "$TMP/sum" && ok "late record: counted" || bad "late record: $(cat "$TMP/sum")"
grep -q 'calls by type    malloc 3 free 1$' "$TMP/sum" && ok "late record: calls by type" || bad "late record: calls by type: $(cat "$TMP/sum")"
"$TP/wl_check" "$TMP/late1.wl" | grep -q '^violations 0$' && ok "late record: a legal order" || bad "late record: violations"
"$BIN/trace_stats" "$TMP/late1" | grep -q '^(1 records came out of order and were taken late)' && ok "late record: trace_stats counts it" || bad "late record: trace_stats: $("$BIN/trace_stats" "$TMP/late1")"

# a thread id the kernel gave again to a new thread (past pid_max, 32,768 by default): told
# apart by its first chunk (which follows no earlier one), a stream of its own; counted as one
# thread alive from the first's start to the second's end, it made "threads at once" 2, and
# on a traced program that made 10,100 threads one at a time, 11
"$TP/mkfixture" trace-tidreuse "$TMP/reuse"
"$BIN/trace2wl" "$TMP/reuse.wl" "$TMP/reuse" 2>"$TMP/sum"; eq "reused thread id: exit 0" 0 "$?"
eq "reused thread id: three threads (7, 8, and 7 again)" 3 "$(wl "$TMP/reuse.wl" threads)"
eq "reused thread id: one alive at a time" 1 "$(wl "$TMP/reuse.wl" max_live_threads)"
eq "reused thread id: the second 7 waits for 8's malloc before freeing its block" 1 "$(wl "$TMP/reuse.wl" waits)"
"$TP/wl_check" "$TMP/reuse.wl" | grep -q '^violations 0$' && ok "reused thread id: a legal order" || bad "reused thread id: violations"
"$BIN/trace_stats" --tsv "$TMP/reuse" | awk -F'\t' '$1 == "trace" && $2 == "threads" { print $3 }' >"$TMP/nth"
eq "reused thread id: trace_stats counts three threads" 3 "$(cat "$TMP/nth")"
"$BIN/trace_dump" -c "$TMP/reuse" | grep -q ': valid trace: 5 calls from 3 threads\(,\|$\)' && ok "reused thread id: trace_dump counts three threads" || bad "trace_dump: $("$BIN/trace_dump" -c "$TMP/reuse")"

# --- dj/malloc traces from the generator, plain and compressed
"$TP/mkfixture" dj-edge "$TMP/dj"
"$BIN/trace2wl" "$TMP/dj.wl" "$TMP/dj" 2>"$TMP/sum"
eq "dj: exit 0" 0 "$?"
"$TP/wl_check" "$TMP/dj.wl" >/dev/null; eq "dj: replayable" 0 "$?"
eq "dj: 16 calls" 16 "$(wl "$TMP/dj.wl" calls)"
eq "dj: ideal RSS peak 804 bytes" 804 "$(wl "$TMP/dj.wl" ideal_rss)"
eq "dj: 2 waits" 2 "$(wl "$TMP/dj.wl" waits)"
for z in gzip xz zstd; do
	if command -v $z >/dev/null; then
		$z -c "$TMP/dj" >"$TMP/dj.$z"
		"$BIN/trace2wl" -q "$TMP/dj.$z.wl" "$TMP/dj.$z"
		check "dj through $z: same workload" cmp "$TMP/dj.wl" "$TMP/dj.$z.wl"
		# compressed on standard input: a file (read again from its start) and a pipe (the
		# bytes already read are fed to the decompressor first)
		"$BIN/trace2wl" -q "$TMP/dj.$z.in.wl" <"$TMP/dj.$z"
		check "dj through $z on standard input (a file): same workload" cmp "$TMP/dj.wl" "$TMP/dj.$z.in.wl"
		cat "$TMP/dj.$z" | "$BIN/trace2wl" -q "$TMP/dj.$z.pipe.wl"
		check "dj through $z on standard input (a pipe): same workload" cmp "$TMP/dj.wl" "$TMP/dj.$z.pipe.wl"
	else
		echo "# $z not installed: its case is not run"
	fi
done
gzip -c "$TMP/edge" >"$TMP/edge.gz"
PATH=/nonexistent "$BIN/trace2wl" "$TMP/x.wl" "$TMP/edge.gz" 2>"$TMP/err"; rc=$?
eq "gzip missing: exit 1" 1 "$rc"
grep -q "gzip-compressed, but 'gzip' is not installed" "$TMP/err" && ok "gzip missing: says so" || bad "missing gzip: $(cat "$TMP/err")"
head -c 300 "$TMP/edge.gz" >"$TMP/cut.gz"
"$BIN/trace2wl" "$TMP/x.wl" "$TMP/cut.gz" 2>"$TMP/err"; eq "truncated gzip: exit 1" 1 "$?"
grep -q 'corrupt or truncated' "$TMP/err" && ok "truncated gzip: says so" || bad "truncated gzip: $(cat "$TMP/err")"
cat "$TMP/cut.gz" | "$BIN/trace2wl" "$TMP/x.wl" 2>"$TMP/err"; eq "truncated gzip through a pipe: exit 1" 1 "$?"
grep -q '<stdin>: offset [0-9]*: gzip -dc failed: the compressed data is corrupt or truncated' "$TMP/err" && ok "truncated gzip through a pipe: says so" || bad "truncated gzip pipe: $(cat "$TMP/err")"
check "no output left behind by failed runs" sh -c "! ls '$TMP'/x.wl* 2>/dev/null | grep -q ."

# --- several traces of one process, in order: the second file frees what the first allocated
MTRACE_CTL_QUIET=1 "$TP/api_split" "$TMP/split" >/dev/null
s1=$(ls "$TMP"/split.[0-9]* | grep -v '\.[0-9]*\.[0-9]*$'); s2=$(one_file "$TMP/split.*.1")
"$BIN/trace2wl" "$TMP/split.wl" "$s1" "$s2" 2>"$TMP/sum"
grep -q 'skipped: 0 frees' "$TMP/sum" && ok "split trace: every free of the second file matched in the first" || bad "split: $(cat "$TMP/sum")"
eq "split trace: 10 malloc and 10 free" "10 10" "$(wl "$TMP/split.wl" malloc) $(wl "$TMP/split.wl" free)"
"$TP/wl_check" "$TMP/split.wl" >/dev/null; eq "split trace: replayable" 0 "$?"
"$BIN/trace2wl" "$TMP/split2.wl" "$s2" 2>"$TMP/sum"
grep -q 'skipped: 10 frees' "$TMP/sum" && ok "the second file alone: its 10 frees are of blocks it never saw" || bad "second alone: $(cat "$TMP/sum")"
# what is not the split files of one process, in order, is refused (exit 2), no output made
refused() { # DESCRIPTION PATTERN TRACE...
	d=$1 p=$2; shift 2; rm -f "$TMP/mix.wl"
	"$BIN/trace2wl" "$TMP/mix.wl" "$@" 2>"$TMP/err"; rc=$?
	if [ $rc -eq 2 ] && grep -q -- "$p" "$TMP/err" && ! [ -e "$TMP/mix.wl" ]; then ok "$d: $(cat "$TMP/err")"
	else bad "$d: exit $rc, $(cat "$TMP/err")"; fi
}
refused "split files out of order" "began before" "$s2" "$s1"
refused "the same file twice" "are the same file" "$s1" "$TMP/./$(basename "$s1")"
refused "traces of two processes" "several traces must be the split files of one process" "$s1" "$TMP/edge"
# exec keeps the pid: the image before (its trace left unfinished) and the one after are
# two programs, not a split trace
traced "$TMP/ex" "$TP/forker" exec >"$TMP/out"
child=$(awk '{ print $3 }' "$TMP/out")
refused "the traces before and after an exec" "did not end cleanly (its process exec'd another program, or died)" \
	"$(one_file "$TMP/ex.$child")" "$(one_file "$TMP/ex.$child.1")"
"$TP/mkfixture" dj-edge "$TMP/dj-mix"
refused "an mtrace trace and a dj trace" "the other a dj/malloc trace" "$s1" "$TMP/dj-mix"

# --- byte order, standard input
"$TP/swap_trace" "$TMP/edge" "$TMP/edge.swapped"
"$BIN/trace2wl" -q "$TMP/swapped.wl" "$TMP/edge.swapped"
check "foreign byte order: identical workload" cmp "$TMP/edge.wl" "$TMP/swapped.wl"
"$BIN/trace2wl" -q "$TMP/stdin.wl" <"$TMP/edge"
check "standard input: identical workload" cmp "$TMP/edge.wl" "$TMP/stdin.wl"

# --- real traces
( export GLIBC_TUNABLES=glibc.malloc.tcache_count=0:glibc.malloc.arena_max=1; traced "$TMP/x" "$TP/xthread" 4 30000 >/dev/null )
f=$(one_file "$TMP/x.*")
"$BIN/trace2wl" "$TMP/x.wl" "$f" 2>"$TMP/sum"
"$TP/wl_check" "$TMP/x.wl" >"$TMP/chk"; eq "cross-thread stress: replayable, no race, no deadlock" 0 "$?"
# a floor only: how many blocks change threads depends on the scheduling (540 with the other
# core busy, 50000 on an idle machine); the checks that matter are wl_check's
ge "cross-thread stress: waits emitted" 100 "$(wl "$TMP/x.wl" waits)"
records=$(count "$f" calls); skipped=$(awk '/skipped:/ { gsub(",", "", $2); print $2 }' "$TMP/sum")
eq "cross-thread stress: every call kept (records - skipped frees)" "$((records - skipped))" "$(wl "$TMP/x.wl" calls)"
ge "cross-thread stress: slots near the peak of live blocks (<= 1000)" "$(wl "$TMP/x.wl" slots)" 1000

traced "$TMP/m" "$ROOT/$B/bench/mbench" 2 300000 >/dev/null
f=$(one_file "$TMP/m.*")
"$BIN/trace2wl" "$TMP/m.wl" "$f" 2>"$TMP/m.sum"
"$TP/wl_check" "$TMP/m.wl" >/dev/null; eq "mbench: replayable" 0 "$?"
# its summary on a terminal of 80 columns: lines broken at spaces, never inside a number
# (a line's text after its last carriage return: what the terminal shows of a progress line,
# on a loaded machine, and the line written over it)
"$TP/ptyrun" 80 "$BIN/trace2wl" "$TMP/m80.wl" "$f" | sed 's/.*\r//' | grep -v '^ *$' >"$TMP/m80.sum"
widest=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$TMP/m80.sum")
check "summary on 80 columns: no line wider than 79 ($widest)" test "$widest" -le 79
eq "... the same words and numbers as piped" "$(tr -s ' \n' '  ' <"$TMP/m.sum")" "$(tr -s ' \n' '  ' <"$TMP/m80.sum" | sed "s|$TMP/m80.wl|$TMP/m.wl|")"
# one figure, said the same by the tool that wrote it and the one that reads it
eq "mbench: trace_dump -H counts the slots trace2wl said" \
	"$(sed -n 's/.* waits, \([0-9,]*\) slots, .*/\1/p' "$TMP/m.sum")" \
	"$("$BIN/trace_dump" -H "$TMP/m.wl" | sed -n 's/^# streams .*, \([0-9,]*\) slots, .*/\1/p')"
size=$(stat -c %s "$TMP/m.wl"); calls=$(wl "$TMP/m.wl" calls)
ge "mbench: a real workload was measured (calls)" 500000 "$calls"
check "mbench: at most 6 bytes per call ($size bytes / $calls calls)" test "${size:-999999999}" -le $((${calls:-0} * 6))
ge "mbench: threads that share nothing need few waits (<= 1000)" "$(wl "$TMP/m.wl" waits)" 1000
# a file of more than 4 MiB is mapped a window at a time, and read in place: the same workload
# as from a pipe (read), and from a copy whose header is 8 bytes longer, so that records
# straddle the windows' ends
cat "$f" | "$BIN/trace2wl" -q "$TMP/m-pipe.wl"
check "mbench: mapped file and pipe give the same workload" cmp "$TMP/m.wl" "$TMP/m-pipe.wl"
{ head -c 14 "$f"; printf '\010\020'; head -c 4096 "$f" | tail -c +17; head -c 8 /dev/zero; tail -c +4097 "$f"; } >"$TMP/m-odd"
"$BIN/trace2wl" -q "$TMP/m-odd.wl" "$TMP/m-odd"
check "mbench: header of 4,104 bytes (records across windows): the same workload" cmp "$TMP/m.wl" "$TMP/m-odd.wl"
# where a file cannot be mapped (from the start, or after three windows) it is read instead
if [ "${SANITIZE:-}" != 1 ]; then   # (nothing can be preloaded before ASan's runtime)
	for n in 0 3; do
		LD_PRELOAD="$TP/libnofilemap.so" NOFILEMAP_AFTER=$n NOFILEMAP_LOG="$TMP/refused$n" \
			"$BIN/trace2wl" -q "$TMP/m-nomap$n.wl" "$f"
		eq "mbench: mapping refused after $n windows: refused once, not tried again" 1 "$(wc -l <"$TMP/refused$n" 2>/dev/null)"
		check "mbench: mapping refused after $n windows: read instead, the same workload" cmp "$TMP/m.wl" "$TMP/m-nomap$n.wl"
	done
else
	echo "# sanitized build: the refused mapping is not simulated (a preload before ASan)"
fi
# another process cuts the file under the window being read: one error naming the offset where
# the file now ends, exit 1, no SIGBUS
cp "$f" "$TMP/m-cut"
"$TP/trace_count" --truncate-at 20000 "$TMP/m-cut" >/dev/null 2>"$TMP/err"
eq "file cut while mapped: exit 1" 1 "$?"
grep -q "m-cut: offset [0-9]*: the file shrank while it was read" "$TMP/err" && ok "file cut while mapped: says so" || bad "cut: $(cat "$TMP/err")"
# the first stream to outgrow its buffer is written straight into the output, after the header
# and room for 256 thread table entries (9,216 = 1,024 + 256 x 32); the other is copied after it
"$BIN/trace_dump" "$TMP/m.wl" | grep '^# stream' >"$TMP/m.streams"
grep -q 'bytes at offset 9,216$' "$TMP/m.streams" && ok "mbench: one stream written in place, at 9,216" || bad "streams: $(cat "$TMP/m.streams")"
# more threads than that room: the table goes after the streams.  The main thread's 20,000
# calls outgrow its buffer before any of the 300 others exists.
traced "$TMP/late" "$TP/threads" 300 20 10 20000 >/dev/null
lt=$(one_file "$TMP/late.*")
"$BIN/trace2wl" -q "$TMP/late.wl" "$lt"
"$TP/wl_check" "$TMP/late.wl" >/dev/null; eq "301 streams, the table after them: replayable" 0 "$?"
eq "301 streams, the table after them: every stream read" 301 "$(wl "$TMP/late.wl" threads)"
ge "301 streams: every call (40,000 + 300 x 20, and the threads' own)" 46000 "$(wl "$TMP/late.wl" calls)"
"$BIN/trace2wl" -q - "$lt" >"$TMP/late-stdout.wl"
check "301 streams: written in one pass to standard output, the same bytes" cmp "$TMP/late.wl" "$TMP/late-stdout.wl"
table=$(od -An -tu8 -j200 -N8 "$TMP/late.wl" | tr -d ' ')
check "301 streams: the thread table ($table) is the file's last 301 x 32 bytes" \
	test "$table" -eq $(( $(stat -c %s "$TMP/late.wl") - 301 * 32 ))

# progress on stderr: forced with -p (the default only when stderr is a terminal)
traced "$TMP/pg" "$ROOT/$B/bench/mbench" 2 600000 >/dev/null
pgt=$(one_file "$TMP/pg.*")
"$BIN/trace2wl" -p -q "$TMP/pg.wl" "$pgt" 2>"$TMP/progress"
grep -q 'trace2wl: .*: [0-9]*% ([0-9,]* MiB of [0-9,]* MiB)' "$TMP/progress" && ok "-p: progress with percent and MiB" || bad "progress: $(od -c "$TMP/progress" | head -n 3)"
"$BIN/trace2wl" -q "$TMP/pg2.wl" "$pgt" 2>"$TMP/noprogress"
eq "no -p, stderr not a terminal: no progress" "" "$(cat "$TMP/noprogress")"

for p in sort python; do
	case $p in
	sort) traced "$TMP/p_$p" sh -c "seq 1 30000 | sort -r >/dev/null" ;;
	python) traced "$TMP/p_$p" python3 -c 'x = [str(i) * 3 for i in range(20000)]' ;;
	esac
	n=0 badwl=0
	for f in "$TMP"/p_$p.*; do
		n=$((n + 1))
		"$BIN/trace2wl" -q "$f.wl" "$f" && "$TP/wl_check" "$f.wl" >/dev/null || badwl=$((badwl + 1))
	done
	eq "$p: all $n traces convert to replayable workloads" 0 "$badwl"
done

# --- --dj-format: the original workload encoding, checked by its own validator
dj() { "$TP/dj_wl_scan" "$1" | awk -v k="$2" '$1 == k { print $2 }'; }
"$BIN/trace2wl" -q --dj-format="$TMP/edge.dj" "$TMP/edge2.wl" "$TMP/edge"
check "dj encoding: our workload unchanged by --dj-format" cmp "$TMP/edge.wl" "$TMP/edge2.wl"
"$TP/dj_wl_scan" "$TMP/edge.dj" >/dev/null; eq "dj encoding: valid (offsets, DONEs, syncs paired)" 0 "$?"
eq "dj encoding: malloc calloc free" "3 1 3" "$(dj "$TMP/edge.dj" malloc) $(dj "$TMP/edge.dj" calloc) $(dj "$TMP/edge.dj" free)"
eq "dj encoding: realloc = realloc + reallocarray" 5 "$(dj "$TMP/edge.dj" realloc)"
eq "dj encoding: memalign = memalign + posix_memalign + aligned_alloc" 4 "$(dj "$TMP/edge.dj" memalign)"
eq "dj encoding: one SYNC_W and SYNC_R per wait" "2 2" "$(dj "$TMP/edge.dj" sync_w) $(dj "$TMP/edge.dj" sync_r)"
eq "dj encoding: slots" "$(wl "$TMP/edge.wl" slots)" "$(dj "$TMP/edge.dj" ptrs)"
"$BIN/trace2wl" -q --dj-format="$TMP/x.dj" "$TMP/x2.wl" "$(one_file "$TMP/x.*[0-9]")"
"$TP/dj_wl_scan" "$TMP/x.dj" >/dev/null; eq "dj encoding of the cross-thread stress trace: valid" 0 "$?"
eq "dj encoding of the cross-thread stress trace: a SYNC_R per wait" "$(wl "$TMP/x2.wl" waits)" "$(dj "$TMP/x.dj" sync_r)"
printf '\010\012\011\002\012\001\013\177\001' >"$TMP/bad.dj"
"$TP/dj_wl_scan" "$TMP/bad.dj" >"$TMP/out"; eq "dj validator rejects a stream past the end" 1 "$?"

# --- the checker has teeth
for k in wl-ok wl-racy wl-deadlock wl-badslot wl-badthread; do
	"$TP/mkfixture" $k "$TMP/$k"
	"$TP/wl_check" "$TMP/$k" >"$TMP/$k.out"; rc=$?
	case $k in wl-ok) want=0 ;; *) want=1 ;; esac
	eq "wl_check $k: exit $want" $want $rc
done
grep -q 'a race' "$TMP/wl-racy.out" && ok "wl_check names the race" || bad "race message"
grep -q 'deadlock' "$TMP/wl-deadlock.out" && ok "wl_check names the deadlock" || bad "deadlock message"

# a program whose threads come and go: 5,000 streams of a few calls each.  Each stream's buffer
# starts small (at 32 KiB, a page of it touched, the peak would be 29.8 MB; it is 11.2 MB)
traced "$TMP/churn" "$TP/threads" 5000 20 50 >/dev/null
if [ -x /usr/bin/time ] && [ "${SANITIZE:-}" != 1 ]; then   # (ASan's shadow memory is its own)
	/usr/bin/time -f %M -o "$TMP/churn.mem" "$BIN/trace2wl" -q "$TMP/churn.wl" "$(one_file "$TMP/churn.*")"
	eq "5,000 threads: converts" 0 "$?"
	mem=$(tail -n 1 "$TMP/churn.mem")
	check "5,000 threads: peak memory $mem KiB (< 16 MiB)" test "$mem" -lt 16384
else
	"$BIN/trace2wl" -q "$TMP/churn.wl" "$(one_file "$TMP/churn.*")"; eq "5,000 threads: converts" 0 "$?"
	echo "# /usr/bin/time not installed, or an ASan build: the peak memory of that conversion is not checked"
fi
eq "5,000 threads: a stream each (and the main thread's)" 5001 "$(wl "$TMP/churn.wl" threads)"
# the most threads alive at once (first call to last): made in waves of 50, so at most 51 with
# the main thread, and at least 2
live=$(wl "$TMP/churn.wl" max_live_threads)
check "5,000 threads in waves of 50: $live alive at once (2 to 51)" test "$live" -ge 2 -a "$live" -le 51
live=$(wl "$TMP/m.wl" max_live_threads)
check "mbench, 2 threads: $live alive at once (2 or 3, with main)" test "$live" -ge 2 -a "$live" -le 3
finish
