# The control API of libmtrace.so: exact counts in a region, pause/unpause, reset, sync,
# start after stop, EBUSY/EINVAL/ENOENT errors, mode 0600, a planted symlink.
. tests/lib.sh
MTRACE_CTL_QUIET=1 "$TP/api_region" "$TMP" >"$TMP/out" 2>"$TMP/err"
rc=$?
cat "$TMP/out"
eq "api_region passes every check" 0 "$rc"
grep -q 'cannot create trace file /nonexistent-dir/x' "$TMP/err" && ok "one warning names the file it could not create" || bad "warning for the missing directory"
finish
