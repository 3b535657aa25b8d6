# The end of a traced process: finishing the trace adds a bounded amount to its peak RSS, however
# large the trace and however many threads still hold chunks of it.
. tests/lib.sh

# 16 threads hold chunks (half near the trace's start, half near its end) and wait while the
# process exits; the main thread writes 9.4 M records, a 300 MB trace.  The peak is wait4's: the
# whole life, the tracer's finishing included (the program's own VmHWM, read before it exits,
# would miss it).  Reading the held chunks' whole windows to count their records made 300 MB
# of the trace resident at the exit: 13 MB before it, 298 MB peak.
u=$("$TP/exitpeak" measure "$TP/exitpeak" work 16 4700000 | awk '$1 == "maxrss_kb" { print $2 }')
"$TP/exitpeak" measure env MTRACE_CTL_VERBOSE=1 MTRACE_CTL_FILE="$TMP/p" LD_PRELOAD="$LIB" \
	"$TP/exitpeak" work 16 4700000 >"$TMP/out" 2>"$TMP/err"
t=$(awk '$1 == "maxrss_kb" { print $2 }' "$TMP/out")
eq "16 threads waiting at the exit: exit status" "status 0" "$(grep status "$TMP/out")"
f=$(one_file "$TMP/p.*")
size=$(( $(stat -c %s "$f") >> 20 ))
check "a ${size} MB trace, 16 threads holding chunks: the peak RSS, exit included, is $(( (t - u) >> 10 )) MB over untraced (< 64)" \
	test $((t - u)) -lt 65536
eq "... and the count said at the exit is every record in the file" \
	"mtracectl: $(count "$f" calls) entries recorded" "$(tail -n 1 "$TMP/err")"
rm -f "$TMP"/p.*
finish
