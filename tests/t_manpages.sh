# The manual pages promise no speed they do not measure: no "almost no slowdown", "negligible",
# "lightweight" or the like, and mtracectl(1) states what tracing was measured to cost.  Each
# page's SEE ALSO names every other page of the suite, and each option has an entry of its own.
. tests/lib.sh
claims='almost no slowdown\|no slowdown\|negligib\|lightweight\|low.overhead\|little overhead\|no overhead\|blazing\|very fast\|extremely fast\|hardly any\|barely'
for m in man/*.1 man/*.3; do
	found=$(sed 's/\\-/-/g; s/\\f[BIRP]//g' "$m" | tr '\n' ' ' | grep -o -i ".\{0,40\}\($claims\).\{0,20\}")
	eq "$(basename "$m"): no unmeasured speed claim" "" "$found"
done
cost=$(sed 's/\\-/-/g; s/\\f[BIRP]//g' man/mtracectl.1 | tr '\n' ' ')
echo "$cost" | grep -q '[0-9] to [0-9]* ns to each call' && ok "mtracectl(1): the time added to a call, measured" || bad "mtracectl(1): no measured cost a call"
echo "$cost" | grep -q '[0-9.]* to [0-9.]* times as long' && ok "mtracectl(1): the slowdown of a program, measured" || bad "mtracectl(1): no measured slowdown"
pages=$(ls man/*.1 man/*.3 | sed 's|man/\(.*\)\.\([13]\)$|\1(\2)|')
for m in man/*.1 man/*.3; do
	self=$(basename "$m" | sed 's/\.\([13]\)$/(\1)/')
	seen=$(sed -n '/^\.SH SEE ALSO/,/^\.SH/p' "$m" | sed -n 's/^\.BR \([a-z_0-9]*\) (\([0-9]\)).*/\1(\2)/p')
	missing=""
	for p in $pages; do
		[ "$p" = "$self" ] && continue
		echo "$seen" | grep -qx "$p" || missing="$missing $p"
	done
	eq "$(basename "$m"): SEE ALSO names the rest of the suite" "" "$missing"
done
# an entry (.TP) that names two long options is two options described as one (but the
# alternatives of one choice: --tsv/--json, --csv/--json, --gzip/--xz/--zstd, --width/--height)
two=$(grep -h -A1 '^\.TP' man/*.1 | grep -v '^\.TP\|^--' | sed 's/\\-/-/g; s/\\f[BIRP]//g' |
	awk '{ n = gsub(/--[a-z]/, "&"); if (n > 1 && $0 !~ /--help|--version|--tsv|--csv|--width|--gzip/) print }')
eq "no entry describes two options as one" "" "$two"
finish
