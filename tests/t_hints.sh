# The likely slips get the next step, with the user's own file names, and the commands given
# work as printed: a trace given to trace_run, a text file or a glibc mtrace() log given to a
# tool that reads traces, a mistyped allocator (a usage error, exit 2, with the name meant), a
# trace directory mtracectl cannot write in (refused, exit 125, before the program runs), and
# the end of a capture (the command that makes a workload of the trace and replays it).
. tests/lib.sh
cd "$TMP"
traced "$TMP/x" "$TP/xthread" 2 200 >/dev/null
T=$(one_file "$TMP/x.*")
t=$(basename "$T")
gzip -c "$T" >"$TMP/packed.gz"

# --- trace_run TRACE: a trace, and the commands that make a workload of it and replay that
"$BIN/trace_run" "$t" >/dev/null 2>"$TMP/err"; eq "trace_run TRACE: exit 1" 1 "$?"
want="trace_run: $t: offset 0: a trace, not a workload: make one of it, then replay that (trace2wl xthread.wl $t && trace_run xthread.wl)"
eq "trace_run TRACE: the commands, with its names" "$want" "$(cat "$TMP/err")"
cmd=$(sed -n 's/.*replay that (\(.*\))$/\1/p' "$TMP/err")
sh -c "PATH='$BIN':\$PATH; $cmd" >"$TMP/out" 2>&1; eq "the commands as printed: exit 0" 0 "$?"
grep -q "usec wall time$" "$TMP/out" && ok "the commands as printed: a replay" || bad "the commands as printed: $(head -n 3 "$TMP/out")"
"$BIN/trace_run" packed.gz >/dev/null 2>"$TMP/err"; eq "trace_run TRACE.gz: exit 1" 1 "$?"
eq "trace_run TRACE.gz: the commands" "trace_run: packed.gz: offset 0 of its decompressed data: a trace, not a workload: make one of it, then replay that (trace2wl xthread.wl packed.gz && trace_run xthread.wl)" "$(cat "$TMP/err")"
cp "$T" "$TMP/my trace"
"$BIN/trace_run" "my trace" >/dev/null 2>"$TMP/err"
grep -q "(trace2wl xthread.wl 'my trace' && trace_run xthread.wl)$" "$TMP/err" && ok "a name with a space: quoted" || bad "quoted: $(cat "$TMP/err")"

# --- text: named as text, not "bad magic" or "truncated header"; an mtrace() log as such
printf 'hello\n' >"$TMP/short.txt"
cp "$ROOT/README.md" "$TMP/long.txt"
for f in short.txt long.txt; do
	"$BIN/trace_dump" "$f" >/dev/null 2>"$TMP/err"; eq "trace_dump $f: exit 1" 1 "$?"
	eq "trace_dump $f: not a trace or a workload" "trace_dump: $f: offset 0: text, not a trace or a workload" "$(cat "$TMP/err")"
done
"$BIN/trace2wl" "$TMP/o.wl" short.txt 2>"$TMP/err"; eq "trace2wl text: exit 1" 1 "$?"
eq "trace2wl text: not a trace" "trace2wl: short.txt: offset 0: text, not a trace" "$(cat "$TMP/err")"
"$BIN/trace_run" short.txt 2>"$TMP/err"; eq "trace_run text: exit 1" 1 "$?"
eq "trace_run text: not a workload" "trace_run: short.txt: offset 0: text, not a workload" "$(cat "$TMP/err")"
printf '= Start\n@ ./prog:[0x40113e] + 0x4052a0 0x10\n- 0x4052a0\n= End\n' >"$TMP/app.log"
"$BIN/trace_dump" app.log >/dev/null 2>"$TMP/err"; eq "trace_dump LOG: exit 1" 1 "$?"
eq "trace_dump LOG: trace_import reads it" "trace_dump: app.log: offset 0: a glibc mtrace() log, not a trace or a workload: trace_import makes a trace of it (trace_import app.log app.mtrace)" "$(cat "$TMP/err")"
cmd=$(sed -n 's/.*makes a trace of it (\(.*\))$/\1/p' "$TMP/err")
sh -c "PATH='$BIN':\$PATH; $cmd" 2>&1; eq "the trace_import command as printed: exit 0" 0 "$?"
"$BIN/trace_dump" -c app.mtrace >/dev/null; eq "its trace reads" 0 "$?"
# a log named as README names it, LOG.mtrace: the trace to make is another file
cp "$TMP/app.log" "$TMP/app2.mtrace"
"$BIN/trace_stats" app2.mtrace >/dev/null 2>"$TMP/err"
cmd=$(sed -n 's/.*makes a trace of it (\(.*\))$/\1/p' "$TMP/err")
eq "trace_stats LOG.mtrace: trace_import into another file" "trace_import app2.mtrace app2.trace" "$cmd"
sh -c "PATH='$BIN':\$PATH; $cmd" 2>&1; eq "... which works: exit 0" 0 "$?"

# --- a mistyped allocator: exit 2, the known names and the one meant
"$BIN/trace2wl" -q "$TMP/x.wl" "$T"
"$BIN/trace_run" -m jemaloc x.wl >/dev/null 2>"$TMP/err"; eq "-m jemaloc: exit 2" 2 "$?"
grep -q "^trace_run: --malloc jemaloc: no allocator of that name; did you mean jemalloc? (known: glibc, jemalloc, tcmalloc, mimalloc, traced, or the path of a shared object)$" "$TMP/err" &&
	ok "-m jemaloc: did you mean jemalloc, and the known names" || bad "-m jemaloc: $(cat "$TMP/err")"
"$BIN/trace_run" -m nosuch x.wl >/dev/null 2>"$TMP/err"; eq "-m nosuch: exit 2" 2 "$?"
grep -q "no allocator of that name (known: " "$TMP/err" && ok "-m nosuch: no guess, the known names" || bad "-m nosuch: $(cat "$TMP/err")"
"$BIN/trace_run" -C glibc,tcmaloc x.wl >/dev/null 2>"$TMP/err"; eq "--compare glibc,tcmaloc: exit 2" 2 "$?"
grep -q "^trace_run: --compare: 'tcmaloc': no allocator of that name; did you mean tcmalloc?" "$TMP/err" &&
	ok "--compare: the column's name meant" || bad "--compare tcmaloc: $(cat "$TMP/err")"

# --- mtracectl: a trace directory that cannot take files is refused before the program runs
for o in "$TMP/nonexistent/dir/x" "$TMP/short.txt/x"; do
	"$BIN/mtracectl" -o "$o" -- sh -c "touch '$TMP/ran'" 2>"$TMP/err"; eq "-o $o: exit 125" 125 "$?"
	check "-o $o: the program did not run" test ! -e "$TMP/ran"
	grep -q "^mtracectl: --output $o: no trace can be written in $(dirname "$o"): .* (the program was not run)$" "$TMP/err" &&
		ok "-o $o: says where and why" || bad "-o $o: $(cat "$TMP/err")"
done
# a program that cannot be run: said once, as a shell says it, with no report of traces after
for p in "$TMP/nonexistent/prog:127" "$TMP/short.txt:126"; do
	prog=${p%:*} want=${p##*:}
	"$BIN/mtracectl" -o "$TMP/nr" -- "$prog" 2>"$TMP/err"; eq "$prog: exit $want" "$want" "$?"
	eq "$prog: one line, why it did not run" "mtracectl: cannot run $prog" \
		"$(cut -d: -f1-2 "$TMP/err")"
done
MTRACE_CTL_FILE="$TMP/nonexistent/y" "$BIN/mtracectl" -- sh -c "touch '$TMP/ran'" 2>"$TMP/err"; eq "MTRACE_CTL_FILE in a missing directory: exit 125" 125 "$?"
grep -q "^mtracectl: MTRACE_CTL_FILE=$TMP/nonexistent/y: no trace can be written in $TMP/nonexistent: No such file or directory" "$TMP/err" &&
	ok "MTRACE_CTL_FILE: named as such" || bad "MTRACE_CTL_FILE: $(cat "$TMP/err")"
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	# a directory others cannot write in, as nobody (mtracectl and its library copied where
	# nobody reaches them: the build may lie in a private directory)
	mkdir -p "$TMP/pub/bin" "$TMP/pub/lib" "$TMP/ro"; cp "$BIN/mtracectl" "$TMP/pub/bin/"; cp "$LIB" "$TMP/pub/lib/"
	chmod -R a+rX "$TMP/pub"; chmod 755 "$TMP" "$TMP/ro"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$TMP/pub/bin/mtracectl" -o "$TMP/ro/t" -- true 2>"$TMP/err"
	eq "a directory nobody may write in: exit 125" 125 "$?"
	grep -q "no trace can be written in $TMP/ro: Permission denied (the program was not run)$" "$TMP/err" &&
		ok "permission denied: said" || bad "permission denied: $(cat "$TMP/err")"
else
	echo "# not root or no setpriv: the permission-denied case is not run"
fi

# --- the end of a capture: the next step, which works as printed; not with -q
"$BIN/mtracectl" -o "$TMP/c" -- "$TP/xthread" 2 200 >/dev/null 2>"$TMP/err"; eq "capture: exit 0" 0 "$?"
c=$(one_file "$TMP/c.*")
eq "capture: the last line is the next step" "mtracectl: next: trace2wl xthread.wl $c && trace_run xthread.wl" "$(tail -n 1 "$TMP/err")"
rm -f xthread.wl
cmd=$(tail -n 1 "$TMP/err" | sed 's/^mtracectl: next: //')
sh -c "PATH='$BIN':\$PATH; $cmd" >"$TMP/out" 2>&1; eq "the next step as printed: exit 0" 0 "$?"
"$BIN/mtracectl" -q -o "$TMP/q" -- "$TP/xthread" 2 200 >/dev/null 2>"$TMP/err"
eq "-q: nothing said" "" "$(cat "$TMP/err")"
"$BIN/mtracectl" -o "$TMP/f" -- "$TP/forker" fork >/dev/null 2>"$TMP/err"
most=$(grep '^mtracectl: pid' "$TMP/err" | sort -t, -k2 -n -r | sed -n 's/^mtracectl: pid [0-9]* ([^)]*): \([^,]*\), \([0-9,]*\) calls.*/\2 \1/p' | tr -d , | sort -n -r | head -n 1 | cut -d' ' -f2)
grep -q "^mtracectl: next: a workload per trace (one process each); of the one with the most calls: trace2wl forker.wl $most && trace_run forker.wl$" "$TMP/err" &&
	ok "several traces: one workload per trace, the example the one with the most calls" || bad "several traces: $(cat "$TMP/err")"
# a program that wrote a title over its arguments (redis-server's "redis-server *:6379") is
# named by its first word, in the list and in the workload's name: not 'retitle *:7392.wl'
"$BIN/mtracectl" -o "$TMP/t" -- "$TP/retitle" xxxxxxxxxxxxxxxxxxxxxxxx >/dev/null 2>"$TMP/err"
eq "a title over the arguments: exit 0" 0 "$?"
eq "a title over the arguments: both processes listed by the program's name" 2 \
	"$(grep -c "^mtracectl: pid [0-9]* (retitle): $TMP/t\.[0-9]*, " "$TMP/err")"
grep -q "^mtracectl: next: .* trace2wl retitle\.wl $TMP/t\.[0-9]* && trace_run retitle\.wl$" \
	"$TMP/err" &&
	ok "a title over the arguments: the workload named after the program" ||
	bad "a title over the arguments: $(cat "$TMP/err")"
finish
