# tier: slow (valgrind runs a program some 50 times slower)
# A traced program under valgrind (LD_PRELOAD=libmtracectl.so valgrind PROGRAM) ends as it does
# under valgrind untraced, with leak checking too.  The tracer reads no TSC there: valgrind's
# CPUID claims RDTSCP whatever the host has, and it cannot run RDTSCP on a host without it (the
# program died of SIGILL).  A program that dies of a signal leaves the trace's windows mapped,
# and the leak check reads all the memory it may: past the file's end a window is
# inaccessible, not 256 MiB of SIGBUS the check crawled through a word at a time, every signal
# blocked.  Slow: each case is a valgrind run (a few seconds each, under generous limits).
. tests/lib.sh
command -v valgrind >/dev/null 2>&1 || skip "valgrind not installed: nothing to run (apt-get install valgrind)"
# nouserintercepts: valgrind replaces malloc in libc only, so the tracer's wrappers are what run
VG="valgrind -q --leak-check=full --soname-synonyms=somalloc=nouserintercepts"
# run NAME PROGRAM ARGS...: under valgrind, untraced then traced; the exit statuses compared
# (sets u, the untraced status, and f, the program's trace)
run() {
	name=$1; shift
	timeout -k 5 120 $VG "$@" >"$TMP/$name.u.out" 2>"$TMP/$name.u.err"
	u=$?
	mkdir "$TMP/$name"
	timeout -k 5 120 env MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/$name/t" LD_PRELOAD="$LIB" \
		$VG "$@" >"$TMP/$name.t.out" 2>"$TMP/$name.t.err"
	t=$?
	eq "$name: exit status traced under valgrind as untraced ($u)" "$u" "$t"
	check "$name: it printed what it prints untraced" cmp "$TMP/$name.u.out" "$TMP/$name.t.out"
	# the program's own trace (valgrind's launcher, a shell script, traces itself first)
	f=""
	for x in "$TMP/$name"/t.*; do
		"$BIN/trace_dump" -H "$x" | grep -q "^# exe  *$1\$" && f=$x
	done
	check "$name: the program wrote a trace" test -n "$f"
	[ -n "$f" ] || return
	"$BIN/trace_dump" -c "$f" >"$TMP/$name.chk"
	eq "$name: its trace validates" 0 "$?"
	case $(uname -m) in x86_64|i?86)
		"$BIN/trace_dump" -H "$f" | grep -q "^# clock  *CLOCK_MONOTONIC" &&
			ok "$name: no TSC read under valgrind" ||
			bad "$name: $("$BIN/trace_dump" -H "$f" | grep clock)" ;;
	esac
}
run bigalloc "$TP/bigalloc" 2000
ge "bigalloc: the program's calls traced" 2000 "$(count "$f" calls)"
# dies of SIGILL (on x86; SIGTRAP elsewhere) with a block still live, so the leak check runs
run trap "$TP/dies" trap
[ "$u" -gt 128 ] && ok "trap: it died of a signal ($u)" || bad "trap: untraced exit status $u"
# memcheck on the tracer's wrappers: no invalid access, every call traced
# (not entry_points: valgrind itself aborts on pvalloc)
# nouserintercepts: valgrind replaces malloc in libc only, so our wrappers are what runs
MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/vg" LD_PRELOAD="$LIB" timeout -k 10 900 valgrind --quiet \
	--error-exitcode=9 --soname-synonyms=somalloc=nouserintercepts "$TP/bigalloc" 20000 \
	>"$TMP/vg.out" 2>"$TMP/vg.err"
eq "valgrind memcheck: no errors" 0 "$?"
grep -q 'Invalid\|uninitialised' "$TMP/vg.err" && bad "valgrind: $(head -n 5 "$TMP/vg.err")" || ok "valgrind: no invalid access reported"
most=0
for f in "$TMP"/vg.*[0-9]; do [ -e "$f" ] || continue; c=$(count "$f" calls); [ "$c" -gt "$most" ] && most=$c; done
ge "valgrind: the program's calls traced" 20000 "$most"
finish
