# Causal order: threads pass blocks to each other (through a ring under a mutex, and without
# a lock: xthread -l); with one shared arena and no tcache the allocator reuses a freed
# address at once in another thread.  Sorted by order points, the trace
# must never allocate a live address nor free one twice, and (what lets trace2wl stream with a
# window of about a chunk a thread) no record may precede its own chunk's timestamp.  The
# cross-thread checks run on every clock this machine offers, each forced (MTRACE_CTL_CLOCK).
. tests/lib.sh
ARGS="4 60000"
run() { # NAME TUNABLES [env...]   (xthread gets $ARGS)
	name=$1 tun=$2; shift 2
	# shellcheck disable=SC2086
	env GLIBC_TUNABLES="$tun" "$@" MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/$name" LD_PRELOAD="$LIB" "$TP/xthread" $ARGS >/dev/null
	f=$(one_file "$TMP/$name.*")
	"$TP/order_check" "$f" >"$TMP/$name.txt"
	rc=$?
	cat "$TMP/$name.txt" | sed "s/^/# $name: /"
	eq "$name: no inversion" 0 "$rc"
	eq "$name: trace promises that no record precedes its chunk" 1 "$(awk '$1=="chunk_bound"{print $2}' "$TMP/$name.txt")"
	eq "$name: no record precedes its chunk" 0 "$(awk '$1=="before_chunk"{print $2}' "$TMP/$name.txt")"
	runs_agree "$name: read a run at a time, the same records" "$f"
}
run shared "glibc.malloc.tcache_count=0:glibc.malloc.arena_max=1"
ge "shared: addresses freed by one thread reused by another (the test has teeth)" 2000 "$(awk '$1=="cross_thread_reuse"{print $2}' "$TMP/shared.txt")"
run durations "glibc.malloc.tcache_count=0:glibc.malloc.arena_max=1" MTRACE_CTL_DURATIONS=1
run default ""
# (a floor only: with the other core busy the threads run nearly one at a time and fewer
# blocks change hands; 1088 were seen so, 90000 on an idle machine)
ge "default: cross-thread frees" 500 "$(awk '$1=="cross_thread_free"{print $2}' "$TMP/default.txt")"
# Without a lock between one thread's malloc and another's free, only the order points (an
# allocation's after a fenced clock read, a free's before its release) keep the two apart.
ARGS="-l 300000"
run lockfree "glibc.malloc.tcache_count=0:glibc.malloc.arena_max=1"
eq "lockfree: every block freed by the other thread" 300000 "$(awk '$1=="cross_thread_free"{print $2}' "$TMP/lockfree.txt")"
ge "lockfree: addresses reused across threads (the test has teeth)" 100000 "$(awk '$1=="cross_thread_reuse"{print $2}' "$TMP/lockfree.txt")"
run lockfree-default ""

# every clock the machine has: the TSC read with RDTSCP, with LFENCE+RDTSC, and CLOCK_MONOTONIC
flags=$(sed -n 's/^flags[[:space:]]*: / /p' /proc/cpuinfo 2>/dev/null | head -n 1)
has() { case "$flags " in *" $1 "*) return 0 ;; esac; return 1; }
clock_of() { "$BIN/trace_dump" -H "$1" | sed -n 's/^# clock *\([^,]*\),.*/\1/p'; }
for c in rdtscp lfence-rdtsc clock_gettime; do
	case $c in
	rdtscp) has constant_tsc && has nonstop_tsc && has rdtscp; avail=$? want="x86 TSC" ;;
	lfence-rdtsc) has constant_tsc && has nonstop_tsc; avail=$? want="x86 TSC (LFENCE+RDTSC)" ;;
	*) avail=0 want=CLOCK_MONOTONIC ;;
	esac
	if [ $avail -ne 0 ]; then echo "# this CPU has no $c clock: not tried"; continue; fi
	ARGS="4 60000"
	run "$c-shared" "glibc.malloc.tcache_count=0:glibc.malloc.arena_max=1" MTRACE_CTL_CLOCK=$c
	eq "$c: the header names the clock" "$want" "$(clock_of "$f")"
	ge "$c-shared: addresses reused across threads (the test has teeth)" 2000 \
		"$(awk '$1=="cross_thread_reuse"{print $2}' "$TMP/$c-shared.txt")"
	ARGS="-l 300000"
	run "$c-lockfree" "glibc.malloc.tcache_count=0:glibc.malloc.arena_max=1" MTRACE_CTL_CLOCK=$c
	ge "$c-lockfree: addresses reused across threads (the test has teeth)" 100000 \
		"$(awk '$1=="cross_thread_reuse"{print $2}' "$TMP/$c-lockfree.txt")"
	# The order points' read alone, 7 M handoffs without a lock: a free's read must follow the
	# load that delivered the allocation's stamp.  (An unfenced RDTSC runs ahead of it in
	# bursts, whenever the host puts the two vCPUs far apart: the "plain" count.)
	MTRACE_CTL_CLOCK=$c timeout -k 5 300 "$TP/order_point" 7000000 >"$TMP/$c-point.txt"
	rc=$?
	sed "s/^/# $c order_point: /" "$TMP/$c-point.txt"
	eq "$c: a free's read never precedes the allocation's it follows (order_point exit)" 0 "$rc"
	eq "$c: order_point made every handoff" 7000000 "$(awk '$1=="handoffs"{print $2}' "$TMP/$c-point.txt")"
done
finish
