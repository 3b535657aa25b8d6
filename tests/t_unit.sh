# Unit tests: a C program per module of tools/lib (tests/unit/u_*.c), each printing "ok N - what"
# or "not ok N - what" per check and exiting non-zero on any failure.  Their lines are copied
# here, each prefixed with the program's name, so that the runner shows the ones that failed.
#
# One module alone:   make build/tests/unit/u_order && build/tests/unit/u_order
# (u_order, u_live, u_varint, u_u64map, u_rangemap, u_lat_hist, u_trace_header,
# u_wl_header, u_calls); all of them: B=build sh tests/run.sh tests/t_unit.sh
. tests/lib.sh
n=0
for src in "$ROOT"/tests/unit/u_*.c; do
	u=$(basename "$src" .c)
	n=$((n + 1))
	if [ ! -x "$TP/unit/$u" ]; then
		bad "$u: not built ($TP/unit/$u; make check builds it)"
		continue
	fi
	"$TP/unit/$u" >"$TMP/$u.out" 2>&1
	rc=$?
	sed "s/^\(not \)\{0,1\}ok [0-9]* - /&$u: /" "$TMP/$u.out"
	# a unit test passes when it exits 0 having printed its plan and no failed check
	if [ $rc -eq 0 ] && grep -q '^1\.\.[1-9]' "$TMP/$u.out" &&
	   ! grep -q '^not ok' "$TMP/$u.out"; then
		ok "$u: every check passed ($(grep -c '^ok' "$TMP/$u.out"))"
	else
		bad "$u: exit $rc, $(grep -c '^not ok' "$TMP/$u.out") checks failed"
	fi
done
ge "unit tests found" 1 "$n"
finish
