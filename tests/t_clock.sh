# Clocks that lie.  Under libfaketime with its clock stopped (libc's clock_gettime answers one
# value for ever) a traced program runs to its end and its trace still orders its threads' calls:
# the tracer reads its clocks past libc (the vDSO, the kernel), and its TSC calibration waits a
# bounded number of reads.  A clock that does not advance between chunks (CLOCK_MONOTONIC_COARSE,
# asked for with MTRACE_CTL_CLOCK=coarse) is given up for a count of order points, which the
# header says; the count asked for outright orders calls as well.  Readers: a trace whose chunks
# share one clock value is not valid for ordering (trace_dump says so with the count and exits
# 1; trace2wl refuses it, rather than "repair" every inversion), a few such chunks are counted.
. tests/lib.sh
TUN="glibc.malloc.tcache_count=0:glibc.malloc.arena_max=1"
# (the ring holds 64 blocks, each thread one more: under 10 KB of blocks of at most 143 bytes)
PEAK_MAX=65536
wl() { "$TP/wl_check" "$1" | awk -v k="$2" '$1 == k { print $2 }'; }
clock_of() { "$BIN/trace_dump" -H "$1" | sed -n 's/^# clock *//p'; }
# ordered NAME TRACE: a causal order, and a workload that holds what the program held
ordered() {
	"$TP/order_check" "$2" >"$TMP/$1.order"
	eq "$1: no inversion in the order points" 0 "$?"
	ge "$1: addresses reused across threads (the test has teeth)" 100 \
		"$(awk '$1 == "cross_thread_reuse" { print $2 }' "$TMP/$1.order")"
	"$BIN/trace2wl" "$TMP/$1.wl" "$2" 2>"$TMP/$1.sum"
	eq "$1: trace2wl converts it" 0 "$?"
	grep -q "repaired: 0 allocations of a still-live address" "$TMP/$1.sum" &&
		ok "$1: trace2wl repairs nothing" || bad "$1: $(grep repaired "$TMP/$1.sum")"
	p=$(wl "$TMP/$1.wl" ideal_rss)
	[ "${p:-$PEAK_MAX}" -lt "$PEAK_MAX" ] && ok "$1: the replay's peak is the program's ($p bytes)" ||
		bad "$1: the replay's peak is $p bytes, the program never holds $PEAK_MAX"
}

# the program untraced, and traced with the clock the tracer chooses
GLIBC_TUNABLES=$TUN "$TP/xthread" 4 20000 >"$TMP/plain.out"
eq "untraced: exit status" 0 "$?"
mkdir "$TMP/tr"   # (the traces, apart from what the tests write)
GLIBC_TUNABLES=$TUN traced "$TMP/tr/n" "$TP/xthread" 4 20000 >/dev/null
eq "traced: exit status" 0 "$?"
ordered "traced" "$(one_file "$TMP/tr/n.*")"

FT=$(ls /usr/lib/*/faketime/libfaketime.so.1 /usr/lib/faketime/libfaketime.so.1 \
	/usr/local/lib/faketime/libfaketime.so.1 2>/dev/null | head -n 1)
if [ -n "$FT" ] && [ "$(TZ=UTC LD_PRELOAD=$FT FAKETIME="2020-01-01 00:00:00" date +%s)" = 1577836800 ]; then
	# an absolute FAKETIME stops the clock there (CLOCK_MONOTONIC too); the limit is outside
	# the preload, and the preload is in the program's timeout too, as the issue had it
	timeout -k 5 60 env GLIBC_TUNABLES=$TUN FAKETIME="2020-01-01 00:00:00" MTRACE_CTL_QUIET=1 \
		MTRACE_CTL_FILE="$TMP/tr/f" LD_PRELOAD="$LIB $FT" timeout 55 "$TP/xthread" 4 20000 \
		>"$TMP/f.out" 2>"$TMP/f.err"
	eq "stopped clock (libfaketime): the traced program finishes, exit status" 0 "$?"
	check "stopped clock: it printed what it prints untraced" cmp "$TMP/f.out" "$TMP/plain.out"
	check "stopped clock: nothing on its stderr" test ! -s "$TMP/f.err"
	f=$(ls -S "$TMP"/tr/f.* | head -n 1)   # (the program's: timeout's own is smaller)
	check "stopped clock: its trace validates" "$BIN/trace_dump" -c "$f"
	ordered "stopped clock" "$f"
else
	echo "# libfaketime not installed (apt-get install faketime): the stopped clock is not tried"
fi

# the count, asked for: an order without time
GLIBC_TUNABLES=$TUN MTRACE_CTL_CLOCK=counter traced "$TMP/tr/c" "$TP/xthread" 4 20000 >/dev/null
c=$(one_file "$TMP/tr/c.*")
eq "counter: the header's clock" "a count of order points (no clock advanced: an order, no time)" \
	"$(clock_of "$c" | sed 's/; durations.*//')"
check "counter: its trace validates" "$BIN/trace_dump" -c "$c"
ordered "counter" "$c"
eq "counter: no idle times taken from a count" 0 "$(wl "$TMP/counter.wl" at)"

# a clock too coarse to tell chunks apart: given up for the count while tracing
GLIBC_TUNABLES=$TUN MTRACE_CTL_CLOCK=coarse MTRACE_CTL_VERBOSE=1 traced "$TMP/tr/k" "$TP/xthread" 4 \
	20000 >/dev/null 2>"$TMP/k.err"
k=$(one_file "$TMP/tr/k.*")
case $(clock_of "$k") in "a count of order points"*) ok "coarse clock: given up for the count" ;;
	*) bad "coarse clock: the header's clock is $(clock_of "$k")" ;; esac
grep -q "the clock did not advance between chunks" "$TMP/k.err" &&
	ok "coarse clock: the tracer says so when verbose" || bad "coarse clock: $(cat "$TMP/k.err")"
"$BIN/trace_dump" -c "$k" >"$TMP/k.chk"
eq "coarse clock: its trace validates" 0 "$?"
stalls=$(sed -n 's/.*; \([0-9]*\) chunks\{0,1\} taken at the clock value of the chunk before.*/\1/p' "$TMP/k.chk")
[ "${stalls:-0}" -ge 1 ] && [ "${stalls:-0}" -le 4 ] &&
	ok "coarse clock: the chunks before the count are counted ($stalls)" ||
	bad "coarse clock: $(cat "$TMP/k.chk")"
"$BIN/trace2wl" -q "$TMP/k.wl" "$k"
eq "coarse clock: trace2wl converts it" 0 "$?"

# readers: every chunk at one clock value
"$TP/mkfixture" trace-frozen "$TMP/fz.trace"
"$BIN/trace_dump" -c "$TMP/fz.trace" >"$TMP/fz.out" 2>"$TMP/fz.err"
eq "all chunks at one value: trace_dump -c exit status" 1 "$?"
grep -q "fz.trace: offset 4352: not valid for ordering: .*39 of 40 chunks taken at the clock value of the chunk before" \
	"$TMP/fz.err" && ok "all chunks at one value: trace_dump says where, and how many" ||
	bad "all chunks at one value: $(cat "$TMP/fz.err" "$TMP/fz.out")"
"$BIN/trace_dump" "$TMP/fz.trace" >/dev/null 2>&1
eq "all chunks at one value: trace_dump (printing) exit status" 1 "$?"
"$BIN/trace2wl" "$TMP/fz.wl" "$TMP/fz.trace" 2>"$TMP/fz2.err"
eq "all chunks at one value: trace2wl refuses it, exit status" 1 "$?"
grep -q "fz.trace: offset 4352: not valid for ordering: .*39 of 40 chunks.*its 2 threads" "$TMP/fz2.err" &&
	ok "all chunks at one value: trace2wl says where, and how many" || bad "$(cat "$TMP/fz2.err")"
check "all chunks at one value: no workload written" test ! -e "$TMP/fz.wl"
# a few
"$TP/mkfixture" trace-stalls "$TMP/st.trace"
"$BIN/trace_dump" -c "$TMP/st.trace" >"$TMP/st.out"
eq "3 chunks at the value before: valid, exit status" 0 "$?"
grep -q "; 3 chunks taken at the clock value of the chunk before" "$TMP/st.out" &&
	ok "3 chunks at the value before: trace_dump counts them" || bad "$(cat "$TMP/st.out")"
"$BIN/trace2wl" "$TMP/st.wl" "$TMP/st.trace" 2>"$TMP/st.sum"
eq "3 chunks at the value before: trace2wl converts it" 0 "$?"
grep -q "3 chunks taken at the clock value of the chunk before" "$TMP/st.sum" &&
	ok "3 chunks at the value before: trace2wl counts them" || bad "$(cat "$TMP/st.sum")"
finish
