# A short option means one thing across the suite: from every tool's --help, no letter names two
# long options and no long option has two letters; the letters each tool's parser accepts are
# the ones its --help lists; doc/options.md's table is exactly what the tools say; each manual
# page lists every letter as its --help does, and no other.
. tests/lib.sh
export LC_ALL=C   # getopt's "invalid option" in English
TOOLS="mtracectl trace2wl trace_dump trace_import trace_pack trace_plot trace_run trace_stats"
: >"$TMP/pairs"; : >"$TMP/longs"
for t in $TOOLS; do
	"$BIN/$t" --help >"$TMP/$t.help"
	# "  -o, --output=FILE  ..." and "      --gzip  ..." (an option line starts with a dash)
	grep -oE '^ +-[A-Za-z0-9], --[a-z][a-z0-9-]*' "$TMP/$t.help" |
		awk -v t="$t" '{ sub(",", "", $1); print substr($1, 2), $2, t }' >>"$TMP/pairs"
	grep -oE '^ +(-[A-Za-z0-9], )?--[a-z][a-z0-9-]*' "$TMP/$t.help" |
		awk -v t="$t" '{ print $NF, t }' >>"$TMP/longs"
	n=$(awk -v t="$t" '$3 == t' "$TMP/pairs" | wc -l)
	ge "$t --help: its letters found" 2 "$n"
done
sort -o "$TMP/pairs" "$TMP/pairs"

# one meaning a letter, one letter an option
two=$(awk '{ m[$1] = m[$1] ? m[$1] : $2; if (m[$1] != $2) print "-" $1 ": " m[$1] " and " $2 }' "$TMP/pairs" | sort -u | paste -sd';')
eq "no letter names two options" "" "$two"
two=$(awk '{ m[$2] = m[$2] ? m[$2] : $1; if (m[$2] != $1) print $2 ": -" m[$2] " and -" $1 }' "$TMP/pairs" | sort -u | paste -sd';')
eq "no option has two letters" "" "$two"
# an option that has a letter has it in every tool that takes it
bare=$(awk 'NR == FNR { l[$2] = $1; p[$0] = 1; next }
	($1 in l) && !((l[$1] " " $1 " " $2) in p) { print $2 ": " $1 " without -" l[$1] }' "$TMP/pairs" "$TMP/longs" | paste -sd';')
eq "an option's letter in every tool that takes the option" "" "$bare"

# what each parser accepts is what its --help lists: every letter tried alone (no argument
# given, nothing runs), the unknown ones refused by getopt
for t in $TOOLS; do
	accepted=""
	for c in a b c d e f g h i j k l m n o p q r s t u v w x y z A B C D E F G H I J K L M N O P Q R S T U V W X Y Z 0 1 2 3 4 5 6 7 8 9; do
		timeout 20 "$BIN/$t" "-$c" </dev/null >/dev/null 2>"$TMP/probe"
		grep -q "invalid option -- '$c'" "$TMP/probe" || accepted="$accepted$c"
	done
	listed=$(awk -v t="$t" '$3 == t { printf "%s", $1 }' "$TMP/pairs" | fold -w1 | LC_ALL=C sort | tr -d '\n')
	accepted=$(printf %s "$accepted" | fold -w1 | LC_ALL=C sort | tr -d '\n')
	eq "$t: the letters it accepts are those its --help lists" "$listed" "$accepted"
done

# doc/options.md: "| `-X` | `--long` | tool, tool | meaning |"
sed -n 's/^| `-\([A-Za-z0-9]\)` | `\(--[a-z0-9-]*\)` | \([^|]*\) |.*/\1 \2 \3/p' "$ROOT/doc/options.md" |
	while read -r l long tools; do
		for t in $(echo "$tools" | tr ',' ' '); do echo "$l $long $t"; done
	done | sort >"$TMP/doc"
ge "doc/options.md: a table of letters" 20 "$(wc -l <"$TMP/doc")"
eq "doc/options.md: the letters every tool's --help lists, no more" "" "$(diff "$TMP/pairs" "$TMP/doc" | grep '^[<>]' | paste -sd';')"

# the manual pages: "\fB\-X\fR, \fB\-\-long\fR" for each pair; an option entry with a letter
# --help does not list is a stale one
for t in $TOOLS; do
	m="$ROOT/man/$t.1"
	missing=$(awk -v t="$t" '$3 == t { print $1, $2 }' "$TMP/pairs" | while read -r l long; do
		esc=$(echo "$long" | sed 's/-/\\\\-/g')
		grep -q "\\\\fB\\\\-$l\\\\fR, \\\\fB$esc\\\\fR" "$m" || echo "-$l $long"
	done | paste -sd' ')
	eq "man/$t.1: every letter of --help, with its option" "" "$missing"
	stale=$(sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$m" | sed -n '/^\.TP/{n;p}' | grep -o '\\fB\\-[A-Za-z0-9]\\fR' |
		sed 's/.*\\-\(.\)\\fR/\1/' | while read -r l; do
			awk -v t="$t" -v l="$l" '$3 == t && $1 == l { f = 1 } END { exit !f }' "$TMP/pairs" || echo "-$l"
		done | paste -sd' ')
	eq "man/$t.1: no letter --help does not list" "" "$stale"
done
finish
