# tests/run.sh: a failing test's summary shows every one of its "not ok" lines, however early
# in its log, then how the log ended; a skip shows its reason; the last line counts; the slow
# tier runs last; what a test leaves running is killed, whatever its process group or session.
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

# tiers, and the reaper: a process left behind in a session of its own, ignoring the polite
# signals, is killed once its test ends
mkdir -p "$TMP/r/build/tests" && cp "$TP/reaper" "$TMP/r/build/tests/"
printf '# tier: slow\necho "ok - slow"\n' >"$TMP/r/tests/t_aslow.sh"
{
	echo "setsid sh -c 'trap \"\" TERM HUP INT; echo \$\$ >$TMP/left.pid; exec sleep 1000' </dev/null >/dev/null 2>&1 &"
	echo "i=0; while [ ! -s $TMP/left.pid ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done"
	echo 'echo "ok - left one behind"'
} >"$TMP/r/tests/t_leaves.sh"
(cd "$TMP/r" && B=build sh "$ROOT/tests/run.sh" tests/t_aslow.sh tests/t_leaves.sh tests/t_passes.sh) >"$TMP/out2" 2>&1
eq "slow tier: runs after the others" "PASS t_leaves PASS t_passes PASS t_aslow" "$(grep -E '^(PASS|FAIL)' "$TMP/out2" | awk '{ print $1, $2 }' | tr '\n' ' ' | sed 's/ $//')"
grep -q '^PASS t_aslow (.*, slow tier)$' "$TMP/out2" && ok "... and says so" || bad "slow tier: $(cat "$TMP/out2")"
left=$(cat "$TMP/left.pid" 2>/dev/null)
if [ -n "$left" ] && ! kill -0 "$left" 2>/dev/null; then ok "a process the test left in its own session: killed"
else bad "the process the test left ($left) still runs: $(ps -o pid,pgid,sid,comm -p "${left:-1}" | tail -n 1)"; kill -9 "$left" 2>/dev/null; fi
grep -q "^reaper: killed process $left (sleep)" "$TMP/r/build/test-logs/t_leaves.log" && ok "... named in the test's log" ||
	bad "not named: $(cat "$TMP/r/build/test-logs/t_leaves.log")"
(cd "$TMP/r" && TIER=fast B=build sh "$ROOT/tests/run.sh" tests/t_aslow.sh tests/t_passes.sh) >"$TMP/out3" 2>&1
eq "TIER=fast: the slow tier left out" "1 passed, 0 failed" "$(tail -n 1 "$TMP/out3")"
# a command past its limit: its whole group is killed, exit 124 as timeout(1)
"$TP/reaper" 1 sh -c 'sleep 1000 & sleep 1000' >/dev/null 2>"$TMP/lim.err"
eq "past its limit: exit 124" 124 "$?"
grep -q 'ran past 1 s' "$TMP/lim.err" && ok "... saying so" || bad "limit: $(cat "$TMP/lim.err")"
finish
