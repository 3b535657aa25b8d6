# A full disk (a 2 MiB tmpfs): one warning, no SIGBUS, the program unaffected, the trace valid.
. tests/lib.sh
mkdir -p "$TMP/mnt"
mount -t tmpfs -o size=2m tmpfs "$TMP/mnt" 2>/dev/null || skip "cannot mount a tmpfs here (needs root): ENOSPC is covered only by t_rlimit_fsize"
trap 'umount "$TMP/mnt" "$TMP"/w* 2>/dev/null; rm -rf "$TMP"' EXIT
"$TP/bigalloc" 300000 >"$TMP/plain"
MTRACE_CTL_FILE="$TMP/mnt/full" LD_PRELOAD="$LIB" MTRACE_CTL_QUIET=1 "$TP/bigalloc" 300000 >"$TMP/traced" 2>"$TMP/err"
eq "exit status 0 (no SIGBUS)" 0 "$?"
check "same output" cmp "$TMP/plain" "$TMP/traced"
eq "exactly one warning line" 1 "$(grep -c 'mtracectl:' "$TMP/err")"
grep -q 'No space left on device' "$TMP/err" && ok "the warning says the disk is full" || bad "warning text: $(cat "$TMP/err")"
f=$(one_file "$TMP/mnt/full.*")
check "trace validates" "$BIN/trace_dump" -c "$f"
ge "calls before the disk filled are there" 5000 "$(count "$f" calls)"
"$BIN/trace_dump" -H "$f" | grep -q '^# status    stopped early, as no disk space could be reserved (No space left on device)' &&
	ok "the header says the trace stopped early, and why" || bad "status: $("$BIN/trace_dump" -H "$f" | tail -n 1)"

# trace2wl writing a workload to a full disk: whether the writes of the streams, of the
# scratch file or the copy of the scratch file into the output (copy_file_range) run out, one
# error naming the output, exit 3, and nothing left behind
MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/xt" LD_PRELOAD="$LIB" "$TP/xthread" 2 40000 >/dev/null
xt=$(one_file "$TMP/xt.*")
"$BIN/trace2wl" -q "$TMP/xt.wl" "$xt"; eq "trace2wl: the workload converts where there is room" 0 "$?"
wlsize=$(stat -c %s "$TMP/xt.wl")
for kb in 128 $((wlsize / 1024 - 64)) $((wlsize / 1024 + 64)); do
	mkdir -p "$TMP/w$kb"
	mount -t tmpfs -o size=${kb}k tmpfs "$TMP/w$kb" || { bad "mount a ${kb}k tmpfs"; continue; }
	"$BIN/trace2wl" -q "$TMP/w$kb/xt.wl" "$xt" 2>"$TMP/err$kb"
	eq "trace2wl, ${kb}k free for a $wlsize-byte workload: exit 3" 3 "$?"
	eq "trace2wl, ${kb}k: one line" 1 "$(wc -l <"$TMP/err$kb")"
	grep -q "^trace2wl: $TMP/w$kb/xt.wl: .*No space left on device" "$TMP/err$kb" &&
		ok "trace2wl, ${kb}k: the error names the output and the full disk" || bad "trace2wl, ${kb}k: $(cat "$TMP/err$kb")"
	eq "trace2wl, ${kb}k: nothing left behind" "" "$(ls -A "$TMP/w$kb")"
	umount "$TMP/w$kb"
done
finish
