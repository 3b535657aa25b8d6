# tier: slow (valgrind runs a program some 50 times slower)
# valgrind memcheck on a traced program: no error in the tracer's wrappers, and the calls traced.
. tests/lib.sh
command -v valgrind >/dev/null 2>&1 || skip "valgrind is not installed: apt-get install valgrind"
# (not entry_points: valgrind itself aborts on pvalloc)
# nouserintercepts: valgrind replaces malloc in libc only, so our wrappers are what runs
MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/vg" LD_PRELOAD="$LIB" timeout -k 10 900 valgrind --quiet \
	--error-exitcode=9 --soname-synonyms=somalloc=nouserintercepts "$TP/bigalloc" 20000 \
	>"$TMP/vg.out" 2>"$TMP/vg.err"
eq "valgrind memcheck: no errors" 0 "$?"
grep -q 'Invalid\|uninitialised' "$TMP/vg.err" && bad "valgrind: $(head -n 5 "$TMP/vg.err")" || ok "valgrind: no invalid access reported"
most=0
for f in "$TMP"/vg.*[0-9]; do [ -e "$f" ] || continue; c=$(count "$f" calls); [ "$c" -gt "$most" ] && most=$c; done
ge "valgrind: the program's calls traced" 20000 "$most"
finish
