#!/bin/sh
# Test runner: runs every tests/t_*.sh (or those named on the command line).  A test exits 0
# (pass), 77 (skip; its last output line says why) or anything else (fail).  Logs go to
# $B/test-logs/.  The last line is "N passed, N failed".
B=${B:-build}
ROOT=$(pwd)
export B ROOT
mkdir -p "$B/test-logs"
pass=0 fail=0 skip=0 skipped=""
tests=${*:-$(ls tests/t_*.sh)}
for t in $tests; do
	name=$(basename "$t" .sh)
	log="$B/test-logs/$name.log"
	start=$(date +%s)
	timeout -k 10 600 sh "$t" >"$log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	case $rc in
	0) pass=$((pass + 1)); echo "PASS $name (${secs}s)" ;;
	77) skip=$((skip + 1)); echo "SKIP $name: $(tail -n 1 "$log")"; skipped="$skipped $name" ;;
	*) fail=$((fail + 1)); echo "FAIL $name (exit $rc, ${secs}s), $log:"
	   # the checks that failed, wherever they are in the log, then how it ended
	   nots=$(grep -c '^not ok' "$log")
	   if [ "$nots" -gt 0 ]; then
		grep '^not ok' "$log" | head -n 40 | sed 's/^/    /'
		[ "$nots" -gt 40 ] && echo "    ... $((nots - 40)) more not ok lines"
		echo "    its last lines:"
	   fi
	   tail -n 10 "$log" | sed 's/^/    /' ;;
	esac
done
[ $skip -gt 0 ] && echo "skipped ($skip):$skipped"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
