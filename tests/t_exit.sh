# The end of a traced process: finishing the trace adds a bounded amount to its peak RSS, however
# large the trace and however many threads still hold chunks of it; _exit keeps the signals it
# blocks to finish the trace blocked through the real exit.
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

# A SIGTERM sent while a child is inside _exit(0), with the signal blocked there (the design is
# in tests/prog/exitsig.c: the child holds the tracer at its closing line until the signal is
# pending), must not end it: the child exits 0, as untraced (where it never waits, and is never
# signalled inside _exit).  Unblocking after the trace was finished delivered it: 20 killed of 20.
eq "untraced: children sent SIGTERM inside _exit" "killed 0 exited 20" "$("$TP/exitsig" inside 20)"
timeout -k 5 120 env MTRACE_CTL_VERBOSE=1 MTRACE_CTL_FILE="$TMP/s" LD_PRELOAD="$LIB" \
	"$TP/exitsig" inside 20 >"$TMP/out" 2>/dev/null
eq "traced: children sent SIGTERM inside _exit exit 0, as untraced" "killed 0 exited 20" "$(cat "$TMP/out")"
nf=0 nfin=0
for f in "$TMP"/s.*; do
	nf=$((nf + 1))
	nfin=$((nfin + $(count "$f" finished)))
done
eq "... and each child's trace (and the parent's) is finished" "21 21" "$nf $nfin"
finish
