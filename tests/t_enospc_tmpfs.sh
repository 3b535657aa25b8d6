# A full disk (a 2 MiB tmpfs): one warning, no SIGBUS, the program unaffected, the trace valid.
. tests/lib.sh
mkdir -p "$TMP/mnt"
mount -t tmpfs -o size=2m tmpfs "$TMP/mnt" 2>/dev/null || skip "cannot mount a tmpfs here (needs root): ENOSPC is covered only by t_rlimit_fsize"
trap 'umount "$TMP/mnt" 2>/dev/null; rm -rf "$TMP"' EXIT
"$TP/bigalloc" 300000 >"$TMP/plain"
MTRACE_CTL_FILE="$TMP/mnt/full" LD_PRELOAD="$LIB" MTRACE_CTL_QUIET=1 "$TP/bigalloc" 300000 >"$TMP/traced" 2>"$TMP/err"
eq "exit status 0 (no SIGBUS)" 0 "$?"
check "same output" cmp "$TMP/plain" "$TMP/traced"
eq "exactly one warning line" 1 "$(grep -c 'mtrace-ctl:' "$TMP/err")"
grep -q 'No space left on device' "$TMP/err" && ok "the warning says the disk is full" || bad "warning text: $(cat "$TMP/err")"
f=$(one_file "$TMP/mnt/full.*")
check "trace validates" "$BIN/trace_dump" -c "$f"
ge "calls before the disk filled are there" 5000 "$(count "$f" calls)"
"$BIN/trace_dump" -H "$f" | grep -q '^# status    stopped early, as no disk space could be reserved (No space left on device)' &&
	ok "the header says the trace stopped early, and why" || bad "status: $("$BIN/trace_dump" -H "$f" | tail -n 1)"
finish
