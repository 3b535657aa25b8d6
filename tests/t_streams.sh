# Inputs that can be read only once: a named pipe (what bash's <(...) gives) works wherever a
# file does - plain or compressed, by every tool, also those that read their input twice
# (trace_plot, trace_pack, trace_run copy it first) - and names itself in messages.
. tests/lib.sh
traced "$TMP/m" "$ROOT/$B/bench/mbench" 2 20000 >/dev/null
T=$(one_file "$TMP/m.*")
"$BIN/trace2wl" -q "$TMP/m.wl" "$T"
mkfifo "$TMP/fifo"
mkdir "$TMP/tmpd"
export TMPDIR="$TMP/tmpd"
# feed FILE [FILTER]: write FILE (through FILTER) into the FIFO in the background, for the next
# command; that one runs under a time limit, and a feed it left unread is ended (a tool that
# refuses the FIFO must fail its checks, not hang the test or feed the next one)
feed() {
	if [ $# -eq 2 ]; then $2 -c "$1" >"$TMP/fifo" & else cat "$1" >"$TMP/fifo" & fi
	FEEDER=$!
}
fed() { rc=$?; kill $FEEDER 2>/dev/null; wait $FEEDER 2>/dev/null; return $rc; }
calls=$("$BIN/trace_dump" -c "$T" | sed 's/.*: \([0-9,]*\) calls.*/\1/')

feed "$T"
out=$(timeout 60 "$BIN/trace_dump" -c "$TMP/fifo")
fed
eq "trace_dump -c of a FIFO: every call" "$TMP/fifo: valid trace: $calls calls" "$(echo "$out" | sed "s/ calls from .*/ calls/")"
if command -v gzip >/dev/null 2>&1; then
	feed "$T" gzip
	out=$(timeout 60 "$BIN/trace_dump" -c "$TMP/fifo" 2>&1)
	fed
	case $out in *"valid trace: $calls calls"*) ok "gzip through a FIFO: $out" ;; *) bad "gzip through a FIFO: $out" ;; esac
	feed "$T" gzip
	timeout 60 "$BIN/trace2wl" -q "$TMP/z.wl" "$TMP/fifo"
	fed
	check "trace2wl of gzip through a FIFO: the same workload" cmp -s "$TMP/m.wl" "$TMP/z.wl"
fi

# trace_pack reads twice: the packed trace must hold the whole trace, not what was left
feed "$T"
timeout 60 "$BIN/trace_pack" -o "$TMP/p.gz" "$TMP/fifo" >/dev/null 2>"$TMP/err"
fed
eq "trace_pack of a FIFO: exit 0" 0 "$?"
grep -q "trace_pack: $TMP/fifo: mbench" "$TMP/err" && ok "trace_pack names the FIFO" || bad "trace_pack: $(cat "$TMP/err")"
if command -v gzip >/dev/null 2>&1; then
	gzip -dc "$TMP/p.gz" >"$TMP/p"
	check "trace_pack of a FIFO: the whole trace packed" cmp -s "$T" "$TMP/p"
fi

feed "$T"
timeout 60 "$BIN/trace_plot" "$TMP/fifo" >"$TMP/p.svg" 2>"$TMP/err"
fed
eq "trace_plot of a FIFO: exit 0" 0 "$?"
check "trace_plot of a FIFO: the chart on standard output" grep -q '</svg>' "$TMP/p.svg"
feed "$T"
timeout 60 "$BIN/trace_plot" -o - "$TMP/fifo" - <"$T" >/dev/null 2>"$TMP/err"
fed
eq "trace_plot with two one-time inputs: exit 2" 2 "$?"

csv() { awk -F, -v k="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == k) c = i } NR == 2 { print $c }' "$1"; }
"$BIN/trace_run" --csv "$TMP/m.wl" >"$TMP/r1.csv"
feed "$TMP/m.wl"
timeout 60 "$BIN/trace_run" --csv "$TMP/fifo" >"$TMP/r.csv" 2>"$TMP/err"
fed
eq "trace_run of a FIFO: exit 0" 0 "$?"
eq "trace_run of a FIFO: every malloc replayed" "$(csv "$TMP/r1.csv" malloc_calls)" "$(csv "$TMP/r.csv" malloc_calls)"
eq "trace_run of a FIFO: every free replayed" "$(csv "$TMP/r1.csv" free_calls)" "$(csv "$TMP/r.csv" free_calls)"
if command -v gzip >/dev/null 2>&1; then
	feed "$TMP/m.wl" gzip
	timeout 60 "$BIN/trace_run" --csv "$TMP/fifo" >"$TMP/r.csv" 2>"$TMP/err"
	fed
	eq "trace_run of gzip through a FIFO: every malloc replayed" "$(csv "$TMP/r1.csv" malloc_calls)" "$(csv "$TMP/r.csv" malloc_calls)"
fi

# a reader of the chart that stops early (SIGPIPE) leaves no copy of the input behind
"$BIN/trace_plot" - <"$T" | head -c 10 >/dev/null
eq "trace_plot - | head: no temporary file left" 0 "$(ls -A "$TMP/tmpd" | grep -c .)"
finish
