# tests/run.sh: a failing test's summary shows every one of its "not ok" lines, however early
# in its log, then how the log ended; a skip shows its reason; the last line counts.
. tests/lib.sh
mkdir -p "$TMP/r/tests"
{
	echo 'echo "not ok - the first failure"'
	echo 'i=0; while [ $i -lt 60 ]; do echo "ok - check $i"; i=$((i + 1)); done'
	echo 'echo "not ok - the second failure"; echo "ok - after"; echo "2 failed"; exit 1'
} >"$TMP/r/tests/t_fails.sh"
printf 'echo "ok - one"\necho "needs a thing that is missing"\nexit 77\n' >"$TMP/r/tests/t_skips.sh"
printf 'echo "ok - one"\nexit 0\n' >"$TMP/r/tests/t_passes.sh"
(cd "$TMP/r" && B=build sh "$ROOT/tests/run.sh" tests/t_fails.sh tests/t_skips.sh tests/t_passes.sh) >"$TMP/out" 2>&1
eq "a failure: exit 1" 1 "$?"
grep -q '^FAIL t_fails (exit 1' "$TMP/out" && ok "the failure named" || bad "no FAIL line: $(head -n 3 "$TMP/out")"
grep -q '^    not ok - the first failure$' "$TMP/out" && ok "its first not ok line, 60 lines before the end, shown" || bad "first not ok missing: $(cat "$TMP/out")"
grep -q '^    not ok - the second failure$' "$TMP/out" && ok "its second not ok line shown" || bad "second not ok missing"
grep -q '^    2 failed$' "$TMP/out" && ok "the end of its log shown" || bad "no tail"
grep -q '^SKIP t_skips: needs a thing that is missing$' "$TMP/out" && ok "a skip shows its reason" || bad "skip: $(grep SKIP "$TMP/out")"
eq "the last line counts" "1 passed, 1 failed" "$(tail -n 1 "$TMP/out")"
finish
