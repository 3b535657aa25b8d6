# Inputs that are not what a tool reads, through standard input, a pipe, a device or
# compressed: the first bytes (decompressed, when compressed) are looked at before anything is
# copied or decompressed in full, so /dev/zero or a gzip of zeros is refused with the reason
# after a few KiB; what follows a good start is read no further than the file can be (a trace:
# 128 MiB of zeros in a row; a workload: its header's size; text: no NUL byte), and no more than
# 256 times its compressed size; a copy that is made has no name (a SIGKILL leaves nothing) and
# stops short of filling its filesystem.
. tests/lib.sh
traced "$TMP/m" "$ROOT/$B/bench/mbench" 2 20000 >/dev/null
T=$(one_file "$TMP/m.*")
"$BIN/trace2wl" -q "$TMP/m.wl" "$T"
mkdir "$TMP/tmpd" "$TMP/o"
export TMPDIR="$TMP/tmpd"
left() { ls -A "$TMP/tmpd" "$TMP/o" | grep -v ':$' | grep -c .; }
# refused DESCRIPTION PATTERN COMMAND...: exit 1, one line matching PATTERN, nothing written:
# the tools run under a file size limit of 1 MiB (LIMIT KiB), so that a copy or decompression
# of the input (this one's is gigabytes, or endless) shows as "File too large" instead
LIMIT=1024
refused() {
	d=$1 pat=$2; shift 2
	(ulimit -f $LIMIT; "$@" >/dev/null 2>"$TMP/err"; echo $? >"$TMP/rc") 
	rc=$(cat "$TMP/rc")
	if [ "$rc" = 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q -- "$pat" "$TMP/err"; then ok "$d: $(cat "$TMP/err")"
	else bad "$d: exit $rc: $(cat "$TMP/err")"; fi
	eq "$d: nothing left behind" 0 "$(left)"
}
refused "trace_plot /dev/zero" "^trace_plot: /dev/zero: offset 0: neither a trace.*(bad magic)$" \
	"$BIN/trace_plot" -o "$TMP/o/x.svg" /dev/zero
refused "trace_plot of zeros on standard input" "^trace_plot: <stdin>: offset 0: neither a trace" \
	sh -c "cat /dev/zero | '$BIN/trace_plot' -o '$TMP/o/x.svg' -"
refused "trace_pack /dev/zero" "^trace_pack: /dev/zero: offset 0: not an mtrace trace (bad magic)$" \
	"$BIN/trace_pack" -o "$TMP/o/x.gz" /dev/zero
refused "trace_run /dev/zero" "^trace_run: /dev/zero: offset 0: not an mtrace workload (bad magic)$" \
	"$BIN/trace_run" /dev/zero
refused "trace_run of a trace on standard input" "^trace_run: <stdin>: offset 0: a trace, not a workload: convert it on the way (... | trace2wl - | trace_run -)$" \
	sh -c "'$BIN/trace_run' - <'$T'"
refused "trace_pack of a workload on standard input" "^trace_pack: <stdin>: offset 0: a workload, not a trace" \
	sh -c "'$BIN/trace_pack' -o '$TMP/o/x.gz' - <'$TMP/m.wl'"

# a gzip of 64 MiB of zeros: its decompressed start is looked at, not the whole of it
if command -v gzip >/dev/null 2>&1; then
	head -c 64M /dev/zero | gzip -c >"$TMP/zeros.gz"
	refused "trace_run of a gzip of zeros" "^trace_run: $TMP/zeros.gz: offset 0 of its decompressed data: not an mtrace workload (bad magic)$" \
		"$BIN/trace_run" "$TMP/zeros.gz"
	refused "trace_run of a gzip of zeros on standard input" "^trace_run: <stdin>: offset 0 of its decompressed data: not an mtrace workload" \
		sh -c "'$BIN/trace_run' - <'$TMP/zeros.gz'"
	refused "trace_pack of a gzip of zeros on standard input" "^trace_pack: <stdin>: offset 0 of its decompressed data: not an mtrace trace" \
		sh -c "'$BIN/trace_pack' -o '$TMP/o/x.gz' - <'$TMP/zeros.gz'"
	refused "trace_plot of a gzip of zeros through a pipe" "^trace_plot: <stdin>: offset 0 of its decompressed data: neither a trace" \
		sh -c "cat '$TMP/zeros.gz' | '$BIN/trace_plot' -o '$TMP/o/x.svg' -"
	refused "trace_dump of a gzip of zeros" "$TMP/zeros.gz: offset 0: not an mtrace trace (bad magic)" \
		"$BIN/trace_dump" "$TMP/zeros.gz"
else
	echo "# gzip is not installed: the compressed cases are not run"
fi

# a good start, then zeros: a trace's header and 4 GiB of zeros on standard input; each tool
# stops at the most zeros a trace has in a row, 128 MiB, and names where they begin (trace_pack
# and trace_plot copy the trace as they read it, the zeros as holes: under the 1 MiB limit)
head -c 4096 "$T" >"$TMP/hdr"
for tool in trace_dump trace_stats trace2wl trace_pack trace_plot; do
	case $tool in
	trace2wl) set -- -q "$TMP/o/x.wl" - ;;
	trace_pack) set -- -o "$TMP/o/x.gz" - ;;
	trace_plot) set -- -o "$TMP/o/x.svg" - ;;
	*) set -- - ;;
	esac
	refused "$tool: a header, then 4 GiB of zeros" "^$tool: <stdin>: offset 4096: more than 128 MiB of zeros (unwritten records) from here on: not a trace" \
		sh -c '{ cat "$0"; head -c 4G /dev/zero; } | timeout -k 5 300 "$@"' "$TMP/hdr" "$BIN/$tool" "$@"
done
# the same as a gzip of 4.6 MB (a header and 1 GiB of zeros), by name and on standard input:
# trace_pack reads 128 MiB of the zeros and writes nothing
if command -v gzip >/dev/null 2>&1; then
	{ cat "$TMP/hdr"; head -c 1G /dev/zero; } | gzip -1 -c >"$TMP/hz.gz"
	refused "trace_pack of a gzip of a header and 1 GiB of zeros" "^trace_pack: $TMP/hz.gz: offset 4096: more than 128 MiB of zeros" \
		timeout -k 5 300 "$BIN/trace_pack" -o "$TMP/o/x.gz" "$TMP/hz.gz"
	refused "the same on standard input" "^trace_pack: <stdin>: offset 4096: more than 128 MiB of zeros" \
		sh -c "timeout -k 5 300 '$BIN/trace_pack' -o '$TMP/o/x.gz' - <'$TMP/hz.gz'"
fi
# a workload, then zeros: copied up to the size its header gives
wlsize=$(stat -c %s "$TMP/m.wl")
refused "trace_run: a workload, then 1 GiB of zeros" "^trace_run: <stdin>: offset $wlsize: more than the $wlsize bytes its header says it has$" \
	sh -c '{ cat "$0"; head -c 1G /dev/zero; } | timeout -k 5 300 "$1" -' "$TMP/m.wl" "$BIN/trace_run"
# text, then zeros: copied up to its first NUL byte
refused "trace_plot: a timeline's first line, then 1 GiB of zeros" "^trace_plot: <stdin>: offset 21: a NUL byte: not text$" \
	sh -c '{ printf "time_ms\trss_kb\tcalls\n"; head -c 1G /dev/zero; } | timeout -k 5 300 "$1" -o "$2" -' sh "$BIN/trace_plot" "$TMP/o/x.svg"
# a compression bomb that is a valid trace: one record again and again, 256 MiB in a zstd of a
# few KiB; refused once past 16 MiB and 256 times its size (the tools under a limit of 64 MiB)
if command -v zstd >/dev/null 2>&1; then
	"$TP/mkfixture" trace-repeat /dev/stdout 256 | zstd -q -c >"$TMP/rep.zst"
	LIMIT=65536
	refused "trace_dump of a zstd bomb" "^trace_dump: $TMP/rep.zst: offset [0-9]*: it decompresses to more than 256 times its [0-9]* compressed bytes (zeros aside): a compression bomb, not a file of mtrace's$" \
		timeout -k 5 300 "$BIN/trace_dump" -c "$TMP/rep.zst"
	refused "trace_pack of a zstd bomb on standard input" "^trace_pack: <stdin>: offset [0-9]* of its decompressed data: it decompresses to more than 256 times its [0-9]* compressed bytes" \
		sh -c "timeout -k 5 300 '$BIN/trace_pack' -o '$TMP/o/x.gz' - <'$TMP/rep.zst'"
	LIMIT=1024
else
	echo "# zstd is not installed: the compression bomb is not tried"
fi

# SIGKILL while a tool copies standard input: its copy has no name, nothing is left
mkfifo "$TMP/fifo"
for tool in trace_plot trace_pack trace_run; do
	in=$T
	case $tool in
	trace_run) in=$TMP/m.wl; set -- - ;;
	*) set -- -o - - ;;
	esac
	"$BIN/$tool" "$@" <"$TMP/fifo" >/dev/null 2>&1 &
	pid=$!
	exec 3>"$TMP/fifo"
	head -c 65536 "$in" >&3
	i=0   # until it holds its copy
	while [ $i -lt 600 ] && ! ls -l "/proc/$pid/fd" 2>/dev/null | grep -q -F "$TMP/tmpd/"; do sleep 0.1; i=$((i + 1)); done
	ls -l "/proc/$pid/fd" 2>/dev/null | grep -q -F "$TMP/tmpd/" && ok "$tool: copying standard input" || bad "$tool: no copy seen"
	kill -KILL $pid
	wait $pid 2>/dev/null
	exec 3>&-
	eq "$tool: killed by SIGKILL while copying: nothing left behind" 0 "$(left)"
done

# a copy that would leave its filesystem less than a tenth free stops, with the reason and what
# to do (a 4 MiB tmpfs, an 8 MiB trace)
mkdir "$TMP/small"
if mount -t tmpfs -o size=4m tmpfs "$TMP/small" 2>/dev/null; then
	trap 'umount "$TMP/small" 2>/dev/null; rm -rf "$TMP"' EXIT
	traced "$TMP/big" "$ROOT/$B/bench/mbench" 1 300000 >/dev/null
	big=$(one_file "$TMP/big.*")
	ge "a trace of 8 MiB at least" 8388608 "$(stat -c %s "$big")"
	TMPDIR="$TMP/small" "$BIN/trace_pack" -o "$TMP/o/x.gz" - <"$big" >/dev/null 2>"$TMP/err"
	eq "a copy too large for its filesystem: exit 3" 3 "$?"
	grep -q "^trace_pack: <stdin>: its copy in $TMP/small stopped at [0-9]* MiB, to leave a tenth of that filesystem free: give the file by its name.*or set TMPDIR" "$TMP/err" &&
		ok "a copy too large: says why and what to do" || bad "a copy too large: $(cat "$TMP/err")"
	eq "a copy too large: nothing left behind" "" "$(ls -A "$TMP/small" "$TMP/o" | grep -v ':$')"
	umount "$TMP/small"
else
	echo "# cannot mount a tmpfs here (needs root): the copy's room is not tried"
fi
finish
