# trace_run against other allocators: --compare with those installed and libraries given by
# path; a replay traced is its workload again (the round trip); an allocator that crashes,
# is killed or deadlocks is named, with where, and the other columns still print.
. tests/lib.sh
. tests/lib_trace_run.sh
make_m
make_x

# --- compare mode with whichever allocators are installed
list=glibc
others="jemalloc:libjemalloc.so.2 tcmalloc:libtcmalloc_minimal.so.4 mimalloc:libmimalloc.so.2"
if [ "${SANITIZE:-}" = 1 ]; then
	echo "# sanitized build: another allocator cannot be preloaded into an ASan process; glibc only"
	others=""
fi
for a in $others; do
	ls /usr/lib/*/"${a#*:}" >/dev/null 2>&1 && list="$list,${a%%:*}" || echo "# ${a%%:*} not installed: left out of the comparison"
done
"$R" --compare "$list" -r 2 "$TMP/x.wl" >"$TMP/cmp"; eq "--compare $list: exit 0" 0 "$?"
cat "$TMP/cmp"
eq "--compare: a column per allocator" "$(echo "$list" | tr ',' ' ')" "$(head -n 1 "$TMP/cmp" | xargs)"
for row in 'wall time' 'Max RSS' 'ideal RSS' 'avg malloc' 'avg free' 'p99 malloc' 'p99 free'; do
	grep -q "^$row" "$TMP/cmp" && ok "--compare: row $row" || bad "--compare: no row $row"
done
[ "$list" != glibc ] && { grep -q '(.*x)' "$TMP/cmp" && ok "--compare: ratios to the first column" || bad "no ratios"; }
# allocators given by path: each replayed (a library defining malloc), each its own timeline,
# also two of one file name (each a file of its own, neither overwriting the other)
if [ "${SANITIZE:-}" != 1 ]; then
	mkdir -p "$TMP/a" "$TMP/b"; cp "$TP/libfwd.so" "$TMP/a/"; cp "$TP/libfwd.so" "$TMP/b/"
	"$R" --compare "glibc,$TMP/a/libfwd.so,$TMP/b/libfwd.so" -l "$TMP/lg" "$TMP/m.wl" >/dev/null
	eq "--compare of two libraries by path: exit 0" 0 "$?"
	eq "--compare --log: a timeline each" "lg.glibc lg.libfwd.so lg.libfwd.so.3" "$(cd "$TMP" && ls lg.* | xargs)"
	# a library whose path holds a quote and a backslash (not a comma: --compare splits there;
	# nor a space: LD_PRELOAD does, which is refused): --json and --csv stay valid
	# the replay traced (mtracectl -- trace_run --malloc X): X goes after the tracer, which
	# records every call of the replay and forwards it to X
	rm -f "$TMP"/rt.*
	MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/rt" LD_PRELOAD="$LIB" "$R" --malloc "$TP/libfwd.so" "$TMP/m.wl" >/dev/null
	eq "a traced replay with --malloc: exit 0" 0 "$?"
	rt=$(one_file "$TMP/rt.*.1")   # the image after the re-execution
	ge "a traced replay with --malloc: the replay's mallocs recorded" "$(wl "$TMP/m.wl" malloc)" "$(count "$rt" malloc)"
	# the round trip: the replay of a workload, traced and converted, is that workload again -
	# every call of each type - plus what glibc allocates for the threads the harness creates
	# (a calloc each, and frees at their exit; the harness's own tables, stdio buffer and
	# validation never use the allocator under test); for a single-thread workload, whose replay runs in the
	# trace's order, the same ideal RSS too (plus 64 KiB).  (Threads that do not wait for each
	# other interleave otherwise in a replay: live bytes then add up differently.)
	traced "$TMP/one" "$ROOT/$B/bench/mbench" 1 50000 >/dev/null
	one_trace=$(one_file "$TMP/one.*")
	"$BIN/trace2wl" -q "$TMP/one.wl" "$one_trace"
	for w in one m x; do
		rm -f "$TMP"/rr.*
		traced "$TMP/rr" "$R" --touch=none "$TMP/$w.wl" >/dev/null; eq "$w: traced replay: exit 0" 0 "$?"
		"$BIN/trace2wl" -q "$TMP/rr.wl" "$(one_file "$TMP/rr.*")"; eq "$w: the replay's trace converts" 0 "$?"
		nth=$(wl "$TMP/$w.wl" threads)
		for k in malloc calloc realloc free memalign posix_memalign aligned_alloc valloc pvalloc; do
			a=$(wl "$TMP/$w.wl" $k) b=$(wl "$TMP/rr.wl" $k)
			slack=$((nth + 2)); [ $k = free ] && slack=$((16 * nth + 16))
			[ "$b" -ge "$a" ] && [ "$b" -le $((a + slack)) ] && ok "$w: round trip: $k $a, replayed $b" ||
				bad "$w: round trip: $k: workload $a, the replay's trace $b"
		done
	done
	# a dj/malloc workload is translated before the re-execution, never by the allocator under
	# test: its replay makes the same allocator calls as the replay of its translation
	"$BIN/trace2wl" -q --dj-format "$TMP/one.dj" "$TMP/one2.wl" "$one_trace"
	"$TP/dj_wl_scan" --to-ours "$TMP/one.dj" "$TMP/one.djwl"
	for f in djwl dj; do
		rm -f "$TMP"/rd.*
		traced "$TMP/rd" "$R" --touch=none --malloc "$TP/libfwd.so" "$TMP/one.$f" >/dev/null
		eq "one.$f: traced replay with --malloc: exit 0" 0 "$?"
		rd=$(one_file "$TMP/rd.*.1")   # the image after the re-execution
		for k in malloc calloc realloc free; do eval "n_${f}_$k=\$(count \"\$rd\" $k)"; done
	done
	for k in malloc calloc realloc free; do
		eval "a=\$n_djwl_$k b=\$n_dj_$k"
		eq "a dj workload's replay: as many ${k}s as its translation's ($a)" "$a" "$b"
	done
	rm -f "$TMP"/rr.*
	traced "$TMP/rr" "$R" --touch=none "$TMP/one.wl" >/dev/null
	"$BIN/trace2wl" -q "$TMP/rr.wl" "$(one_file "$TMP/rr.*")"
	a=$(wl "$TMP/one.wl" ideal_rss) b=$(wl "$TMP/rr.wl" ideal_rss)
	[ "$b" -ge "$a" ] && [ "$b" -le $((a + 65536)) ] && ok "one thread: round trip: ideal RSS $a, replayed $b" ||
		bad "one thread: round trip: ideal RSS: workload $a, the replay's trace $b"
	# an allocator that crashes: where, which signal, exit 3 (a failure of the system under
	# test, not the signal's status), no timeline left; compare mode says which
	LIBFWD_CRASH_AT=500 "$R" --malloc "$TP/libfwd.so" -l "$TMP/crash.tsv" "$TMP/m.wl" >/dev/null 2>"$TMP/err"
	eq "a crashing allocator (SIGSEGV): exit 3" 3 "$?"
	grep -q "the replay crashed (SIGSEGV, a bad memory access) in stream [0-9,]* (thread [0-9]*), at its call [0-9,]* of [0-9,]*" "$TMP/err" &&
		ok "a crashing allocator: where it crashed" || bad "crash: $(cat "$TMP/err")"
	# and how to see the calls before it: the command it gives shows the call it crashed at,
	# a malloc (libfwd crashes in its 500th)
	at=$(sed -n 's/.*at its call \([0-9,]*\) of .*/\1/p' "$TMP/err" | tr -d ,)
	cmd=$(sed -n 's/^trace_run: the calls before it: //p' "$TMP/err")
	case "$cmd" in "trace_dump -s "*" -n 20 $TMP/m.wl") ok "a crashing allocator: the trace_dump command to look" ;; *) bad "crash hint: '$cmd'" ;; esac
	"$BIN"/$cmd | awk -v at="$at" '$2 == at && $3 ~ /^malloc\(/ { f = 1 } END { exit !f }' &&
		ok "a crashing allocator: that command shows its call $at, a malloc" || bad "crash hint's dump: $("$BIN"/$cmd | tail -n 3)"
	eq "a crashing allocator: no timeline, no temporary file" 0 "$(ls "$TMP" | grep -c crash.tsv)"
	# abort(), as glibc's malloc on a corrupted heap: the same report, exit 3
	LIBFWD_ABORT_AT=500 "$R" --malloc "$TP/libfwd.so" "$TMP/m.wl" >"$TMP/out" 2>"$TMP/err"
	eq "an allocator that aborts: exit 3" 3 "$?"
	grep -q "^trace_run: the replay crashed (SIGABRT, abort()) in stream [0-9,]* (thread [0-9]*), at its call [0-9,]* of [0-9,]*" "$TMP/err" &&
		grep -q "^trace_run: the calls before it: trace_dump -s [0-9]* --from [0-9]* -n 20 $TMP/m.wl$" "$TMP/err" &&
		ok "an allocator that aborts: where, and the command to look" || bad "abort: $(cat "$TMP/err")"
	check "an allocator that aborts: no figures" test ! -s "$TMP/out"
	# its first malloc, in trace_run's check that it is in place, before the replay: the same
	LIBFWD_CRASH_AT=1 "$R" --malloc "$TP/libfwd.so" "$TMP/m.wl" >/dev/null 2>"$TMP/err"
	eq "an allocator that crashes before the replay: exit 3" 3 "$?"
	grep -q "^trace_run: crashed before the replay began (SIGSEGV, a bad memory access)" "$TMP/err" &&
		ok "an allocator that crashes before the replay: says so" || bad "crash at start: $(cat "$TMP/err")"
	LIBFWD_ABORT_AT=500 "$R" --repeat 2 --malloc "$TP/libfwd.so" "$TMP/m.wl" >/dev/null 2>"$TMP/err"
	eq "--repeat with an allocator that aborts: exit 3" 3 "$?"
	grep -q "the replay crashed (SIGABRT, abort())" "$TMP/err" && grep -q "the replay with $TP/libfwd.so failed: exit status 3" "$TMP/err" &&
		ok "--repeat with an allocator that aborts: its report, then the run named" || bad "repeat abort: $(cat "$TMP/err")"
	# killed outright (SIGKILL: no handler runs) replaying a dj/malloc workload, which is
	# translated into a temporary file: none is left
	mkdir -p "$TMP/ktmp"
	LIBFWD_KILL_AT=500 TMPDIR="$TMP/ktmp" "$R" --malloc "$TP/libfwd.so" "$TMP/mdj" >/dev/null 2>&1
	eq "SIGKILL mid-replay: ends by SIGKILL" 137 "$?"
	eq "SIGKILL mid-replay: no temporary workload left" "" "$(ls "$TMP/ktmp")"
	LIBFWD_CRASH_AT=500 "$R" --compare "glibc,$TP/libfwd.so" "$TMP/m.wl" >"$TMP/out" 2>"$TMP/err"
	eq "--compare with a crashing allocator: exit 3" 3 "$?"
	grep -q "the replay crashed (SIGSEGV, a bad memory access) in stream" "$TMP/err" &&
		grep -q "the replay with $TP/libfwd.so failed: exit status 3: its message is above" "$TMP/err" &&
		ok "--compare: the crash report, then the allocator named" || bad "compare crash: $(cat "$TMP/err")"
	grep -q '^wall time (usec) *[0-9,]* *failed$' "$TMP/out" && ok "--compare: the others' figures stand, the crashed column says failed" ||
		bad "compare crash table: $(head -n 2 "$TMP/out")"
	# an allocator that deadlocks (its 500th malloc never returns): after --timeout seconds
	# without a call completed, the replay ends as a crash does, saying where, exit 3; under
	# --compare the other columns' figures print.  (timeout 300: the test fails, not hangs,
	# where the replay would wait for ever.)
	LIBFWD_HANG_AT=500 timeout 300 "$R" --timeout=2 --malloc "$TP/libfwd.so" -l "$TMP/hang.tsv" "$TMP/m.wl" >/dev/null 2>"$TMP/err"
	eq "a deadlocked allocator: exit 3" 3 "$?"
	grep -q "^trace_run: the replay made no progress for 2 s (--timeout): no call completed in stream [0-9,]* (thread [0-9]*), at its call [0-9,]* of [0-9,]*" "$TMP/err" &&
		ok "a deadlocked allocator: says so, and where" || bad "deadlock: $(cat "$TMP/err")"
	at=$(sed -n 's/.*at its call \([0-9,]*\) of .*/\1/p' "$TMP/err" | tr -d ,)
	cmd=$(sed -n 's/^trace_run: the calls before it: //p' "$TMP/err")
	"$BIN"/$cmd | awk -v at="$at" '$2 == at && $3 ~ /^malloc\(/ { f = 1 } END { exit !f }' &&
		ok "a deadlocked allocator: the command given shows its call $at, a malloc" || bad "deadlock hint: '$cmd'"
	eq "a deadlocked allocator: no timeline, no temporary file" 0 "$(ls "$TMP" | grep -c hang.tsv)"
	timeout 300 "$R" --timeout=2 --compare "glibc,$TP/libfwd.so(LIBFWD_HANG_AT=500)" "$TMP/m.wl" >"$TMP/out" 2>"$TMP/err"
	eq "--compare with a deadlocked allocator: exit 3" 3 "$?"
	grep -q "the replay with $TP/libfwd.so(LIBFWD_HANG_AT=500) failed: exit status 3" "$TMP/err" &&
		ok "--compare names the deadlocked column" || bad "compare deadlock: $(cat "$TMP/err")"
	grep -q '^wall time (usec) *[0-9,]* *failed$' "$TMP/out" && ok "--compare: glibc's figures print beside the deadlocked column" ||
		bad "compare deadlock table: $(head -n 2 "$TMP/out")"
	# one that hangs before the replay: in its first malloc (the check that it is in place, a
	# dlopen, on this glibc), or in its constructor, which runs before trace_run's main: an
	# alarm set before the re-execution ends it (its default action: 128+14)
	LIBFWD_HANG_AT=1 timeout 300 "$R" --timeout=2 --malloc "$TP/libfwd.so" "$TMP/m.wl" >/dev/null 2>"$TMP/err"
	eq "an allocator that hangs in its first malloc: exit 3" 3 "$?"
	grep -q "^trace_run: the allocator under test made no progress before the replay began (--timeout)\|^trace_run: the replay made no progress for 2 s" "$TMP/err" &&
		ok "an allocator that hangs in its first malloc: says so" || bad "first malloc: $(cat "$TMP/err")"
	LIBFWD_HANG_AT=start timeout 300 "$R" --timeout=2 --malloc "$TP/libfwd.so" "$TMP/m.wl" >/dev/null 2>&1
	eq "an allocator that hangs in its constructor: ends by SIGALRM" 142 "$?"
	timeout 300 "$R" --timeout=2 --compare "glibc,$TP/libfwd.so(LIBFWD_HANG_AT=start)" "$TMP/m.wl" >"$TMP/out" 2>"$TMP/err"
	eq "--compare, a constructor that hangs: exit 3, the others print" "3 1" "$? $(grep -c '^wall time (usec) *[0-9,]* *failed$' "$TMP/out")"
	grep -q "the replay with $TP/libfwd.so(LIBFWD_HANG_AT=start) failed: killed by signal 14" "$TMP/err" &&
		ok "--compare, a constructor that hangs: named" || bad "constructor: $(cat "$TMP/err")"
	"$R" --timeout=x "$TMP/m.wl" 2>/dev/null; eq "--timeout=x: exit 2" 2 "$?"
	LIBFWD_CRASH_AT=500 "$R" --compare "glibc,$TP/libfwd.so" --csv "$TMP/m.wl" >"$TMP/out" 2>/dev/null
	eq "--compare --csv with a crashing allocator: exit 3, glibc's row alone" "3 glibc" "$? $(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "allocator") c = i } NR > 1 { print $c }' "$TMP/out" | xargs)"
	mkdir -p "$TMP/sp ace"; cp "$TP/libfwd.so" "$TMP/sp ace/"
	"$R" --malloc "$TMP/sp ace/libfwd.so" "$TMP/m.wl" >/dev/null 2>"$TMP/err"; eq "a library path with a space: exit 3" 3 "$?"
	grep -q 'LD_PRELOAD cannot name a path with a space' "$TMP/err" && ok "a path with a space: says why" || bad "space: $(cat "$TMP/err")"
	w="$TMP/q\"b\\c"; mkdir -p "$w"; cp "$TP/libfwd.so" "$w/"
	"$R" --compare "glibc,$w/libfwd.so" --csv "$TMP/m.wl" >"$TMP/q.csv"; eq "--compare --csv: exit 0" 0 "$?"
	eq "--compare --csv: one header, a row an allocator" "1 3" "$(grep -c '^cycles,' "$TMP/q.csv") $(wc -l <"$TMP/q.csv")"
	"$R" --compare "glibc,$w/libfwd.so" --json "$TMP/m.wl" >"$TMP/q.json"; eq "--compare --json: exit 0" 0 "$?"
	if command -v python3 >/dev/null; then
		eq "--compare --csv: the odd path read back" "$w/libfwd.so" "$(python3 -c 'import csv, sys; print(list(csv.DictReader(open(sys.argv[1])))[1]["allocator"])' "$TMP/q.csv")"
		eq "--compare --json: one array, the odd path read back" "$w/libfwd.so" "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[1]["allocator"])' "$TMP/q.json")"
	else
		echo "# python3 not installed: the CSV and JSON are not parsed back"
	fi
fi

# --- 80 columns: on a terminal the table comes in groups of columns that fit, each under the
# labels, the notes broken at spaces; piped, one table whatever its width
cols4='glibc,glibc(M_ARENA_MAX=1),glibc(M_TOP_PAD=65536),glibc(M_MMAP_MAX=0)'
# (the table alone: standard error, its progress line and any warning, goes elsewhere)
"$TP/ptyrun" 80 sh -c 'exec "$@" 2>/dev/null' sh "$R" --compare "$cols4" "$TMP/m.wl" | tr -d '\r' >"$TMP/tty.txt"
widest=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$TMP/tty.txt")
check "a terminal of 80 columns: no line wider than 79 ($widest)" test "$widest" -le 79
eq "... every column there" 4 "$(sed -n 's/^(a single run each)//p' "$TMP/tty.txt" | tr -s ' ' '\n' | grep -c '^glibc')"
eq "... the labels once a group" 2 "$(grep -c '^wall time (usec)' "$TMP/tty.txt")"
"$R" --compare "$cols4" "$TMP/m.wl" >"$TMP/pipe.txt" 2>/dev/null
eq "piped: one table" 1 "$(grep -c '^wall time (usec)' "$TMP/pipe.txt")"
check "a single run each: the note says so, not a median of 1 run" \
	grep -q '^(a single run each, in fresh processes' "$TMP/pipe.txt"
check "piped: as wide as it is ($(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$TMP/pipe.txt") columns)" \
	test "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$TMP/pipe.txt")" -gt 80
finish
