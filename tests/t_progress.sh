# Progress lines fit the terminal: in a pseudo-terminal 40 and 80 columns wide, every line a tool
# writes before a carriage return (a progress line, or the spaces that clear one) is narrower
# than the terminal - a wider one wraps, and "\r" then leaves its first part on the screen.  The
# file name gives way first ("..." in its middle), the figure stays.  A compressed input shows
# how far its compressed bytes are read, in percent.  A message is broken at spaces to the width.
. tests/lib.sh
D="$TMP/some/longer/path/that/goes/on/and/on/to/where/the/files/are"
mkdir -p "$D"
traced "$TMP/x" "$TP/xthread" 3 5000 >/dev/null
f=$(one_file "$TMP/x.*")
cp "$f" "$D/application-trace"
gzip -c "$f" >"$D/application-trace.gz"
"$BIN/trace2wl" -q "$D/application.wl" "$f"
gzip -c "$D/application.wl" >"$D/application.wl.gz"
awk 'BEGIN { for (i = 0; i < 70000; i++) printf "+ 0x%x 0x10\n- 0x%x\n", 4096 + 16 * i, 4096 + 16 * i }' >"$D/application.log"

# in_pty COLS OUT COMMAND...: COMMAND's standard error (its standard output to /dev/null) on a
# terminal COLS wide, into OUT
in_pty() { cols=$1 out=$2; shift 2; "$TP/ptyrun" "$cols" sh -c 'exec "$@" >/dev/null' sh "$@" >"$out"; }
# widest FILE: the widest stretch written before a carriage return, in columns (from the last
# line break before it: a message's own line does not count)
widest() {
	{ cat "$1"; printf 'END'; } | awk 'BEGIN { RS = "\r"; w = 0 }
		NR > 1 { n = split(prev, l, "\n"); c = n ? length(l[n]) : 0; if (c > w) w = c }
		{ prev = $0 } END { print w }'
}
# lines TOOL FILE: progress lines of TOOL in FILE
lines() { tr '\r' '\n' <"$2" | grep -c "^$1: "; }

for cols in 40 80; do
	n=0
	for cmd in "trace_run -p $D/application.wl" "trace_run -p $D/application.wl.gz" \
		   "trace2wl -p -q $TMP/o.wl $D/application-trace" "trace2wl -p -q $TMP/o.wl $D/application-trace.gz" \
		   "trace_stats -p $D/application-trace.gz" "trace_plot -p -k live -o $TMP/o.svg $D/application-trace" \
		   "trace_pack -p -o $TMP/o.gz $D/application-trace" "trace_import -p $D/application.log $TMP/o.trace"; do
		n=$((n + 1))
		tool=${cmd%% *}
		out="$TMP/pty.$cols.$n"
		in_pty "$cols" "$out" "$BIN/$tool" ${cmd#* }
		eq "$cols columns: $tool ($n): exit 0" 0 "$?"
		ge "$cols columns: $tool ($n): progress shown" 1 "$(lines "$tool" "$out")"
		w=$(widest "$out")
		if [ "$w" -lt "$cols" ]; then ok "$cols columns: $tool ($n): no line wider than $((cols - 1)) ($w)"
		else bad "$cols columns: $tool ($n): a line of $w columns: $(tr '\r' '\n' <"$out" | awk -v c="$cols" 'length($0) >= c' | head -n 2)"; fi
	done
done
# the file name gives way in its middle, its end kept; the figure stays
tr '\r' '\n' <"$TMP/pty.80.5" | grep -q '^trace_stats: .*\.\.\..*application-trace\.gz: [0-9]*%' &&
	ok "80 columns: the name shortened with ..., its end and the percentage kept" ||
	bad "80 columns, shortened name: $(tr '\r' '\n' <"$TMP/pty.80.5" | head -n 3)"

# a message is broken at spaces to the terminal's width (the terminal would cut its words),
# the same words as without a terminal
"$BIN/trace_stats" --sites "$D/application-trace" >/dev/null 2>"$TMP/msg.whole"
in_pty 40 "$TMP/msg.pty" "$BIN/trace_stats" --sites "$D/application-trace"
eq "40 columns: a long error: exit 1" 1 "$?"
# (a word wider than the terminal, the path, takes a line of its own)
w=$(tr -d '\r' <"$TMP/msg.pty" | awk '{ sub(/^ +/, "") } / / && length($0) > w { w = length($0) }
	END { print w + 0 }')
if [ "$w" -lt 38 ] && [ "$(wc -l <"$TMP/msg.pty")" -gt 2 ]; then
	ok "40 columns: a long error on lines of $w columns at most, a word wider alone"
else bad "40 columns: a long error: $(cat "$TMP/msg.pty")"; fi
joined=$(tr -d '\r' <"$TMP/msg.pty" | awk 'NR > 1 { sub(/^  /, " ") } { printf "%s", $0 }')
[ "$joined" = "$(cat "$TMP/msg.whole")" ] && [ -s "$TMP/msg.whole" ] &&
	ok "40 columns: the error's words whole, as without a terminal" ||
	bad "40 columns: '$joined' against '$(cat "$TMP/msg.whole")'"

# no terminal: $COLUMNS (stderr piped on to one) is the width; without it no limit
COLUMNS=40 "$BIN/trace_stats" -p "$D/application-trace" >/dev/null 2>"$TMP/cols.err"
w=$(widest "$TMP/cols.err"); if [ "$w" -lt 40 ]; then ok "COLUMNS=40: no line wider than 39 ($w)"; else bad "COLUMNS=40: $w columns"; fi
"$BIN/trace_stats" -p "$D/application-trace" >/dev/null 2>"$TMP/nocols.err"
tr '\r' '\n' <"$TMP/nocols.err" | grep -q "^trace_stats: $D/application-trace: [0-9]*% " &&
	ok "no terminal, no COLUMNS: the whole name" || bad "no terminal: $(cat -A "$TMP/nocols.err" | head -c 300)"

# compressed input: a percentage of the compressed file read, not only the MiB decompressed
"$BIN/trace_stats" -p "$D/application-trace.gz" >/dev/null 2>"$TMP/gz.err"
tr '\r' '\n' <"$TMP/gz.err" | grep -q "^trace_stats: $D/application-trace.gz: [0-9]*% ([0-9,]* MiB of [0-9,]* MiB compressed)" &&
	ok "compressed trace: percent of the compressed file" || bad "compressed trace: $(cat -A "$TMP/gz.err" | head -c 300)"
"$BIN/trace_run" -p "$D/application.wl.gz" >/dev/null 2>"$TMP/gzwl.err"
tr '\r' '\n' <"$TMP/gzwl.err" | grep -q "^trace_run: decompressing $D/application.wl.gz: [0-9]*% ([0-9,]* MiB of [0-9,]* MiB compressed)" &&
	ok "compressed workload: percent of the compressed file" || bad "compressed workload: $(cat -A "$TMP/gzwl.err" | head -c 300)"
finish
