# The mtracectl wrapper: runs the program traced, lists every trace, passes the exit status on.
. tests/lib.sh
"$BIN/mtracectl" -o "$TMP/w" -- "$TP/forker" fork >"$TMP/out" 2>"$TMP/err"
eq "exit status of the program" 0 "$?"
eq "lists both traces (parent and child)" 2 "$(grep -c "^mtracectl: pid [0-9]* (forker): $TMP/w\.[0-9]*, " "$TMP/err")"
# each with its calls: the writer's count from the header, or, for a trace it did not close
# (_exit), counted by reading; either way what the trace holds
listed_calls() { # TRACE: the calls mtracectl's list gives it
	grep "): $1, " "$TMP/err" | sed -n 's/.*, \([0-9,]*\) calls*, [0-9,]* bytes.*/\1/p' | tr -d ,
}
for t in "$TMP"/w.*; do eq "listed with its calls: $(basename "$t")" "$(count "$t" calls)" "$(listed_calls "$t")"; done
"$BIN/mtracectl" -o "$TMP/ex" -- "$TP/dies" _exit >/dev/null 2>"$TMP/err"
t=$(one_file "$TMP/ex.*")
"$BIN/trace_dump" -H "$t" | grep -q '^# status    finished' && ok "_exit: the trace is finished, as at exit()" || bad "_exit: $("$BIN/trace_dump" -H "$t" | grep '^# status')"
eq "_exit: its calls counted all the same" "$(count "$t" calls)" "$(listed_calls "$t")"
grep -q 'mtracectl: writing' "$TMP/err" && bad "tracer chatter in the program's stderr" || ok "no tracer chatter in the program's stderr"
"$BIN/mtracectl" -o "$TMP/x" -- sh -c 'exit 3' 2>/dev/null; eq "exit status 3 passed on" 3 "$?"
"$BIN/mtracectl" -o "$TMP/x" -- "$TP/dies" term 2>"$TMP/err"; eq "killed by SIGTERM: 128+15" 143 "$?"
grep -q 'killed by signal 15' "$TMP/err" && ok "says the program was killed" || bad "signal message"
# a pipeline's writer ended by SIGPIPE is no news (as in a shell): 141, and no message
"$BIN/mtracectl" -o "$TMP/x" -- sh -c 'kill -PIPE $$' 2>"$TMP/err"; eq "killed by SIGPIPE: 128+13" 141 "$?"
grep -q 'killed by signal' "$TMP/err" && bad "SIGPIPE reported: $(cat "$TMP/err")" || ok "SIGPIPE: no message"
"$BIN/mtracectl" -o "$TMP/x" -- /nonexistent/prog 2>"$TMP/err"; eq "missing program: 127" 127 "$?"
if [ -e "$TP/static_hello" ] && ! [ -e "$TP/static_hello.nostatic" ]; then
	"$BIN/mtracectl" -o "$TMP/x" -- "$TP/static_hello" >/dev/null 2>"$TMP/err"; eq "static program: 126" 126 "$?"
	grep -q 'statically linked' "$TMP/err" && ok "says why a static program cannot be traced" || bad "static message"
else
	echo "# no static libc here: the static-program case is not run"
fi
# a relative -o is where mtracectl ran, for every process, even one that moved elsewhere first
mkdir -p "$TMP/here" "$TMP/there"
( cd "$TMP/here" && "$BIN/mtracectl" -o rel -- sh -c "cd '$TMP/there' && '$TP/forker' fork" >/dev/null 2>"$TMP/err" )
eq "relative -o: every trace where mtracectl ran" 3 "$(ls "$TMP/here"/rel.* 2>/dev/null | wc -l)"
eq "relative -o: none where the program moved" 0 "$(ls "$TMP/there" | wc -l)"
eq "relative -o: all listed, by absolute name" 3 "$(grep -c "^mtracectl: pid [0-9]* ([a-z]*): $TMP/here/rel\.[0-9]*, " "$TMP/err")"
"$BIN/mtracectl" -o '' -- true 2>/dev/null; eq "-o '': a usage error, 2" 2 "$?"
# the preload library under a path with a space: ld.so would split LD_PRELOAD there and only
# warn (the program untraced, "no trace was written"); refused with the way round it
mkdir -p "$TMP/sp ace"; cp "$LIB" "$TMP/sp ace/"
"$BIN/mtracectl" --lib "$TMP/sp ace/libmtracectl.so" -o "$TMP/sp" -- true 2>"$TMP/err"; eq "library path with a space: 125" 125 "$?"
grep -q 'LD_PRELOAD cannot name a path with a space' "$TMP/err" && ok "library path with a space: says why" || bad "space: $(cat "$TMP/err")"
ln -s "$TMP/sp ace/libmtracectl.so" "$TMP/plain.so"
"$BIN/mtracectl" --lib "$TMP/plain.so" -o "$TMP/sp" -- true 2>/dev/null; eq "a link from a plain path: traced" 1 "$(ls "$TMP"/sp.* 2>/dev/null | wc -l)"
"$BIN/mtracectl" -q -o "$TMP/q" -- true 2>"$TMP/err"; eq "-q: nothing on stderr" "" "$(cat "$TMP/err")"
"$BIN/mtracectl" -d -P -o "$TMP/dp" -- "$TP/entry_points" --count >/dev/null 2>&1
f=$(one_file "$TMP/dp.*")
"$BIN/trace_dump" "$f" >"$TMP/dump"
grep -q 'durations: every call' "$TMP/dump" && ok "-d: header says durations" || bad "-d header"
ge "-d: malloc records carry durations" 7 "$(grep -c 'malloc(10001) = .* took [0-9]* ns' "$TMP/dump")"
grep -q '^# exe       (left out on request)' "$TMP/dump" && ok "-P: exe and cmdline left out" || bad "-P"
grep -q 'entry_points' "$TMP/dump" && bad "-P: program name still in the dump" || ok "-P: program name nowhere in the dump"
"$BIN/mtracectl" -o "$TMP/pt" -- "$TP/popcheck" 400000 >"$TMP/out" 2>/dev/null
eq "a long trace: the populating thread" "threads 1" "$(sed -n 1p "$TMP/out")"
"$BIN/mtracectl" --no-thread -o "$TMP/nt" -- "$TP/popcheck" 400000 >"$TMP/out" 2>/dev/null
eq "--no-thread: no populating thread" "threads 0" "$(sed -n 1p "$TMP/out")"
eq "--no-thread: the calls all there" 400000 "$(count "$(one_file "$TMP/nt.*")" malloc 1005)"
# -o DIR (or DIR/, or MTRACE_CTL_FILE=DIR/): the traces go into DIR as mtrace.out.<pid>,
# not beside it, nor as hidden files DIR/.<pid>
mkdir "$TMP/into"
"$BIN/mtracectl" -q -o "$TMP/into" -- "$TP/forker" fork >/dev/null
"$BIN/mtracectl" -q -o "$TMP/into/" -- "$TP/forker" fork >/dev/null
MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/into/" LD_PRELOAD=$LIB "$TP/forker" fork >/dev/null
eq "-o DIR, DIR/, MTRACE_CTL_FILE=DIR/: 6 traces in DIR" 6 "$(ls "$TMP"/into/mtrace.out.* | grep -c .)"
eq "... and no other file" 6 "$(ls -A "$TMP/into" | grep -c .)"
# a script that runs many programs before the one of interest (as pyenv's shims do): many
# traces are summed up in a line, the largest named; --only traces that program alone
MB="$ROOT/$B/bench/mbench"
script='for i in 1 2 3 4 5 6 7 8 9 10; do /bin/true; done; exec "$0" 1 20000'
mkdir "$TMP/many" "$TMP/only"
"$BIN/mtracectl" -o "$TMP/many/t" -- sh -c "$script" "$MB" >/dev/null 2>"$TMP/many.err"
eq "a script of 12 processes: 12 traces" 12 "$(ls "$TMP"/many/t.* | grep -c .)"
eq "... said in three lines" 3 "$(wc -l <"$TMP/many.err")"
grep -q '^mtracectl: 12 traces, [0-9,]* calls in all: 10 true, 1 [a-z]*sh, 1 mbench (--only=PROGRAM traces that one alone)$' "$TMP/many.err" &&
	ok "... the totals by program" || bad "... $(head -n 1 "$TMP/many.err")"
grep -q '^mtracectl: the most calls: pid [0-9]* (mbench): ' "$TMP/many.err" && ok "... the largest named" || bad "... $(sed -n 2p "$TMP/many.err")"
"$BIN/mtracectl" -o "$TMP/only/t" --only=mbench -- sh -c "$script" "$MB" >/dev/null 2>"$TMP/only.err"
eq "--only=mbench: mbench's trace alone" 1 "$(ls "$TMP"/only/t.* | grep -c .)"
ge "... with its calls" 20000 "$(count "$(one_file "$TMP/only/t.*")" calls)"
"$BIN/mtracectl" --only=a,,b -- true 2>/dev/null; eq "--only with an empty name: exit 2" 2 "$?"
# one count of calls in every tool: an aborted program's unfinished trace, counted by
# mtracectl as trace_dump counts it (its memory samples are no calls)
MTRACE_CTL_MEMORY_MS=1 "$BIN/mtracectl" -o "$TMP/ab" -- "$TP/dies" abort >/dev/null 2>"$TMP/ab.err"
ab=$(one_file "$TMP/ab.[0-9]*")
eq "an aborted program: mtracectl counts the calls trace_dump does" \
	"$("$BIN/trace_dump" -c "$ab" | sed -n 's/.*valid trace: \([0-9,]*\) calls.*/\1/p')" \
	"$(sed -n 's/^mtracectl: pid [0-9]* (dies): [^,]*, \([0-9,]*\) calls.*/\1/p' "$TMP/ab.err")"
# a program run through a link (as redis-server is redis-check-rdb): named as run, in the list,
# the next step and --only; an empty argument kept in the header's command line
ln -s "$MB" "$TMP/svc-link"
"$BIN/mtracectl" -o "$TMP/ln" --only=svc-link -- "$TMP/svc-link" 1 100 '' "it's" >/dev/null 2>"$TMP/ln.err"
grep -q "^mtracectl: pid [0-9]* (svc-link): " "$TMP/ln.err" && ok "a link: named as it was run" || bad "link: $(head -n 1 "$TMP/ln.err")"
grep -q "^mtracectl: next: trace2wl svc-link.wl " "$TMP/ln.err" && ok "... in the next step too" || bad "link next: $(tail -n 1 "$TMP/ln.err")"
eq "... its command line quoted as a shell takes it back" "# cmdline   $TMP/svc-link 1 100 '' 'it'\\''s'" \
	"$("$BIN/trace_dump" -H "$(one_file "$TMP/ln.[0-9]*")" | grep '^# cmdline')"
"$BIN/mtracectl" --help | grep -q '^Usage: mtracectl' && ok "--help" || bad "--help"
"$BIN/mtracectl" --version | grep -q '^mtracectl (mtrace) ' && ok "--version" || bad "--version"
"$BIN/mtracectl" 2>/dev/null; eq "no program: a usage error, 2" 2 "$?"
finish
