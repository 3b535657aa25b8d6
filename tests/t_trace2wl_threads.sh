# trace2wl's conversion on a second thread (MTRACE_CONVERT_THREADS=2) writes the workload byte for
# byte as on one (=1): over many batches of the ring between them, new threads met mid-way,
# memory samples and large blocks, split traces (a pipeline a trace); a trace bad mid-way fails
# the same way on both, naming the same offset, and leaves no output.
. tests/lib.sh
one() { MTRACE_CONVERT_THREADS=1 "$BIN/trace2wl" "$@"; }
two() { MTRACE_CONVERT_THREADS=2 "$BIN/trace2wl" "$@"; }
same() { # DESCRIPTION TRACE...: both convert it, exit 0, and write the same workload
	d=$1; shift
	one -q "$TMP/one.wl" "$@"; r1=$?
	two -q "$TMP/two.wl" "$@"; r2=$?
	eq "$d: exit 0 on one thread and on two" "0 0" "$r1 $r2"
	check "$d: the same workload on two threads as on one" cmp "$TMP/one.wl" "$TMP/two.wl"
}
# 2 threads, 400,000 calls: about 400 batches through a ring of 8
traced "$TMP/mb" "$ROOT/$B/bench/mbench" 2 200000 >/dev/null
mb=$(one_file "$TMP/mb.*")
same "mbench, 2 threads" "$mb"
# threads begin and end all along: each new one's notice between the events around it
traced "$TMP/th" "$TP/threads" 200 20 10 >/dev/null
same "200 threads in waves" $(one_file "$TMP/th.*")
# large blocks (RESIDENT) and memory samples: what version 2 adds
MTRACE_CTL_MEMORY_MS=1 traced "$TMP/big" "$TP/bigalloc" 3000 >/dev/null
same "large blocks, memory samples" $(one_file "$TMP/big.*")
# split traces of one process: the second thread is started and joined for each
MTRACE_CTL_QUIET=1 "$TP/api_split" "$TMP/split" >/dev/null
s1=$(ls "$TMP"/split.[0-9]* | grep -v '\.[0-9]*\.[0-9]*$'); s2=$(one_file "$TMP/split.*.1")
same "split trace" "$s1" "$s2"
# the second thread is taken when asked for, and not on one (a thread made a trace fed)
if command -v strace >/dev/null 2>&1; then
	clones() { # TRACE [COMMAND...]: the threads trace2wl makes converting TRACE, run by COMMAND
		t=$1; shift
		"$@" strace -f -qq -e trace=clone,clone3 -o "$TMP/st" "$BIN/trace2wl" -q "$TMP/x.wl" \
			"$t" 2>/dev/null
		grep -c clone "$TMP/st"
	}
	eq "two threads: a second thread made" 1 "$(MTRACE_CONVERT_THREADS=2 clones "$mb")"
	eq "one thread: none" 0 "$(MTRACE_CONVERT_THREADS=1 clones "$mb")"
	# by default: none where the process may run on one processor only, nor for a trace
	# smaller than 32 MiB (the thread would cost about as much as it saves)
	if command -v taskset >/dev/null 2>&1; then
		eq "default, one processor allowed: none" 0 \
			"$(unset MTRACE_CONVERT_THREADS; clones "$mb" taskset -c 0)"
	fi
	traced "$TMP/small" "$ROOT/$B/bench/mbench" 2 20000 >/dev/null
	small=$(one_file "$TMP/small.*")
	for t in "$small" "$mb"; do
		eq "default, a trace of $(($(stat -c %s "$t") >> 10)) KiB: none" 0 \
			"$(unset MTRACE_CONVERT_THREADS; clones "$t")"
	done
	eq "forced two on that small trace: one made" 1 "$(MTRACE_CONVERT_THREADS=2 clones "$small")"
else
	ok "# skip: no strace to count the threads made"
fi
# a trace bad in its middle, after the second thread has converted much of it: the same error
size=$(stat -c %s "$mb")
bad_at=$(( (size / 2) / 32 * 32 ))
cp "$mb" "$TMP/badmid"
head -c 64 /dev/zero | tr '\0' '\377' |
	dd of="$TMP/badmid" bs=1 seek=$bad_at conv=notrunc 2>/dev/null
one -q "$TMP/b1.wl" "$TMP/badmid" 2>"$TMP/e1"; r1=$?
two -q "$TMP/b2.wl" "$TMP/badmid" 2>"$TMP/e2"; r2=$?
eq "bad mid-way: exit 1 on both" "1 1" "$r1 $r2"
check "bad mid-way: the same message on both ($(cat "$TMP/e2"))" cmp "$TMP/e1" "$TMP/e2"
grep -q "badmid: offset [0-9]*: " "$TMP/e2" && ok "bad mid-way: names the offset" ||
	bad "offset: $(cat "$TMP/e2")"
check "bad mid-way: no output left, not even a temporary one" \
	sh -c "! ls '$TMP'/b[12].wl* 2>/dev/null | grep -q ."
finish
