#!/bin/sh
# make bench, part 4: how faithful a replay's memory is, on real programs nobody here wrote.
# Each program is traced (on glibc, and on jemalloc where it is installed), converted, and
# replayed on the allocator it ran on (trace_run -m traced), as fast as it goes and at the
# program's pace (--pace); the table sets the program's own peak growth of anonymous RSS (the
# memory samples in its trace) beside the replays', with the curve error trace_run computes.
# BEFORE=DIR (a build of an earlier version: DIR/lib, DIR/bin) adds the replay growth that
# version's pipeline gives the same program.  Nothing here passes or fails.
#   SORTMB (default 214): the size of the file sort sorts.
B=${B:-build}
ROOT=$(pwd)
DIR=${BENCH_DIR:-/tmp}/mtrace-fidelity.$$
SORTMB=${SORTMB:-214}
mkdir -p "$DIR"
trap 'rm -rf "$DIR"' EXIT
BIN=$ROOT/$B/bin
LIB=$ROOT/$B/lib/libmtracectl.so
JE=$(ls /usr/lib/*/libjemalloc.so.2 2>/dev/null | head -n 1)
PY=$(command -v python3)

# the programs: NAME|COMMAND (run by sh -c, in $DIR)
awk -v n=$((SORTMB * 1024 * 1024 / 12)) 'BEGIN { srand(11); for (i = 0; i < n; i++) printf "%011d\n", int(rand() * 1e11) }' >"$DIR/sort.in"
awk 'BEGIN { for (i = 0; i < 4000; i++) printf "static int f%d(int x) { int a[%d]; for (int i = 0; i < %d; i++) a[i] = x * i; return a[x %% %d]; }\n", i, 8 + i % 64, 8 + i % 64, 8 + i % 64; print "int main(void) { return f1(3); }" }' >"$DIR/big.c"
cat >"$DIR/py.py" <<'EOF'
d = {i: str(i) * 10 for i in range(1500000)}
l = [bytes(1000) for _ in range(150000)]
del d
s = sorted(str(i) for i in range(500000))
EOF
{
	[ -n "$PY" ] && echo "python3 (PYTHONMALLOC=malloc)|PYTHONMALLOC=malloc $PY $DIR/py.py"
	[ -n "$PY" ] && echo "python3 (its own allocator)|$PY $DIR/py.py"
	command -v gcc >/dev/null && echo "gcc -O2 -c (cc1)|gcc -O2 -c -o $DIR/big.o $DIR/big.c"
	echo "sort of $SORTMB MB|sort -o $DIR/sort.out $DIR/sort.in"
	command -v perl >/dev/null && echo "perl|perl -e 'my %h; \$h{\$_} = \"x\" x 100 for 1..1000000; my @a = sort keys %h;'"
} >"$DIR/programs"

# figure JSON KEY: a number from trace_run --json
figure() { sed -n "s/.*\"$2\": *\\([-0-9.e+]*\\).*/\\1/p" "$1" | head -n 1; }
kb() { awk -v k="$1" 'BEGIN { if (k == "") print "?"; else printf "%.1f", k / 1024 }'; }

# (the "before" column only when there is an earlier build to fill it)
bh1= bh2=
[ -n "${BEFORE:-}" ] && bh1=before bh2=MiB
printf '%-30s %-9s %11s %11s %11s %7s %11s\n' "program" "allocator" "program" "replay" "paced" "curve" "$bh1"
printf '%-30s %-9s %11s %11s %11s %7s %11s\n' "" "" "MiB" "MiB" "MiB" "error" "$bh2"
while IFS='|' read -r name cmd; do
	for alloc in glibc jemalloc; do
		pre=$LIB
		if [ $alloc = jemalloc ]; then
			[ -n "$JE" ] || continue
			case $name in python3\ \(its*|gcc*) continue ;; esac   # (not their malloc)
			pre="$LIB $JE"
		fi
		rm -f "$DIR"/t.*
		(cd "$DIR" && MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$DIR/t" LD_PRELOAD="$pre" sh -c "$cmd" >/dev/null 2>&1)
		t=$(ls -S "$DIR"/t.* 2>/dev/null | head -n 1)   # (the process that allocated most)
		[ -n "$t" ] || { echo "$name: no trace"; continue; }
		"$BIN/trace2wl" -q "$DIR/w.wl" "$t" 2>/dev/null || { echo "$name: $t does not convert"; continue; }
		"$BIN/trace_run" -m traced --json "$DIR/w.wl" >"$DIR/r.json" 2>/dev/null
		"$BIN/trace_run" -m traced --pace --json "$DIR/w.wl" >"$DIR/p.json" 2>/dev/null
		prog=$(figure "$DIR/r.json" program_rss_growth_kb)
		rep=$(figure "$DIR/r.json" replay_rss_growth_kb)
		pac=$(figure "$DIR/p.json" replay_rss_growth_kb)
		cerr=$(figure "$DIR/p.json" fidelity_curve_error)
		before=""
		if [ -n "${BEFORE:-}" ] && [ $alloc = glibc ]; then
			rm -f "$DIR"/o.*
			(cd "$DIR" && MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$DIR/o" LD_PRELOAD="$BEFORE/lib/libmtracectl.so" sh -c "$cmd" >/dev/null 2>&1)
			o=$(ls -S "$DIR"/o.* 2>/dev/null | head -n 1)
			"$BEFORE/bin/trace2wl" -q "$DIR/o.wl" "$o" 2>/dev/null &&
				before=$("$BEFORE/bin/trace_run" "$DIR/o.wl" 2>/dev/null | sed -n 's/.*Kb Max RSS (\([0-9,]*\) -> \([0-9,]*\)).*/\1 \2/p' |
					 tr -d , | awk '{ print $2 - $1 }')
		fi
		printf '%-30s %-9s %11s %11s %11s %7s %11s\n' "$name" "$alloc" "$(kb "$prog")" "$(kb "$rep")" \
			"$(kb "$pac")" "$(awk -v e="$cerr" 'BEGIN { if (e == "") print "?"; else printf "%.1f%%", 100 * e }')" \
			"$([ -n "${BEFORE:-}" ] && { [ $alloc = glibc ] && kb "$before" || echo -; })"
	done
done <"$DIR/programs"
echo "(program: its peak growth of anonymous RSS, from the memory samples in its trace; replay and"
echo " paced: trace_run -m traced, as fast as it goes and with --pace; curve error: the paced replay's"
echo " anonymous RSS against the program's, call by call, on average, as a share of the program's peak)"
