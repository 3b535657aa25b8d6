# Capture catalogue: hostile programs behave exactly as untraced (exit status, output) and give
# valid traces, with the calls they are known to make.
. tests/lib.sh
# same NAME COMMAND...: untraced vs traced; every trace written must validate
same() {
	name=$1; shift
	timeout -s KILL 300 "$@" >"$TMP/$name.plain" 2>/dev/null; rc1=$?
	MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/$name" LD_PRELOAD="$LIB" timeout -s KILL 300 "$@" >"$TMP/$name.traced" 2>"$TMP/$name.err"; rc2=$?
	eq "$name: same exit status" "$rc1" "$rc2"
	check "$name: same output" cmp "$TMP/$name.plain" "$TMP/$name.traced"
	n=0 invalid=0
	for f in "$TMP/$name".*[0-9]; do
		[ -e "$f" ] || continue
		n=$((n + 1))
		"$BIN/trace_dump" -c "$f" >/dev/null || invalid=$((invalid + 1))
	done
	ge "$name: traces written" 1 "$n"
	eq "$name: all $n traces valid" 0 "$invalid"
}
# trace_of NAME PROGRAM: the trace of the process that ran PROGRAM
trace_of() { for f in "$TMP/$1".*[0-9]; do case "$(count "$f" exe)" in */"$2") echo "$f"; return ;; esac; done; }

same dlopen "$TP/catalogue" dlopen "$TP/libctor.so"
t=$(trace_of dlopen catalogue)
eq "dlopen: constructor's 2 malloc(2001)" 2 "$(count "$t" malloc 2001)"
eq "dlopen: destructor's malloc(2002)" 1 "$(count "$t" malloc 2002)"
eq "dlopen: the library's malloc(2003), freed by the program" 1 "$(count "$t" malloc 2003)"
eq "dlopen: the program's malloc(2004), freed by the library" 1 "$(count "$t" malloc 2004)"

# a bare name found through the program's own RUNPATH ($ORIGIN): our dlopen must keep glibc
# seeing the program as the caller
same dlopen_bare "$TP/catalogue" dlopen libctor.so
grep -q 'dlopen ok' "$TMP/dlopen_bare.traced" && ok "dlopen by bare name through the caller's RUNPATH works traced" || bad "bare dlopen: $(cat "$TMP/dlopen_bare.traced")"

same deepbind "$TP/catalogue" deepbind "$TP/libctor.so"
grep -q 'RTLD_DEEPBIND' "$TMP/deepbind.err" && ok "deepbind: one warning names RTLD_DEEPBIND: $(cat "$TMP/deepbind.err")" || bad "deepbind warning: $(cat "$TMP/deepbind.err")"
eq "deepbind: exactly one warning line" 1 "$(grep -c 'mtracectl' "$TMP/deepbind.err")"
eq "deepbind: the program's own malloc(2004) traced" 1 "$(count "$(trace_of deepbind catalogue)" malloc 2004)"

same signal "$TP/catalogue" signal
same longjmp "$TP/catalogue" longjmp
same spawn "$TP/catalogue" spawn
ge "spawn: the spawned shells traced too" 3 "$(ls "$TMP"/spawn.*[0-9] | wc -l)"
same envchurn "$TP/catalogue" envchurn
eq "envchurn: 3000 malloc(2007) with the environment churning" 3000 "$(count "$(trace_of envchurn catalogue)" malloc 2007)"
same mallopt "$TP/catalogue" mallopt
"$BIN/trace_dump" -H "$(trace_of mallopt catalogue)" | grep -q '^# settings  M_TOP_PAD=65536 M_ARENA_MAX=1$' &&
	ok "mallopt: the program's settings in the header, each at its last value, nothing failed" ||
	bad "mallopt header: $("$BIN/trace_dump" -H "$(trace_of mallopt catalogue)" | grep settings)"
"$BIN/trace2wl" -q "$TMP/mallopt.wl" "$(trace_of mallopt catalogue)"
"$BIN/trace_run" --compare 'glibc' "$TMP/mallopt.wl" | grep -q -F -- "a column 'traced', glibc(M_TOP_PAD=65536 M_ARENA_MAX=1), replays it so" &&
	ok "mallopt: trace_run names the column that replays it as it ran" || bad "mallopt footnote: $("$BIN/trace_run" --compare glibc "$TMP/mallopt.wl" | tail -n 1)"
same tls "$TP/cxx_catalogue"
ge "thread_local destructors: their allocations traced" 8 "$(count "$(trace_of tls cxx_catalogue)" malloc 2010)"
same threads1000 "$TP/threads" 1000 100 5
eq "1000 threads in waves: every malloc(777)" 5000 "$(count "$(trace_of threads1000 threads)" malloc 777)"
same firstfd "$TP/fdcheck"
grep -q 'first open returned 3' "$TMP/firstfd.traced" && ok "the program's first open() still returns 3" || bad "first fd: $(cat "$TMP/firstfd.traced")"

# a daemon closes every descriptor, its log gets fd 0 and 2: nothing of ours in the log, and
# tracing goes on to the end
MTRACE_CTL_FILE="$TMP/daemon" LD_PRELOAD="$LIB" "$TP/fdcheck" "$TMP/daemon.log" >/dev/null 2>&1
eq "daemon: exit 0" 0 "$?"
eq "daemon: its log holds only its own lines" "daemon log line
daemon done" "$(cat "$TMP/daemon.log")"
t=$(one_file "$TMP/daemon.*[0-9]")
eq "daemon: traced to the end though it closed our descriptor" 1 "$(count "$t" finished)"
ge "daemon: every call" 600000 "$(count "$t" calls)"

# the program's descriptors are its own, exactly: none of ours shows in /proc/self/fd (a
# program that checks for leaked descriptors, python's test_subprocess) at any time, in a fork
# child, or in a program it execs; also under a descriptor limit too low for high numbers
"$TP/fdlist" >"$TMP/fd.plain"
traced "$TMP/fdl" "$TP/fdlist" >"$TMP/fd.traced"
check "descriptors: the same as untraced, through the run, a fork and an exec ($(tr '\n' ';' <"$TMP/fd.traced"))" cmp -s "$TMP/fd.plain" "$TMP/fd.traced"
( ulimit -n 16; traced "$TMP/fdn" "$TP/fdlist" ) >"$TMP/fd.low"
( ulimit -n 16; "$TP/fdlist" ) >"$TMP/fd.lowplain"
check "descriptors under ulimit -n 16: the same as untraced" cmp -s "$TMP/fd.lowplain" "$TMP/fd.low"
eq "descriptors: the traces are all there" 3 "$(ls "$TMP"/fdl.* | wc -l)"
t=$(ls -S "$TMP"/fdl.* | head -n 1)
ge "descriptors: every call of the parent" 600000 "$(count "$t" calls)"
eq "descriptors: its trace finished" 1 "$(count "$t" finished)"

# freeing a block allocated before tracing started
"$TP/api_pretrace" "$TMP/pre" >/dev/null 2>&1; eq "pre-trace free: exit 0" 0 "$?"
"$BIN/trace2wl" "$TMP/pre.wl" "$(one_file "$TMP/pre.*[0-9]")" 2>"$TMP/pre.sum"
grep -q 'skipped: 1 frees' "$TMP/pre.sum" && ok "pre-trace free: counted and skipped by trace2wl" || bad "pre-trace: $(cat "$TMP/pre.sum")"

finish
