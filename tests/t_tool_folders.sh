# A tool's folder is its own: every header a file of tools/NAME/ includes is in that folder,
# tools/lib or include/, never another tool's; tools/lib keeps its layers (util below format
# below analysis: a layer includes its own and those below).  And the build says so: a tool's
# compile line has tools/lib on its include path, no tool's folder.
. tests/lib.sh
layer() { case $1 in util) echo 0 ;; format) echo 1 ;; analysis) echo 2 ;; *) echo 9 ;; esac; }
: >"$TMP/wrong"
for f in tools/*/*.[ch] tools/lib/*/*.[ch]; do
	dir=${f%/*}
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" >"$TMP/incs"
	while read -r h; do
		[ -e "$dir/$h" ] && continue
		# (include/internal/: what the tracer and the tools share, by its path under include/)
		case $h in internal/*) [ -e "include/$h" ] && continue ;; esac
		case $h in */*) echo "$f: $h (a path)" >>"$TMP/wrong"; continue ;; esac
		[ -e "include/$h" ] && continue
		found=""
		for l in tools/lib/*/; do
			l=${l%/}
			[ -e "$l/$h" ] || continue
			# a tool's file takes any layer; lib's, its own or one below
			case $dir in tools/lib/*) up=$(layer "${dir##*/}") ;; *) up=9 ;; esac
			[ "$(layer "${l##*/}")" -le "$up" ] && found=$l
		done
		[ -n "$found" ] && continue
		other=$(ls tools/*/"$h" tools/lib/*/"$h" 2>/dev/null | head -n 1)
		echo "$f: $h (${other:-nowhere})" >>"$TMP/wrong"
	done <"$TMP/incs"
done
eq "headers included from another tool's folder, or up tools/lib's layers" "" \
	"$(tr '\n' ' ' <"$TMP/wrong" | sed 's/ $//')"

line=$(make --no-print-directory -n -B V=1 B="$TMP/b" "$TMP/b/tools/trace_dump/workload.o" 2>&1 |
	grep -- ' -c tools/trace_dump/workload.c')
case $line in
*" -Itools/lib/util "*) ok "a tool's module is compiled with tools/lib on its include path" ;;
*) bad "no -Itools/lib/util in: $line" ;;
esac
eq "tool folders on that include path" "" \
	"$(echo "$line" | tr ' ' '\n' | grep '^-Itools/' | grep -v '^-Itools/lib/' | tr '\n' ' ')"
finish
