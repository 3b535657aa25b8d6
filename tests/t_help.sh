# Every tool documents every option it takes: each long option in its source's option table (the
# file of its folder that holds it) appears in its --help and in its manual page; --version and
# --help exit 0; --help fits a terminal of 80 columns.
. tests/lib.sh
for t in trace_dump trace2wl trace_run trace_stats trace_import trace_pack trace_plot trace_recv mtracectl; do
	dir=$ROOT/tools/$t
	[ "$t" = mtracectl ] && dir=$ROOT/mtracectl
	src=$(grep -l 'longopts\[\] = {' "$dir"/*.c | head -n 1)
	opts=$(sed -n '/longopts\[\] = {/,/};/p' "$src" | grep -o '{ "[a-z-]*"' | sed 's/{ "//; s/"$//')
	[ -n "$opts" ] && ok "$t: option table found" || bad "$t: no option table in $src"
	"$BIN/$t" --help >"$TMP/help"; eq "$t --help: exit 0" 0 "$?"
	"$BIN/$t" --version >/dev/null; eq "$t --version: exit 0" 0 "$?"
	wide=$(awk 'length($0) > 79' "$TMP/help")
	eq "$t --help: no line wider than 79 columns" "" "$wide"
	missing="" unmanned=""
	for o in $opts; do
		grep -q -- "--$o" "$TMP/help" || missing="$missing --$o"
		grep -q -- "\\\\-\\\\-$(echo "$o" | sed 's/-/\\\\-/g')" "$ROOT/man/$t.1" || unmanned="$unmanned --$o"
	done
	eq "$t: every option in --help" "" "$missing"
	eq "$t: every option in man/$t.1" "" "$unmanned"
done
finish
