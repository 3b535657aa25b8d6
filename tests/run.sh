#!/bin/sh
# Test runner: runs every tests/t_*.sh (or those named on the command line).  A test exits 0
# (pass), 77 (skip; its last output line says why) or anything else (fail).  Logs go to
# $B/test-logs/.  The last line is "N passed, N failed".
#
# Two tiers: a test whose first lines hold "# tier: slow" (valgrind, a browser, emulators) runs
# after the others, with a longer limit.  TIER=fast or TIER=slow runs one tier only.  Each test
# runs under tests/prog/reaper.c: in a process group of its own, killed when it runs past its
# limit, and every process it leaves behind (whatever its group) is killed when it ends.
B=${B:-build}
ROOT=$(pwd)
export B ROOT
mkdir -p "$B/test-logs"
pass=0 fail=0 skip=0 skipped=""
TIER=${TIER:-all}
is_slow() { head -n 5 "$1" | grep -q '^# tier: slow'; }
fast="" slow=""
for t in ${*:-$(ls tests/t_*.sh)}; do
	if is_slow "$t"; then slow="$slow $t"; else fast="$fast $t"; fi
done
case $TIER in
fast) slow="" ;;
slow) fast="" ;;
all) ;;
*) echo "tests/run.sh: TIER is fast, slow or all, not '$TIER'" >&2; exit 2 ;;
esac
REAPER=$B/tests/reaper
for t in $fast $slow; do
	name=$(basename "$t" .sh)
	log="$B/test-logs/$name.log"
	limit=600 tier=""
	case " $slow " in *" $t "*) limit=1800 tier=", slow tier" ;; esac
	start=$(date +%s)
	if [ -x "$REAPER" ]; then
		"$REAPER" $limit sh "$t" >"$log" 2>&1
	else
		timeout -k 10 $limit sh "$t" >"$log" 2>&1
	fi
	rc=$?
	secs=$(( $(date +%s) - start ))
	case $rc in
	0) pass=$((pass + 1)); echo "PASS $name (${secs}s$tier)" ;;
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
