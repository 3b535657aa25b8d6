# A bad command line is exit status 2 in every tool, mtracectl included (whose other codes are
# the program's own and 125..127): an unknown option, long or short, an option without its
# argument or with a bad one, no argument, too many.  The message comes first on stderr and
# names the tool as its other messages do (getopt's too, not the path it was run by); nothing
# goes to standard output and nothing runs.
. tests/lib.sh
export LC_ALL=C
# usage WHAT TOOL ARG...
usage() {
	what=$1 t=$2; shift 2
	"$BIN/$t" "$@" </dev/null >"$TMP/out" 2>"$TMP/err"
	eq "$t $what: exit 2" 2 "$?"
	first=$(head -n 1 "$TMP/err")
	case $first in
	"$t: "?*) ok "$t $what: the message starts '$t: '" ;;
	*) bad "$t $what: the message starts '$(echo "$first" | cut -c1-60)'" ;;
	esac
	eq "$t $what: nothing on standard output" 0 "$(wc -c <"$TMP/out")"
}
for t in mtracectl trace2wl trace_dump trace_import trace_pack trace_plot trace_run trace_stats; do
	usage "--no-such-option" "$t" --no-such-option x
	usage "-Z (no such letter)" "$t" -Z x
	usage "no argument" "$t"
done
# an option without its argument (the last word), or with a bad one
usage "-o without its argument" mtracectl -o
usage "--max-size 1 (too small)" mtracectl --max-size 1 -- true
usage "-o ''" mtracectl -o '' -- true
usage "--dj-format without its argument" trace2wl --dj-format
usage "--pace-threshold x" trace2wl --pace-threshold x "$TMP/o.wl" "$TMP/t"
usage "-n without its argument" trace_dump -n
usage "-n x" trace_dump -n x "$TMP/t"
usage "--pid without its argument" trace_import --pid
usage "--pid x" trace_import --pid x "$TMP/l" "$TMP/o"
usage "-o without its argument" trace_pack -o
usage "--level 99" trace_pack --level 99 "$TMP/t"
usage "-k without its argument" trace_plot -k
usage "-k pie" trace_plot -k pie "$TMP/t"
usage "-m without its argument" trace_run -m
usage "-r 0" trace_run -r 0 "$TMP/w.wl"
usage "-L without its argument" trace_stats -L
usage "--tsv --json" trace_stats --tsv --json "$TMP/t"
# too many arguments, where a tool takes a fixed number
usage "--start PID PID" mtracectl --start 1 2
usage "two workloads" trace_run "$TMP/a.wl" "$TMP/b.wl"
usage "LOG OUTFILE EXTRA" trace_import "$TMP/l" "$TMP/o" "$TMP/x"
usage "two traces" trace_pack "$TMP/a" "$TMP/b"
usage "--diff with three traces" trace_stats --diff "$TMP/a" "$TMP/b" "$TMP/c"
# mtracectl: a usage error runs nothing
"$BIN/mtracectl" --no-such-option -- sh -c "touch '$TMP/ran'" 2>/dev/null
eq "mtracectl --no-such-option PROGRAM: exit 2" 2 "$?"
check "mtracectl --no-such-option PROGRAM: the program did not run" test ! -e "$TMP/ran"
"$BIN/mtracectl" -S x -- sh -c "touch '$TMP/ran'" 2>/dev/null
eq "mtracectl -S x PROGRAM: exit 2" 2 "$?"
check "mtracectl -S x PROGRAM: the program did not run" test ! -e "$TMP/ran"
# and a program's own exit status 2 is its own: the options are mtracectl's only before it
"$BIN/mtracectl" -q -o "$TMP/p" -- sh -c 'exit 2'
eq "mtracectl -- PROGRAM that exits 2: 2" 2 "$?"
"$BIN/mtracectl" -q -o "$TMP/p" -- sh -c 'exit 0' --no-such-option
eq "mtracectl -- PROGRAM --no-such-option: the program's option, exit 0" 0 "$?"
# --compare's names given apart: the list is one argument, said with the command meant
"$BIN/trace_run" --compare glibc jemalloc tcmalloc x.wl >/dev/null 2>"$TMP/err"
eq "trace_run --compare A B C W: exit 2" 2 "$?"
eq "... saying the list is one, comma-separated" "trace_run: --compare's list is one argument, its names separated by commas: --compare glibc,jemalloc,tcmalloc" "$(cat "$TMP/err")"
finish
