#!/bin/sh
# make bench, part 4: how faithful a replay's memory is, on real programs nobody here wrote.
# Each program is traced (on glibc, and on jemalloc where it is installed), converted, and
# replayed on the allocator it ran on (trace_run -m traced), as fast as it goes and at the
# program's pace (--pace); the table sets the program's own peak growth of anonymous RSS (the
# memory samples in its trace) beside the replays', with the curve error trace_run computes over
# the program's time (paced, then fast) and, for reference, call by call (paced).  Two of the
# programs hand buffers between threads: xz -T2 (its main thread reads the input into blocks
# that two encoder threads compress) and redis-server with two I/O threads under
# redis-benchmark on loopback (run on the jemalloc it links; skipped, saying why, where either
# is missing).  BEFORE=DIR (a build of an earlier version: DIR/lib, DIR/bin) adds the replay
# growth that version's pipeline gives the same program.  Nothing here passes or fails.
#   SORTMB (default 214): the size of the file sort sorts; XZMB (default 32): xz's input;
#   REDIS_N (default 100000): redis-benchmark's requests a test (SET, GET, LPUSH, LPOP).
B=${B:-build}
ROOT=$(pwd)
DIR=${BENCH_DIR:-/tmp}/mtrace-fidelity.$$
SORTMB=${SORTMB:-214}
XZMB=${XZMB:-32}
REDIS_N=${REDIS_N:-100000}
mkdir -p "$DIR"
SERVER=
# (a redis-server still up, in its own process group, goes with the directory)
trap '[ -n "$SERVER" ] && kill -9 -- -"$SERVER" 2>/dev/null; rm -rf "$DIR"' EXIT
trap 'exit 130' INT TERM
BIN=$ROOT/$B/bin
LIB=$ROOT/$B/lib/libmtracectl.so
JE=$(ls /usr/lib/*/libjemalloc.so.2 2>/dev/null | head -n 1)
PY=$(command -v python3)

# the programs: NAME|COMMAND (run by sh -c, in $DIR, with LD_PRELOAD set; "redis" is run_redis)
awk -v n=$((SORTMB * 1024 * 1024 / 12)) 'BEGIN { srand(11); for (i = 0; i < n; i++) printf "%011d\n", int(rand() * 1e11) }' >"$DIR/sort.in"
awk 'BEGIN { for (i = 0; i < 4000; i++) printf "static int f%d(int x) { int a[%d]; for (int i = 0; i < %d; i++) a[i] = x * i; return a[x %% %d]; }\n", i, 8 + i % 64, 8 + i % 64, 8 + i % 64; print "int main(void) { return f1(3); }" }' >"$DIR/big.c"
# (words drawn from a small vocabulary: text xz compresses about fivefold)
awk -v n=$((XZMB * 1024 * 1024)) 'BEGIN { srand(7); for (i = 0; i < 4096; i++) w[i] = sprintf("%x%s", int(rand() * 1e6), substr("etaoinshrdlu", 1 + i % 11, 1 + i % 5)); while (b < n) { s = w[int(rand() * rand() * 4096)]; printf "%s%s", s, (++k % 13) ? " " : "\n"; b += length(s) + 1 } }' >"$DIR/xz.in"
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
	echo "sort of $SORTMB MiB|sort -o $DIR/sort.out $DIR/sort.in"
	command -v perl >/dev/null && echo "perl|perl -e 'my %h; \$h{\$_} = \"x\" x 100 for 1..1000000; my @a = sort keys %h;'"
	if command -v xz >/dev/null; then
		echo "xz -T2 -6 of $XZMB MiB|xz -T2 -6 --block-size=4MiB -c $DIR/xz.in >$DIR/xz.out"
	else
		echo "xz -T2: skipped (xz is not installed)" >&2
	fi
	if command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null &&
	   command -v redis-cli >/dev/null; then
		echo "redis-server, I/O threads 2|redis"
	else
		echo "redis-server: skipped (redis-server, redis-benchmark or redis-cli is not installed)" >&2
	fi
} >"$DIR/programs"

# run_redis PRELOAD: redis-server (I/O threads 2) traced, in a process group of its own, under
# redis-benchmark's 50 clients on loopback (untraced): SET, GET, LPUSH, LPOP of 256 bytes; then
# shut down.  A free port is looked for from 16379 up.
run_redis() {
	port=16379
	while redis-cli -p $port ping >/dev/null 2>&1 && [ $port -lt 16479 ]; do port=$((port + 1)); done
	setsid sh -c "cd '$DIR' && MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE='$DIR/t' LD_PRELOAD='$1' exec redis-server --port $port --bind 127.0.0.1 --io-threads 2 --io-threads-do-reads yes --save '' --appendonly no --logfile /dev/null" &
	SERVER=$!
	i=0
	until redis-cli -p $port ping >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -gt 100 ] && break
		sleep 0.1
	done
	timeout -k 5 600 redis-benchmark -p $port -c 50 -n "$REDIS_N" -d 256 -t set,get,lpush,lpop -q >/dev/null 2>&1
	redis-cli -p $port shutdown nosave >/dev/null 2>&1
	i=0
	while kill -0 "$SERVER" 2>/dev/null && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.1; done
	kill -9 -- -"$SERVER" 2>/dev/null
	SERVER=
}

# figure JSON KEY: a number from trace_run --json
figure() { sed -n "s/.*\"$2\": *\\([-0-9.e+]*\\).*/\\1/p" "$1" | head -n 1; }
kb() { awk -v k="$1" 'BEGIN { if (k == "") print "?"; else printf "%.1f", k / 1024 }'; }
pct() { awk -v e="$1" 'BEGIN { if (e == "") print "?"; else printf "%.1f%%", 100 * e }'; }

# (the "before" column only when there is an earlier build to fill it)
bh1= bh2=
[ -n "${BEFORE:-}" ] && bh1=before bh2=MiB
printf '%-30s %-9s %9s %9s %9s %7s %7s %7s %9s\n' "program" "allocator" "program" "replay" "paced" "time" "time" "calls" "$bh1"
printf '%-30s %-9s %9s %9s %9s %7s %7s %7s %9s\n' "" "" "MiB" "MiB" "MiB" "paced" "fast" "paced" "$bh2"
while IFS='|' read -r name cmd; do
	for alloc in glibc jemalloc; do
		pre=$LIB
		if [ $alloc = jemalloc ]; then
			[ -n "$JE" ] || continue
			case $name in python3\ \(its*|gcc*) continue ;; esac   # (not their malloc)
			pre="$LIB $JE"
		fi
		rm -f "$DIR"/t.*
		if [ "$cmd" = redis ]; then
			# (on the jemalloc it links: glibc's malloc cannot be put in its place)
			[ $alloc = jemalloc ] || continue
			run_redis "$LIB"
		else
			(cd "$DIR" && MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$DIR/t" LD_PRELOAD="$pre" sh -c "$cmd" >/dev/null 2>&1)
		fi
		t=$(ls -S "$DIR"/t.* 2>/dev/null | head -n 1)   # (the process that allocated most)
		[ -n "$t" ] || { echo "$name: no trace"; continue; }
		"$BIN/trace2wl" -q "$DIR/w.wl" "$t" 2>/dev/null || { echo "$name: $t does not convert"; continue; }
		rm -f "$DIR"/t.*
		"$BIN/trace_run" -m traced --json "$DIR/w.wl" >"$DIR/r.json" 2>/dev/null
		"$BIN/trace_run" -m traced --pace --json "$DIR/w.wl" >"$DIR/p.json" 2>/dev/null
		prog=$(figure "$DIR/r.json" program_rss_growth_kb)
		rep=$(figure "$DIR/r.json" replay_rss_growth_kb)
		pac=$(figure "$DIR/p.json" replay_rss_growth_kb)
		before=""
		if [ -n "${BEFORE:-}" ] && [ $alloc = glibc ]; then
			rm -f "$DIR"/o.*
			(cd "$DIR" && MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$DIR/o" LD_PRELOAD="$BEFORE/lib/libmtracectl.so" sh -c "$cmd" >/dev/null 2>&1)
			o=$(ls -S "$DIR"/o.* 2>/dev/null | head -n 1)
			"$BEFORE/bin/trace2wl" -q "$DIR/o.wl" "$o" 2>/dev/null &&
				before=$("$BEFORE/bin/trace_run" "$DIR/o.wl" 2>/dev/null | sed -n 's/.*Kb Max RSS (\([0-9,]*\) -> \([0-9,]*\)).*/\1 \2/p' |
					 tr -d , | awk '{ print $2 - $1 }')
			rm -f "$DIR"/o.*
		fi
		printf '%-30s %-9s %9s %9s %9s %7s %7s %7s %9s\n' "$name" "$alloc" "$(kb "$prog")" "$(kb "$rep")" \
			"$(kb "$pac")" "$(pct "$(figure "$DIR/p.json" fidelity_time_error)")" \
			"$(pct "$(figure "$DIR/r.json" fidelity_time_error)")" \
			"$(pct "$(figure "$DIR/p.json" fidelity_curve_error)")" \
			"$([ -n "${BEFORE:-}" ] && { [ $alloc = glibc ] && kb "$before" || echo -; })"
	done
done <"$DIR/programs"
echo "(program: its peak growth of anonymous RSS, from the memory samples in its trace; replay and"
echo " paced: trace_run -m traced, as fast as it goes and with --pace; time: the replay's anonymous"
echo " RSS against the program's over the program's time, on average, as a share of the program's"
echo " peak, paced and fast; calls: the same call by call, paced)"
