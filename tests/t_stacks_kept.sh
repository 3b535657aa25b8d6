# stacks kept from a thread's last walk (malloc/walk.c) give exactly the stacks of the whole walk
# (MTRACE_CTL_STACKS_NOCACHE=1): tests/prog/stackpaths reaches the same depth by different paths
# in turn (path_b's frame at the same sp under path_a and path_c, path_b from two lines of main,
# recursion of varying depth, a signal handler allocating, a second thread), and every call's
# stack, object+offset, is the same both ways, at 64 frames and cut at 6; each names the
# functions of its path.
. tests/lib.sh
P=$TP/stackpaths
C=$TP/stacks_check
# frames DEPTH NAME [ENV...]: each call's "CALL SIZE: frames" (object+offset), and by name
frames() {
	depth=$1 name=$2; shift 2
	env "$@" MTRACE_CTL_STACKS=$depth timeout -k 5 60 sh -c \
		'MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$1" LD_PRELOAD="$2" "$3" 2>"$1.err"; echo $? >"$1.rc"' \
		- "$TMP/$name" "$LIB" "$P"
	f=$(one_file "$TMP/$name.[0-9]*")
	"$C" -l "$f" | sed 's/ stack [0-9]*:/:/' >"$TMP/$name.off"
	"$C" "$f" | sed 's/ stack [0-9]*:/:/; s/ at [^;]*//g' >"$TMP/$name.names"
}
frames 64 kept
frames 64 whole MTRACE_CTL_STACKS_NOCACHE=1
eq "traced: exit 0, nothing on stderr" "0 " "$(cat "$TMP/kept.rc") $(cat "$TMP/kept.err")"
eq "calls of the program with a stack" 72 "$(grep -c "^malloc [123]00[1-9]:" "$TMP/kept.off")"
check "kept stacks: the whole walk's, frame for frame" cmp "$TMP/kept.off" "$TMP/whole.off"
[ -s "$TMP/kept.off" ] && cmp -s "$TMP/kept.off" "$TMP/whole.off" ||
	diff "$TMP/kept.off" "$TMP/whole.off" | head -n 6
# n SIZE PATH: calls of SIZE whose stack starts with PATH (names, innermost first)
n() {
	awk -v s="malloc $1:" -v p=" $2" 'index($0, s " ") == 1 && index($0, s p) == 1' \
		"$TMP/kept.names" | grep -c .
}
eq "1001: take, path_b, path_a, rounds (2 a round, 3 rounds, 2 threads)" 12 \
	"$(n 1001 'take; path_b; path_a; rounds;')"
eq "1002: take, path_b, path_c, rounds" 6 "$(n 1002 'take; path_b; path_c; rounds;')"
eq "1003: take, path_b, rounds" 6 "$(n 1003 'take; path_b; rounds;')"
eq "1004: take, path_b, rounds" 6 "$(n 1004 'take; path_b; rounds;')"
# the object+offset of path_b's caller in the calls of SIZE
site() {
	awk -v s="malloc $1:" 'index($0, s " ") == 1 { split($0, f, "; "); print f[3] }' \
		"$TMP/kept.off" | sort -u | tr '\n' ' '
}
check "1003 and 1004: path_b's caller at two lines of rounds" \
	test -n "$(site 1003)" -a -n "$(site 1004)" -a "$(site 1003)" != "$(site 1004)"
for d in 3 1 4 2 9; do
	r=$(awk -v d=$d 'BEGIN { for (i = 0; i <= d; i++) printf "recurse; " }')
	eq "$((2000 + d)): take, recurse $((d + 1)) times, rounds" 6 \
		"$(n $((2000 + d)) "take; ${r}rounds;")"
done
eq "3001: take, on_usr1 (the handler's stack)" 6 "$(n 3001 'take; on_usr1')"
eq "3002: take, path_d, rounds (after the handler's)" 6 "$(n 3002 'take; path_d; rounds;')"
# cut at 6 frames: the deep recursion's kept walk ends short of the stack's end
frames 6 kept6
frames 6 whole6 MTRACE_CTL_STACKS_NOCACHE=1
check "at 6 frames: the whole walk's, frame for frame" cmp "$TMP/kept6.off" "$TMP/whole6.off"
eq "at 6 frames: 2009 cut at 6" 6 "$(awk '/^malloc 2009:/ { print NF - 2; exit }' "$TMP/kept6.off")"
finish
