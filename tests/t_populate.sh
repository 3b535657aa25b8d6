# The populating thread (malloc/populate.c): it starts only once a trace has grown past 16 MiB,
# never with MTRACE_CTL_NOTHREAD=1 or after the program installed a seccomp filter (which ends
# the trace; but under one it was started with, as in a container, it does), blocks every signal, really takes
# the page population off the program's thread, leaves the trace exact, comes back in a forked
# child and survives stop/start, is never started from a free (which glibc may call holding a
# lock pthread_create takes), and a full disk or a file size limit still gets one warning.
. tests/lib.sh
N=400000   # 800,000 records: 25.6 MB of trace

# exact IN CALLS TRACE: the trace holds CALLS malloc(1005) and is valid
exact() {
	check "$1: trace validates" "$BIN/trace_dump" -c "$3"
	eq "$1: every malloc(1005) recorded" "$2" "$(count "$3" malloc 1005)"
}

traced "$TMP/a" "$TP/popcheck" $N >"$TMP/out"
eq "a long trace starts the thread" "threads 1" "$(sed -n 1p "$TMP/out")"
eq "every signal blocked in it" "blocked yes" "$(sed -n 2p "$TMP/out")"
exact "with the thread" $N "$(one_file "$TMP/a.*")"
runs_agree "with the thread: runs agree" "$(one_file "$TMP/a.*")"

# a program running under a real-time policy: the thread gets the ordinary one
if chrt -f 10 true 2>/dev/null; then
	POPCHECK_POLICY=1 traced "$TMP/t" chrt -f 10 "$TP/popcheck" $N >"$TMP/out"
	eq "under SCHED_FIFO: the thread is there" "threads 1" "$(sed -n 1p "$TMP/out")"
	eq "under SCHED_FIFO: the thread's policy is SCHED_OTHER" "policy 0" "$(sed -n 3p "$TMP/out")"
else
	echo "# chrt cannot set a real-time policy here: the scheduling policy check is left out"
fi

traced "$TMP/s" "$TP/popcheck" 1000 >"$TMP/out"
eq "a short trace never does" "threads 0" "$(sed -n 1p "$TMP/out")"
MTRACE_CTL_NOTHREAD=1 traced "$TMP/n" "$TP/popcheck" $N >"$TMP/out"
eq "MTRACE_CTL_NOTHREAD=1: no thread" "threads 0" "$(sed -n 1p "$TMP/out")"
exact "without the thread" $N "$(one_file "$TMP/n.*")"
"$TP/popcheck" 10 >"$TMP/out"
eq "untraced: none (the check itself sees none)" "threads 0" "$(sed -n 1p "$TMP/out")"

if traced "$TMP/c" "$TP/popcheck" $N seccomp >"$TMP/out" 2>"$TMP/err"; then
	eq "under a seccomp filter of the program's own: no thread" "threads 0" "$(sed -n 1p "$TMP/out")"
	f=$(one_file "$TMP/c.*")
	check "under a seccomp filter: trace validates" "$BIN/trace_dump" -c "$f"
	"$BIN/trace_dump" -H "$f" | grep -q 'seccomp' && ok "under a seccomp filter: the trace ends before it, and says why" ||
		bad "under a seccomp filter: $("$BIN/trace_dump" -H "$f" | grep status)"
	traced "$TMP/e" "$TP/popcheck" $N seccomp-exec >"$TMP/out"
	eq "started under a filter (as in a container): the thread" "threads 1" "$(sed -n 1p "$TMP/out")"
else
	echo "# seccomp filters unavailable here: $(cat "$TMP/err")"
fi

traced "$TMP/f" "$TP/popcheck" $N fork >"$TMP/out"
eq "fork: the parent's thread" "threads 1" "$(sed -n 1p "$TMP/out")"
eq "fork: the child starts its own" "child threads 1" "$(sed -n 3p "$TMP/out")"
eq "fork: blocked there too" "child blocked yes" "$(sed -n 4p "$TMP/out")"
# the thread ends before fork, gone from the process's threads when it returns: a program that
# counts them right after (python 3.12 warns when it finds more than one) finds its own, as
# untraced; it starts again once the trace has grown 16 MiB past the fork
eq "fork: right after it the parent has no thread but its own, as untraced" \
	"after fork: threads 0" "$(sed -n 5p "$TMP/out")"
eq "fork: the thread starts again 16 MiB later" "later: threads 1" "$(sed -n 6p "$TMP/out")"
eq "fork: blocked when it starts again" "later: blocked yes" "$(sed -n 7p "$TMP/out")"
nf=0
for f in "$TMP"/f.*; do
	nf=$((nf + 1))
	check "fork: $(basename "$f") validates" "$BIN/trace_dump" -c "$f"
done
eq "fork: two traces" 2 "$nf"
eq "fork: all parent and child calls, none lost or doubled" "$N $((2 * N))" \
	"$(for f in "$TMP"/f.*; do m5=$(count "$f" malloc 1005); m6=$(count "$f" malloc 1006); echo $((m5 + m6)); done | sort -n | tr '\n' ' ' | sed 's/ $//')"

# The thread must not keep the process alive: a program whose main thread ends by pthread_exit
# exits (status 0, atexit handlers run) when its last thread ends, as untraced.
timeout -s KILL 30 env MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/x" LD_PRELOAD="$LIB" \
	"$TP/popcheck" $N mainexit >"$TMP/out"
eq "main thread ended by pthread_exit: the process exits, status 0 (not killed after 30 s)" 0 "$?"
eq "the thread was there" "threads 1" "$(sed -n 1p "$TMP/out")"
eq "atexit handlers ran" "atexit ran" "$(sed -n 3p "$TMP/out")"
xf=$(ls -S "$TMP"/x.* | head -n 1)
exact "main thread ended by pthread_exit" $N "$xf"
eq "main thread ended by pthread_exit: trace finished" 1 "$(count "$xf" finished)"

# Only an allocating call starts the thread: glibc calls free with its stack-cache lock held (a
# joined thread's TLS vector), and pthread_create takes that lock.  A trace that crosses 16 MiB in
# frees starts none there ...
traced "$TMP/fr" "$TP/popcheck" 600000 frees >"$TMP/out"   # 19.2 MB of frees
eq "crossing 16 MiB in frees: no thread started by a free" "after the frees: threads 0" "$(sed -n 1p "$TMP/out")"
eq "crossing 16 MiB in frees: the next allocations start it" "threads 1" "$(sed -n 2p "$TMP/out")"
# ... and a program creating and joining threads, its trace crossing 16 MiB at 20 places in the
# joins, always ends (a hang would be inside pthread_join, every signal but SIGKILL blocked:
# hence timeout -s KILL)
hung=""
n=252000
while [ $n -lt 262000 ]; do
	timeout -s KILL 30 env MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/j$n" LD_PRELOAD="$LIB" \
		"$TP/popcheck" $n joins >"$TMP/out" || hung="$hung $n"
	[ "$(sed -n 1p "$TMP/out")" = "threads 1" ] || hung="$hung $n(no thread)"
	rm -f "$TMP/j$n".*
	n=$((n + 500))
done
eq "thread joins around the 16 MiB mark: every run ends, with the thread" "" "$hung"

traced "$TMP/r" "$TP/popcheck" $N restart >"$TMP/out"
eq "stop/start: the thread serves the new files" "threads 1" "$(sed -n 1p "$TMP/out")"
nr=0
for f in "$TMP"/r.*; do
	nr=$((nr + 1))
	exact "stop/start: $(basename "$f")" $N "$f"
done
eq "stop/start: three traces" 3 "$nr"

# The heap is the program's alone: with address randomisation off, the allocator returns the
# same addresses traced (with or without the thread, which glibc gives a TLS vector that we
# serve from our own arena) as untraced.  500,000 rounds: a 25 MB trace, so the thread starts.
if setarch -R true 2>/dev/null; then
	plain=$(setarch -R "$TP/bigalloc" 500000 addresses)
	eq "same addresses traced, with the thread" "$plain" \
		"$(traced "$TMP/h" setarch -R "$TP/bigalloc" 500000 addresses)"
	eq "same addresses traced, without it" "$plain" \
		"$(MTRACE_CTL_NOTHREAD=1 traced "$TMP/h" setarch -R "$TP/bigalloc" 500000 addresses)"
else
	echo "# setarch -R (address randomisation off) does not work here: the same-addresses check is left out"
fi

# the trace does not stay in the program's RSS: pages the writers have left are dropped
# from its page tables (they reach the disk through the page cache).  5 M records, 320 MB of
# trace: kept in the page tables, they would add 309 MB to the peak RSS (python: 109 -> 353 MB)
rm -f "$TMP"/p.*
u=$(POPCHECK_HWM=1 "$TP/popcheck" 2500000 | awk '$1 == "hwm_kb" { print $2 }')
t=$(POPCHECK_HWM=1 traced "$TMP/p" "$TP/popcheck" 2500000 | awk '$1 == "hwm_kb" { print $2 }')
size=$(( $(stat -c %s "$(one_file "$TMP/p.*")") >> 20 ))
check "a ${size} MB trace adds $(( (t - u) >> 10 )) MB to the program's peak RSS (< 64)" test $((t - u)) -lt 65536
rm -f "$TMP"/p.*

# The thread's work really leaves the program's thread: with time to work ahead, the program's
# own thread populates only the first 16 MiB (at most 256 chunks of 64 KiB and the first, smaller
# ones) itself, of a 51 MB trace (about 780 chunks).
if command -v strace >/dev/null 2>&1; then
	for nt in 0 1; do
		rm -f "$TMP"/p.*
		strace -f -qq -e trace=madvise -o "$TMP/st.$nt" env MTRACE_CTL_NOTHREAD=$nt \
			MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/p" LD_PRELOAD="$LIB" "$TP/popcheck" $((2 * N)) slow >/dev/null
		pid=$(one_file "$TMP/p.*" | sed 's/.*\.//')
		eval "main$nt=\$(grep -c \"^\$pid .*MADV_POPULATE_WRITE\" \"\$TMP/st.\$nt\")"
		eval "other$nt=\$(grep -v \"^\$pid \" \"\$TMP/st.\$nt\" | grep -c MADV_POPULATE_WRITE)"
	done
	check "the program's thread populated $main0 chunks itself with the thread (<= 270)" test "$main0" -le 270
	# after stop and start the thread serves the new file from its start: three files of 25.6 MB
	# (about 390 chunks each), of which the program's thread populates the first 16 MiB of the
	# first only
	rm -f "$TMP"/p.*
	strace -f -qq -e trace=madvise -o "$TMP/st.r" env MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/p" \
		LD_PRELOAD="$LIB" "$TP/popcheck" $N restart slow >/dev/null
	pid=$(ls "$TMP"/p.* | head -n 1 | sed 's/.*\/p\.\([0-9]*\).*/\1/')
	mainr=$(grep -c "^$pid .*MADV_POPULATE_WRITE" "$TMP/st.r")
	check "stop/start: the program's thread populated $mainr chunks of 3 files itself (<= 330)" test "$mainr" -le 330
	ge "the populating thread did the rest" 50 "$other0"
	ge "without it, the program's thread populated every chunk" 700 "$main1"
	eq "without it, nobody else did" 0 "$other1"
	# short threads' small chunks share pages: each writer's call asks for pages no earlier
	# call did, so there are no more calls than the trace has pages (1,000 threads of 20 calls:
	# a call per chunk would make 5,023 calls for 2,100 pages)
	rm -f "$TMP"/p.*
	strace -f -qq -e trace=madvise -o "$TMP/st.t" env MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/p" \
		LD_PRELOAD="$LIB" "$TP/threads" 300 20 50 >/dev/null
	pages=$(( $(stat -c %s "$(one_file "$TMP/p.*")") / 4096 ))
	calls=$(grep -c MADV_POPULATE_WRITE "$TMP/st.t")
	check "300 short threads: $calls populating calls for a trace of $pages pages" test "$calls" -le "$pages"
	# a window (256 MiB of trace) whose chunks are all released is unmapped by the thread too
	# (8.8 M records, 281 MB; slow, so that the thread is ahead, not still in the window, when
	# the program's thread releases its last chunk there)
	rm -f "$TMP"/p.*
	strace -f -qq -e trace=munmap -o "$TMP/st.u" env MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/p" \
		LD_PRELOAD="$LIB" "$TP/popcheck" 4400000 slow >/dev/null
	pid=$(one_file "$TMP/p.*" | sed 's/.*\.//')
	eq "the program's thread unmapped no finished window" 0 "$(grep -c "^$pid  *munmap(.*, 268435456" "$TMP/st.u")"
	ge "the populating thread did" 1 "$(grep -v "^$pid " "$TMP/st.u" | grep -c "munmap(.*, 268435456")"
	rm -f "$TMP"/p.*
else
	echo "# strace not installed: the check that the work leaves the program's thread is left out"
fi

# A full disk and a file size limit beyond the first 16 MiB, with the thread reserving ahead: one
# warning, no signal, the program unaffected, the trace valid up to where it stopped.
limited() {
	eq "$1: exit status 0" 0 "$2"
	eq "$1: the program's output" "threads 1" "$(sed -n 1p "$TMP/out")"
	eq "$1: exactly one warning line" 1 "$(grep -c 'mtracectl:' "$TMP/err")"
	grep -q "$3" "$TMP/err" && ok "$1: the warning says why" || bad "$1: warning text: $(cat "$TMP/err")"
	f=$(one_file "$4")
	check "$1: trace validates" "$BIN/trace_dump" -c "$f"
	ge "$1: the calls before it are there" 300000 "$(count "$f" calls)"
}
# (ulimit -f counts 512-byte blocks in sh, 1 KiB ones in bash: 20 or 40 MiB, either below 51 MB)
( ulimit -f 40960; MTRACE_CTL_FILE="$TMP/lim" LD_PRELOAD="$LIB" MTRACE_CTL_QUIET=1 "$TP/popcheck" $((2 * N)) >"$TMP/out" 2>"$TMP/err" )
limited "file size limit" $? "file size limit" "$TMP/lim.*"
mkdir -p "$TMP/mnt"
if mount -t tmpfs -o size=20m tmpfs "$TMP/mnt" 2>/dev/null; then
	trap 'umount "$TMP/mnt" 2>/dev/null; rm -rf "$TMP"' EXIT
	MTRACE_CTL_FILE="$TMP/mnt/full" LD_PRELOAD="$LIB" MTRACE_CTL_QUIET=1 "$TP/popcheck" $N >"$TMP/out" 2>"$TMP/err"
	limited "20 MiB tmpfs" $? "No space left on device" "$TMP/mnt/full.*"
else
	echo "# cannot mount a tmpfs here (needs root): the full disk is checked by the size limit only"
fi
finish
