# The build: one short line a step ("  CC   FILE"), every command whole with V=1; each object
# rebuilt when a header it includes changes, and only then (generated dependencies).
. tests/lib.sh
# a make of its own: under `make -jN check` the parent's jobserver is not passed down (run.sh is
# no make recipe marked +), and the child would say so in the output looked at
unset MAKEFLAGS MFLAGS
Q="$TMP/b"
out=$(make --no-print-directory B="$Q" "$Q/tools/lib/util/units.o" 2>&1)
eq "a step, quietly: one line naming it" "  CC   $Q/tools/lib/util/units.o" "$out"
out=$(make --no-print-directory B="$Q" V=1 -B "$Q/tools/lib/util/units.o" 2>&1)
case $out in "cc "*"-c tools/lib/util/units.c -o $Q/tools/lib/util/units.o"*|*" -c tools/lib/util/units.c -o $Q/tools/lib/util/units.o"*)
	ok "V=1: the command whole" ;; *) bad "V=1: $out" ;; esac
check "its dependencies listed" grep -q 'tools/lib/util/units.h' "$Q/tools/lib/util/units.d"
# a header it does not include, changed: nothing to do; one it includes: rebuilt (make -n -W
# takes the header as changed, without touching the tree)
rebuilds() { make --no-print-directory -n B="$Q" "$@" "$Q/tools/lib/util/units.o" 2>&1 | grep -c 'units\.c'; }
eq "up to date after it was built" 0 "$(rebuilds)"
eq "a header it does not include, changed: still up to date" 0 "$(rebuilds -W tools/lib/format/wl_reader.h)"
eq "a header it includes, changed: rebuilt" 1 "$(rebuilds -W tools/lib/util/units.h)"
finish
