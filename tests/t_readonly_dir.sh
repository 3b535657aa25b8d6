# An output file that can be written in a directory that cannot: every tool writes its output
# under a temporary name beside it and renames it into place, so it is the temporary file that
# cannot be created; the message says so, names the directory and what to do, exit 3, and the
# output is left as it was.  As root (permissions not enforced) the tools run as nobody.
. tests/lib.sh
traced "$TMP/m" "$ROOT/$B/bench/mbench" 1 2000 >/dev/null
T=$(one_file "$TMP/m.*")
"$BIN/trace2wl" -q "$TMP/m.wl" "$T"
printf '= Start\n+ 0x10000 0x10\n- 0x10000\n= End\n' >"$TMP/log"
mkdir "$TMP/ro" "$TMP/rw"
chmod 777 "$TMP/rw"
for f in wl dj svg gz trace tsv; do echo old >"$TMP/ro/out.$f"; done
chmod 666 "$TMP"/ro/out.* "$T"
chmod 755 "$TMP"
chmod 555 "$TMP/ro"
if [ "$(id -u)" = 0 ]; then
	command -v setpriv >/dev/null || skip "root without setpriv (util-linux): cannot run as a user the directory's permissions hold back"
	as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	as_user test -w "$TMP/ro/out.wl" || skip "nobody cannot reach $TMP (a parent directory closed to others): the case cannot be arranged"
else
	as_user() { "$@"; }
fi
as_user test -w "$TMP/ro" && skip "the directory stays writable (a filesystem that ignores permissions)"
unwritable() { # DESCRIPTION OUTPUT COMMAND...
	d=$1 out=$2; shift 2
	case $d in trace_run*) also="" ;; *) also=", or to standard output" ;; esac
	as_user "$@" >/dev/null 2>"$TMP/err"
	eq "$d: exit 3" 3 "$?"
	grep -q "^[a-z_0-9]*: $out: cannot create the temporary file it is written to before it is renamed into place, in $TMP/ro: Permission denied (write the output to another directory$also)$" "$TMP/err" &&
		ok "$d: says it is the temporary file, where, and what to do" || bad "$d: $(cat "$TMP/err")"
	eq "$d: one line, before any work" 1 "$(wc -l <"$TMP/err")"
	eq "$d: the output left as it was" old "$(cat "$out")"
}
unwritable "trace2wl" "$TMP/ro/out.wl" "$BIN/trace2wl" -q "$TMP/ro/out.wl" "$T"
unwritable "trace2wl --dj-format" "$TMP/ro/out.dj" "$BIN/trace2wl" -q --dj-format "$TMP/ro/out.dj" "$TMP/rw/m.wl" "$T"
unwritable "trace_plot" "$TMP/ro/out.svg" "$BIN/trace_plot" -o "$TMP/ro/out.svg" "$T"
unwritable "trace_pack" "$TMP/ro/out.gz" "$BIN/trace_pack" -o "$TMP/ro/out.gz" "$T"
unwritable "trace_import" "$TMP/ro/out.trace" "$BIN/trace_import" "$TMP/log" "$TMP/ro/out.trace"
unwritable "trace_run --log" "$TMP/ro/out.tsv" "$BIN/trace_run" --log "$TMP/ro/out.tsv" "$TMP/m.wl"
# each run of --compare writes PREFIX.COLUMN: refused before the first run, not column by column
unwritable "trace_run --compare -L" "$TMP/ro/out.tsv" "$BIN/trace_run" --compare glibc,glibc -L "$TMP/ro/out.tsv" "$TMP/m.wl"
finish
