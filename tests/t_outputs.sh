# What the tools leave on disk: outputs get the mode open() would give them (0666 less the
# umask; traces stay 0600, as capture makes them); a file size limit ends a tool with exit 3 and
# one line naming the file; an interruption (SIGTERM) removes every temporary file, the tool's
# own and the copies of standard input in $TMPDIR.
. tests/lib.sh
traced "$TMP/m" "$ROOT/$B/bench/mbench" 1 20000 >/dev/null
T=$(one_file "$TMP/m.*")
mkdir "$TMP/o" "$TMP/tmpd"
printf '= Start\n@ ./p:[0x4005d6] + 0x1b6e260 0x64\n@ ./p:[0x4005e6] - 0x1b6e260\n= End\n' >"$TMP/edge.log"
nothing_left() { # DESCRIPTION: neither $TMP/o nor $TMP/tmpd holds a file
	left=$(ls -A "$TMP/o" "$TMP/tmpd" | grep -v ':$' | grep -c .)
	eq "$1: nothing left behind" 0 "$left"
}
mode() { stat -c %a "$1"; }

# --- modes
(
	umask 022
	"$BIN/trace2wl" -q --dj-format "$TMP/o/m.dj" "$TMP/o/m.wl" "$T"
	"$BIN/trace_plot" -o "$TMP/o/m.svg" "$T" 2>/dev/null
	"$BIN/trace_run" --log "$TMP/o/m.tsv" "$TMP/o/m.wl" >/dev/null
	"$BIN/trace_pack" -o "$TMP/o/m.gz" "$T" >/dev/null 2>&1
)
eq "umask 022: workload 644" 644 "$(mode "$TMP/o/m.wl")"
eq "umask 022: dj/malloc workload 644" 644 "$(mode "$TMP/o/m.dj")"
eq "umask 022: plot 644" 644 "$(mode "$TMP/o/m.svg")"
eq "umask 022: replay timeline 644" 644 "$(mode "$TMP/o/m.tsv")"
eq "umask 022: packed trace stays 600 (addresses)" 600 "$(mode "$TMP/o/m.gz")"
(umask 077; "$BIN/trace2wl" -q "$TMP/o/p.wl" "$T")
eq "umask 077: workload 600" 600 "$(mode "$TMP/o/p.wl")"
rm -f "$TMP"/o/*

# --- outputs that are not plain files.  A directory is refused before any work.  A character
# device or a pipe (/dev/null, /dev/stdout, a FIFO) is written in place, never replaced by a
# file (the output is otherwise made beside its name and renamed into place); binary output to
# a terminal is refused; anything else (a socket) is refused.  A symbolic link is written
# through and kept; - is standard output.
"$BIN/trace2wl" -q "$TMP/m.wl" "$T"
mkdir "$TMP/d"; mkfifo "$TMP/o/fifo"
"$BIN/trace2wl" "$TMP/d" "$T" 2>"$TMP/err"; eq "trace2wl DIR: exit 2" 2 "$?"
grep -q "d is a directory" "$TMP/err" && ok "trace2wl DIR: says so" || bad "trace2wl DIR: $(cat "$TMP/err")"
"$BIN/trace2wl" "$TMP/d/" "$T" 2>/dev/null; eq "trace2wl DIR/: exit 2" 2 "$?"
eq "trace2wl DIR: nothing written there" 0 "$(ls -A "$TMP/d" | grep -c .)"
# through_fifo FILE COMMAND...: run COMMAND (which writes the FIFO) with a reader copying the
# FIFO to FILE; COMMAND under a time limit, so that a regression fails instead of hanging
through_fifo() {
	f=$1; shift
	cat "$TMP/o/fifo" >"$f" &
	reader=$!
	timeout 60 "$@"; rc=$?
	wait $reader
	return $rc
}
through_fifo "$TMP/fifo.wl" "$BIN/trace2wl" -q "$TMP/o/fifo" "$T"; eq "trace2wl FIFO: exit 0" 0 "$?"
check "trace2wl FIFO: the workload went through it" cmp -s "$TMP/fifo.wl" "$TMP/m.wl"
check "trace2wl FIFO: the FIFO is still a FIFO" test -p "$TMP/o/fifo"
through_fifo "$TMP/fifo.svg" "$BIN/trace_plot" -o "$TMP/o/fifo" "$T" 2>/dev/null; eq "trace_plot -o FIFO: exit 0" 0 "$?"
check "trace_plot -o FIFO: the chart went through it" grep -q '</svg>' "$TMP/fifo.svg"
through_fifo "$TMP/fifo.tsv" "$BIN/trace_run" --log "$TMP/o/fifo" "$TMP/m.wl" >/dev/null; eq "trace_run --log FIFO: exit 0" 0 "$?"
eq "trace_run --log FIFO: the timeline went through it" "time_ms	vmrss_kb	vmsize_kb	ideal_kb" "$(sed -n 2p "$TMP/fifo.tsv" | cut -f 1-4)"
if command -v gzip >/dev/null 2>&1; then
	through_fifo "$TMP/fifo.gz" "$BIN/trace_pack" -o "$TMP/o/fifo" "$T" >/dev/null 2>&1; eq "trace_pack -o FIFO: exit 0" 0 "$?"
	gzip -dc "$TMP/fifo.gz" | cmp -s - "$T" && ok "trace_pack -o FIFO: the packed trace went through it" || bad "trace_pack -o FIFO"
fi
check "(still a FIFO)" test -p "$TMP/o/fifo"
rm -f "$TMP/o/fifo"
"$BIN/trace2wl" /dev/null "$T" 2>"$TMP/err"; eq "trace2wl /dev/null: exit 0 (converted, summary shown)" 0 "$?"
grep -q "wrote /dev/null: " "$TMP/err" && ok "trace2wl /dev/null: the summary" || bad "/dev/null: $(cat "$TMP/err")"
check "/dev/null is still a character device" test -c /dev/null
"$BIN/trace_plot" -o /dev/full "$T" 2>"$TMP/err"; eq "trace_plot -o /dev/full: exit 3" 3 "$?"
grep -q "/dev/full: cannot write: No space left on device" "$TMP/err" && ok "/dev/full: says why" || bad "/dev/full: $(cat "$TMP/err")"
"$BIN/trace_import" "$TMP/edge.log" - 2>/dev/null >"$TMP/imported"; eq "trace_import LOG -: exit 0" 0 "$?"
"$BIN/trace_import" "$TMP/edge.log" "$TMP/imported2" 2>/dev/null
"$BIN/trace_dump" "$TMP/imported" | grep -v '^# \(file\|started\)' >"$TMP/d1"
"$BIN/trace_dump" "$TMP/imported2" | grep -v '^# \(file\|started\)' >"$TMP/d2"
check "trace_import LOG -: the same trace as into a file" cmp -s "$TMP/d1" "$TMP/d2"
"$BIN/trace_run" --log - "$TMP/m.wl" >/dev/null 2>&1; eq "trace_run --log - (stdout carries the summary): exit 2" 2 "$?"
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$TMP/o/sock"
	"$BIN/trace2wl" "$TMP/o/sock" "$T" 2>/dev/null; eq "trace2wl SOCKET: exit 2" 2 "$?"
	rm -f "$TMP/o/sock"
fi
: >"$TMP/target.wl"; ln -s "$TMP/target.wl" "$TMP/o/link.wl"
"$BIN/trace2wl" -q "$TMP/o/link.wl" "$T"
check "trace2wl onto a symbolic link: the link stays" test -L "$TMP/o/link.wl"
check "trace2wl onto a symbolic link: the file it names is written" cmp -s "$TMP/target.wl" "$TMP/m.wl"
rm -f "$TMP/o/link.wl"
"$BIN/trace2wl" - "$T" >"$TMP/stdout.wl" 2>"$TMP/err"; eq "trace2wl - TRACE: exit 0" 0 "$?"
check "trace2wl - TRACE: the same workload on standard output" cmp -s "$TMP/stdout.wl" "$TMP/m.wl"
grep -q "wrote <stdout>: .* $(stat -c %s "$TMP/m.wl" | sed 's/\(.\)\(...\)$/\1,\2/') bytes" "$TMP/err" && ok "trace2wl - : summary names <stdout> and its size" || bad "trace2wl - : $(head -n 1 "$TMP/err")"
"$BIN/trace2wl" -q - "$T" | "$BIN/trace_run" --csv - >"$TMP/piped.csv"; eq "trace2wl - | trace_run -: exit 0" 0 "$?"
"$BIN/trace2wl" --dj-format "$TMP/o/x.wl" "$TMP/o/x.wl" "$T" 2>/dev/null; eq "trace2wl --dj-format OUT OUT: exit 2" 2 "$?"
"$BIN/trace2wl" --dj-format "$TMP/o/x.dj" - "$T" >/dev/null 2>&1; eq "trace2wl --dj-format FILE - : exit 2" 2 "$?"
if command -v script >/dev/null 2>&1; then
	script -qec "'$BIN/trace2wl' - '$T'" /dev/null >"$TMP/err" 2>&1; eq "trace2wl - with a terminal for output: exit 2" 2 "$?"
fi
nothing_left "outputs that are not plain files"

# --- what goes to standard output must arrive: a full disk or a closed descriptor is exit 3
for cmd in "trace2wl --version" "mtracectl --help" "trace_stats $T" "trace_dump -c $T" "trace_run --csv $TMP/m.wl"; do
	"$BIN"/$cmd >/dev/full 2>"$TMP/err"; rc=$?
	if [ $rc -eq 3 ] && grep -q 'cannot write output: No space left on device' "$TMP/err"; then ok "$cmd >/dev/full: exit 3"
	else bad "$cmd >/dev/full: exit $rc, $(cat "$TMP/err")"; fi
done
"$BIN/trace_pack" -o "$TMP/o/p.gz" "$T" >/dev/full 2>/dev/null; eq "trace_pack (its output's name) >/dev/full: exit 3" 3 "$?"
"$BIN/trace_stats" "$T" >&- 2>/dev/null; eq "trace_stats with standard output closed: exit 3" 3 "$?"
rm -f "$TMP"/o/*

# --- a file size limit: exit 3, the reason, no file.  Output and errors go to pipes, which
# the limit does not cover.
limited() { (ulimit -f 0; "$@" 2>&1 >/dev/null; echo "rc=$?") | cat; }
out=$(TMPDIR="$TMP/tmpd" limited "$BIN/trace2wl" "$TMP/o/m.wl" "$T")
case $out in *"m.wl: cannot write"*"File too large"*rc=3) ok "trace2wl at the limit: $out" ;; *) bad "trace2wl at the limit: $out" ;; esac
nothing_left "trace2wl at the limit"
"$BIN/trace2wl" -q "$TMP/m.wl" "$T"
out=$(TMPDIR="$TMP/tmpd" limited "$BIN/trace_run" --log "$TMP/o/m.tsv" "$TMP/m.wl")
case $out in *"m.tsv: cannot write"*"File too large"*rc=3) ok "trace_run --log at the limit: $out" ;; *) bad "trace_run --log at the limit: $out" ;; esac
nothing_left "trace_run --log at the limit"
out=$(TMPDIR="$TMP/tmpd" limited "$BIN/trace_plot" -o "$TMP/o/m.svg" "$T")
case $out in *"m.svg: cannot write"*"File too large"*rc=3) ok "trace_plot at the limit: $out" ;; *) bad "trace_plot at the limit: $out" ;; esac
nothing_left "trace_plot at the limit"

# --- SIGTERM while a tool waits for the rest of its input on a FIFO: it ends by the signal
# (status 143) and its files are gone.  A copy of standard input has no name from the start:
# it counts as made while the tool holds it open.  (Background jobs of sh ignore SIGINT; a
# signal that was ignored stays ignored.)
mkfifo "$TMP/fifo"
made() { # PID: the tool's files, by name or held open in $TMP/tmpd
	{ ls -A "$TMP/o" "$TMP/tmpd" | grep -v ':$'; ls -l "/proc/$1/fd" 2>/dev/null | grep -F "$TMP/tmpd/"; } | grep -c .
}
interrupted() { # DESCRIPTION INPUT COMMAND... (reads the first 8 KiB of INPUT from the FIFO)
	d=$1 in=$2; shift 2
	TMPDIR="$TMP/tmpd" "$@" <"$TMP/fifo" >/dev/null 2>&1 &
	pid=$!
	exec 3>"$TMP/fifo"
	head -c 8192 "$in" >&3
	i=0   # until the tool has made its files
	while [ $i -lt 100 ] && [ "$(made $pid)" -eq 0 ]; do sleep 0.05; i=$((i + 1)); done
	sleep 0.2
	made=$(made $pid)
	kill -TERM $pid
	wait $pid
	rc=$?
	exec 3>&-
	ge "$d: had made its files" 1 "$made"
	eq "$d: ended by SIGTERM" 143 "$rc"
	nothing_left "$d"
}
interrupted "trace2wl" "$T" "$BIN/trace2wl" "$TMP/o/m.wl"
interrupted "trace_plot from stdin" "$T" "$BIN/trace_plot" -o "$TMP/o/m.svg" -
interrupted "trace_run from stdin" "$TMP/m.wl" "$BIN/trace_run" --log "$TMP/o/m.tsv" -
interrupted "trace_pack from stdin" "$T" "$BIN/trace_pack" -o "$TMP/o/m.gz" -
finish
