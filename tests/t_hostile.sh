# Hostile programs (tests/prog/hostile.c): each ends traced as it does untraced, and its trace
# is never corrupted, whatever it does to its process: cancellation, handlers that fork or exit,
# children made without fork(), the TSC switched off, sandboxes, address-space limits, locked
# memory, the trace's own memory unmapped or mapped over, and many threads.
. tests/lib.sh
H=$TP/hostile S=$TP/hostile_sys   # processes, threads, signals; and the process's resources
# run NAME SECONDS MODE...: traced, killed after SECONDS (a hang fails); output in $TMP/NAME.out
run() {
	name=$1 secs=$2; shift 2
	case $1 in filter|sandboxmask|probe|strict|userns|asgrab|mlock|rss|overlap|brokenpipe|fdsteal) p=$S ;; *) p=$H ;; esac
	timeout -s KILL "$secs" env MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/$name" LD_PRELOAD="$LIB" "$p" "$@" \
		>"$TMP/$name.out" 2>"$TMP/$name.err"
}

# 1. a thread cancelled while it allocates: the tracer is never where it is cancelled
run cancel 60 cancel; eq "cancelled threads: the program ends (no hang)" 0 "$?"
eq "cancelled threads: all 20" "cancelled 20" "$(cat "$TMP/cancel.out")"
check "cancelled threads: trace validates" "$BIN/trace_dump" -c "$(one_file "$TMP/cancel.*[0-9]")"

# 2. a handler that forks, or exits, while the tracer is in the middle of its work
run sigfork 120 sigfork 300000; eq "a handler that forks: the program ends (no hang)" 0 "$?"
eq "a handler that forks: it forked" "forks 1" "$(cat "$TMP/sigfork.out")"
bad_traces=0
for f in "$TMP"/sigfork.*[0-9]; do "$BIN/trace_dump" -c "$f" >/dev/null 2>&1 || bad_traces=$((bad_traces + 1)); done
eq "a handler that forks: every trace validates ($(ls "$TMP"/sigfork.*[0-9] | wc -l) traces)" 0 "$bad_traces"
# ... and whose child goes on from where the handler interrupted (the tracer, often)
run sigforkrun 120 sigforkrun 1000; eq "a handler that forks, the child going on: the program ends" 0 "$?"
eq "... and every child ends well" "children failed 0" "$(cat "$TMP/sigforkrun.out")"
bad_traces=0
for f in "$TMP"/sigforkrun.*[0-9]; do "$BIN/trace_dump" -c "$f" >/dev/null 2>&1 || bad_traces=$((bad_traces + 1)); done
eq "... every trace validates ($(ls "$TMP"/sigforkrun.*[0-9] | wc -l) traces)" 0 "$bad_traces"
rm -f "$TMP"/sigforkrun.*
hung=0
for i in $(seq 150); do
	run sigexit 20 sigexit || hung=$((hung + 1))
	rm -f "$TMP"/sigexit.*
done
eq "a handler that exits, 150 runs: each ends with status 0" 0 "$hung"

# 3. children made without fork(): never write into the parent's file, trace into their own
for how in _Fork syscall clone; do
	run raw_$how 60 rawfork $how; eq "$how child: both end well" 0 "$?"
	p=""; c=""
	for f in "$TMP"/raw_$how.*[0-9]; do
		if [ "$(count "$f" ppid)" = "$(count "$(ls "$TMP"/raw_$how.*[0-9] | head -n 1)" pid)" ] && [ "$(count "$f" malloc 1100)" != 0 ]; then c=$f; else p=$f; fi
	done
	eq "$how child: the parent's trace holds its own 10,000 malloc(100)" 10000 "$(count "$p" malloc 100)"
	eq "$how child: and none of the child's" 0 "$(count "$p" malloc 1100)"
	eq "$how child: the child's calls in a trace of its own" 10000 "$(count "${c:-/nonexistent}" malloc 1100)"
	eq "$how child: whose header names the parent" "$(count "$p" pid)" "$(count "${c:-/nonexistent}" ppid)"
done
# a trace two processes wrote into is refused by readers (each chunk names its writer)
f=$(ls "$TMP"/raw_clone.*[0-9] | head -n 1)
cp "$f" "$TMP/twice"
printf '\377\377\0\0' | dd of="$TMP/twice" bs=1 seek=$((4096 + 28)) conv=notrunc 2>/dev/null
"$BIN/trace_dump" -c "$TMP/twice" >/dev/null 2>"$TMP/twice.err"
eq "a trace two processes wrote: refused (exit 1)" 1 "$?"
grep -q 'offset 4096: .*two processes wrote this file' "$TMP/twice.err" && ok "... saying so, at the chunk's offset" || bad "... $(cat "$TMP/twice.err")"
# a fork from a handler on a small alternate stack, under mtracectl (which has the tracer list
# every trace file): what the tracer does in the child adds little to how deep the stack goes
u=$("$H" altfork | awk '{ print $2 }')
timeout -s KILL 60 "$BIN/mtracectl" -q -o "$TMP/alt" -- "$H" altfork >"$TMP/alt.out" 2>&1
eq "a fork from a handler on its own stack, under mtracectl: ends well" 0 "$?"
t=$(awk '$1 == "depth" { print $2 }' "$TMP/alt.out")
check "... the tracer adds $((t - u)) bytes to the stack the child needs ($u untraced; at most 1,024)" test "$((t - u))" -le 1024
HOSTILE_OUT=$TMP/orphan.said run orphan 60 orphan; eq "a raw child outliving its parent: parent ends" 0 "$?"
i=0; while [ ! -s "$TMP/orphan.said" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
eq "a raw child outliving its parent: it goes on (no SIGBUS)" "orphan ok" "$(cat "$TMP/orphan.said" 2>/dev/null)"
pt=$(ls -S "$TMP"/orphan.*[0-9] | head -n 1)
check "a raw child outliving its parent: the parent's trace validates" "$BIN/trace_dump" -c "$pt"
eq "a raw child outliving its parent: the parent's trace holds none of its calls" 0 "$(count "$pt" malloc 1100)"
eq "a raw child outliving its parent: which are in its own trace" 2 "$(ls "$TMP"/orphan.*[0-9] | wc -l)"

# the tracer's own thread opens files (/proc, the trace) in a table of its own: the program's
# open() gets the lowest free descriptor, as untraced, even while that thread is at work
run fdsteal 60 fdsteal
eq "descriptors while the tracer's thread works: open() gets the lowest free one" "lowest always" "$(cat "$TMP/fdsteal.out")"

# a single-threaded program may enter a new user namespace: the tracer's thread is gone by then
if [ "$("$S" userns)" = "unshare 0" ]; then
	run userns 60 userns
	eq "unshare(CLONE_NEWUSER) of a single-threaded program: granted" "unshare 0" "$(cat "$TMP/userns.out")"
else
	echo "# unshare(CLONE_NEWUSER) is refused here untraced ($("$S" userns)): that check is left out"
fi

# a warning to a stderr nobody reads any more: not the program's death by SIGPIPE
run brokenpipe 60 brokenpipe
eq "a warning to a broken pipe: the program ends as it would (0)" 0 "$?"
eq "... and runs on" "pattern intact" "$(cat "$TMP/brokenpipe.out")"

# free() leaves errno alone, in every out-of-line path of the tracer: samples, resident bytes
# of large blocks, and the set-up of a child made without fork() that cannot open its file
MTRACE_CTL_MEMORY_MS=1 run errno 60 errno
eq "free keeps errno: samples, large blocks, a raw child without descriptors" "errno kept" "$(cat "$TMP/errno.out")"

# 4. the TSC switched off for the program's threads (PR_SET_TSC): its clock is read otherwise
run notsc 60 notsc; rc=$?
if [ $rc -eq 77 ]; then
	echo "# $(cat "$TMP/notsc.out") (the TSC case is left out)"
else
	eq "TSC switched off: the program ends well" 0 "$rc"
	f=$(one_file "$TMP/notsc.*[0-9]")
	ge "TSC switched off: every call of main and its thread" 400000 "$(count "$f" calls)"
	check "TSC switched off: the trace orders" "$TP/order_check" "$f"
fi

# 5. sandboxes: the trace is finished before the filter takes effect; no system call after
for how in prctl seccomp syscall; do
	run filter_$how 60 filter $how; rc=$?
	if grep -q 'seccomp: ' "$TMP/filter_$how.err"; then
		echo "# seccomp filters unavailable here: $(cat "$TMP/filter_$how.err")"; break
	fi
	eq "seccomp filter by $how: the program is not killed" 0 "$rc"
	eq "seccomp filter by $how: it ran on" "sandboxed ok" "$(cat "$TMP/filter_$how.out")"
	f=$(one_file "$TMP/filter_$how.*[0-9]")
	check "seccomp filter by $how: trace validates" "$BIN/trace_dump" -c "$f"
	"$BIN/trace_dump" -H "$f" | grep -q 'seccomp' && ok "seccomp filter by $how: the header says why the records end" ||
		bad "seccomp filter by $how: $("$BIN/trace_dump" -H "$f" | grep status)"
	ge "seccomp filter by $how: the calls before it" 600000 "$(count "$f" calls)"
	eq "seccomp filter by $how: nothing on stderr" "" "$(cat "$TMP/filter_$how.err")"
done
# threads waiting for the tracer's lock while it finishes the trace for a filter: their signal
# mask comes back (a thread left with every signal blocked never took SIGTERM again); the race
# is narrow, so 20 programs
left=0 runs=0
for i in $(seq 20); do
	run smask 60 sandboxmask || { [ $? -eq 77 ] && break; }
	runs=$((runs + 1))
	[ "$(cat "$TMP/smask.out")" = "blocked 0" ] || left=$((left + 1))
	rm -f "$TMP"/smask.*[0-9]
done
eq "seccomp filter with threads at work: no thread left with its signals blocked ($runs runs)" 0 "$left"
# a program that only probes for seccomp (a NULL filter) gets no sandbox: its trace goes on
run probe 60 probe
eq "seccomp probes: answered as untraced" "$("$S" probe)" "$(cat "$TMP/probe.out")"
f=$(one_file "$TMP/probe.*[0-9]")
"$BIN/trace_dump" -H "$f" | grep -q 'stopped early' && bad "seccomp probes: the trace stopped early" ||
	ok "seccomp probes: the trace did not stop"
ge "seccomp probes: every call traced" 400000 "$(count "$f" calls)"
run strict 60 strict; eq "seccomp strict mode: the program ends well" 0 "$?"
eq "seccomp strict mode: it ran on" "strict ok" "$(cat "$TMP/strict.out")"
check "seccomp strict mode: trace validates" "$BIN/trace_dump" -c "$(one_file "$TMP/strict.*[0-9]")"

# 6. limits: the address space (the trace's windows count against RLIMIT_AS), locked memory
plain=$( (ulimit -v 700000; "$S" asgrab 600) )
traced=$( (ulimit -v 700000; run as 120 asgrab 600; cat "$TMP/as.out") )
eq "ulimit -v 700000: the program gets as much memory traced as untraced" "$plain" "$traced"
check "ulimit -v 700000: trace validates" "$BIN/trace_dump" -c "$(one_file "$TMP/as.*[0-9]")"
ge "ulimit -v 700000: every call" 120000 "$(count "$(one_file "$TMP/as.*[0-9]")" calls)"
u=$("$S" mlock | awk '$1 == "vmlck_kb" { print $2 }')
run mlock 60 mlock
t=$(awk '$1 == "vmlck_kb" { print $2 }' "$TMP/mlock.out")
eq "mlockall: it succeeds" "mlockall ok" "$(head -n 1 "$TMP/mlock.out")"
check "mlockall: the trace's pages are not locked (VmLck $u kB untraced, $t kB traced)" test "$t" -le $((u + 4096))
ge "mlockall: every call traced" 1000000 "$(count "$(one_file "$TMP/mlock.*[0-9]")" calls)"
if command -v setpriv >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
	mkdir -p "$TMP/nobody" && chmod 777 "$TMP/nobody" && cp "$S" "$LIB" "$TMP/nobody/" && chmod 755 "$TMP" "$TMP/nobody"/*
	up=$(cd /; setpriv --reuid=65534 --regid=65534 --clear-groups "$TMP/nobody/hostile_sys" mlock | head -n 1)
	tp=$(cd /; MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/nobody/t" LD_PRELOAD="$TMP/nobody/libmtracectl.so" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$TMP/nobody/hostile_sys" mlock 2>"$TMP/nobody.err" | head -n 1)
	eq "mlockall, unprivileged: the same result traced as untraced" "$up" "$tp"
	# later, with the tracer's thread running (it unmaps the windows the trace gives back)
	up=$(cd /; setpriv --reuid=65534 --regid=65534 --clear-groups "$TMP/nobody/hostile_sys" mlock late | head -n 1)
	tp=$(cd /; MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/nobody/t" LD_PRELOAD="$TMP/nobody/libmtracectl.so" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$TMP/nobody/hostile_sys" mlock late 2>"$TMP/nobody.err" | head -n 1)
	eq "mlockall, unprivileged, after 1,200,000 calls: the same result traced as untraced" "$up" "$tp"
else
	echo "# not root or no setpriv: the unprivileged mlockall case is left out"
fi

# 7. the trace's own memory unmapped, protected, mapped over
for how in munmap mprotect fixed raw; do
	run ov_$how 60 overlap $how; rc=$?
	if [ $rc -eq 77 ]; then echo "# overlap $how: $(cat "$TMP/ov_$how.out")"; continue; fi
	eq "the program ${how}s the trace's memory: it ends well" 0 "$rc"
	case $how in
	mprotect) eq "... and runs on" survived "$(cat "$TMP/ov_$how.out")" ;;
	raw) ;;   # a system call of its own: seen only at the next chunk, after writes into its memory
	*) eq "... and its own data is untouched" "pattern intact" "$(cat "$TMP/ov_$how.out")" ;;
	esac
	eq "... one warning" 1 "$(grep -c 'mtracectl:' "$TMP/ov_$how.err")"
	f=$(one_file "$TMP/ov_$how.*[0-9]")
	check "... trace validates" "$BIN/trace_dump" -c "$f"
	"$BIN/trace_dump" -H "$f" | grep -q "trace's own memory" && ok "... the header says why the records end" ||
		bad "... header: $("$BIN/trace_dump" -H "$f" | grep status)"
done

# 11. what tracing adds to the program's memory is bounded whatever the number of threads:
# 16 threads of 250,000 pairs (a 512 MB trace)
u=$("$S" rss 16 250000 | awk '$1 == "hwm_kb" { print $2 }')
run rss 300 rss 16 250000
t=$(awk '$1 == "hwm_kb" { print $2 }' "$TMP/rss.out")
check "16 threads: tracing adds $(( (t - u) / 1024 )) MiB to the peak RSS (<= 64 MiB; typically 20)" test $((t - u)) -le $((64 * 1024))
finish
