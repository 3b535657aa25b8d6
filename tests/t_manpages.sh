# The manual pages promise no speed they do not measure: no "almost no slowdown", "negligible",
# "lightweight" or the like, and mtracectl(1) states what tracing was measured to cost.
. tests/lib.sh
claims='almost no slowdown\|no slowdown\|negligib\|lightweight\|low.overhead\|little overhead\|no overhead\|blazing\|very fast\|extremely fast\|hardly any\|barely'
for m in man/*.1 man/*.3; do
	found=$(sed 's/\\-/-/g; s/\\f[BIRP]//g' "$m" | tr '\n' ' ' | grep -o -i ".\{0,40\}\($claims\).\{0,20\}")
	eq "$(basename "$m"): no unmeasured speed claim" "" "$found"
done
cost=$(sed 's/\\-/-/g; s/\\f[BIRP]//g' man/mtracectl.1 | tr '\n' ' ')
echo "$cost" | grep -q '[0-9] to [0-9]* ns to each call' && ok "mtracectl(1): the time added to a call, measured" || bad "mtracectl(1): no measured cost a call"
echo "$cost" | grep -q '[0-9.]* to [0-9.]* times as long' && ok "mtracectl(1): the slowdown of a program, measured" || bad "mtracectl(1): no measured slowdown"
finish
