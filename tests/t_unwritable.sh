# A trace directory that cannot be written: one warning, the program runs on unchanged.
. tests/lib.sh
"$TP/bigalloc" 20000 >"$TMP/plain"
for base in /nonexistent-dir/t /etc/passwd/t; do
	MTRACE_CTL_FILE=$base LD_PRELOAD="$LIB" "$TP/bigalloc" 20000 >"$TMP/out" 2>"$TMP/err"
	eq "$base: exit status 0" 0 "$?"
	check "$base: same output" cmp "$TMP/plain" "$TMP/out"
	eq "$base: exactly one line on stderr, a warning" 1 "$(grep -c 'mtracectl: cannot create trace file' "$TMP/err")"
done
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	mkdir "$TMP/ro"; chmod 755 "$TMP/ro"; chmod 755 "$TMP"
	# the program and the preload copied where the unprivileged user reaches them (the build
	# may lie in a private directory)
	mkdir "$TMP/pub"; cp "$TP/bigalloc" "$LIB" "$TMP/pub/"; chmod -R a+rX "$TMP/pub"
	setpriv --reuid=65534 --regid=65534 --clear-groups env MTRACE_CTL_FILE="$TMP/ro/t" \
		LD_PRELOAD="$TMP/pub/$(basename "$LIB")" "$TMP/pub/bigalloc" 20000 >"$TMP/out" 2>"$TMP/err"
	eq "permission denied: exit status 0" 0 "$?"
	check "permission denied: same output" cmp "$TMP/plain" "$TMP/out"
	grep -q 'Permission denied' "$TMP/err" && ok "permission denied: warned" || bad "permission denied warning: $(cat "$TMP/err")"
else
	echo "# not root or no setpriv: the permission-denied case is not run"
fi
finish
