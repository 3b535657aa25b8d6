# fork: the child traces into its own file naming the parent, the parent's file holds only the
# parent's calls, also when another thread was mid-record at the fork; exec'd images trace too.
. tests/lib.sh
traced "$TMP/f" "$TP/forker" fork >"$TMP/out"
child=$(awk '{ print $2 }' "$TMP/out")
parent=""
for f in "$TMP"/f.*; do [ "$(count "$f" pid)" != "$child" ] && parent=$(count "$f" pid); done
pf=$(one_file "$TMP/f.$parent"); cf=$(one_file "$TMP/f.$child")
check "parent and child traces exist" test -n "$pf" -a -n "$cf"
eq "child header names the parent" "$parent" "$(count "$cf" ppid)"
eq "parent: its 5 malloc(1002)" 5 "$(count "$pf" malloc 1002)"
eq "parent: none of the child's malloc(1001)" 0 "$(count "$pf" malloc 1001)"
eq "child: its 5 malloc(1001)" 5 "$(count "$cf" malloc 1001)"
eq "child: none of the parent's malloc(1002)" 0 "$(count "$cf" malloc 1002)"
eq "child trace finished cleanly" 1 "$(count "$cf" finished)"
# memory samples: the child's own, at its first call and at its end
ge "child: memory samples of its own" 2 "$(count "$cf" samples)"
ge "parent: its memory samples" 2 "$(count "$pf" samples)"

traced "$TMP/b" "$TP/forker" forkbusy >"$TMP/out"
eq "forkbusy ran" "forkbusy ok" "$(cat "$TMP/out")"
n=0 invalid=0 wrong=0 ppid_wrong=0
for f in "$TMP"/b.*; do
	n=$((n + 1))
	"$BIN/trace_dump" -c "$f" >/dev/null || invalid=$((invalid + 1))
done
eq "31 traces (parent + 30 children)" 31 "$n"
eq "all valid" 0 "$invalid"
bp=""
for f in "$TMP"/b.*; do [ "$(count "$f" malloc 1003)" -gt 0 ] && bp=$f; done
check "parent trace found" test -n "$bp"
ppid=$(count "$bp" pid)
eq "parent has none of the children's malloc(1004)" 0 "$(count "$bp" malloc 1004)"
for f in "$TMP"/b.*; do
	[ "$f" = "$bp" ] && continue
	[ "$(count "$f" malloc 1004)" = 2 ] && [ "$(count "$f" malloc 1003)" = 0 ] || wrong=$((wrong + 1))
	[ "$(count "$f" ppid)" = "$ppid" ] || ppid_wrong=$((ppid_wrong + 1))
done
eq "each child has exactly its 2 malloc(1004) and no parent records" 0 "$wrong"
eq "each child names the parent" 0 "$ppid_wrong"

# a relative MTRACE_CTL_FILE is taken from where the process started: a child forked after the
# program moved elsewhere writes beside its parent (not in the new directory)
mkdir "$TMP/start" "$TMP/moved"
( cd "$TMP/start" && traced rel "$TP/forker" fork "$TMP/moved" >"$TMP/out" )
child=$(awk '{ print $2 }' "$TMP/out")
check "relative base, chdir, fork: the child's trace beside the parent's" test -n "$(one_file "$TMP/start/rel.$child")"
eq "relative base, chdir, fork: nothing in the new directory" 0 "$(ls -A "$TMP/moved" | grep -c .)"
eq "relative base, chdir, fork: 2 traces" 2 "$(ls "$TMP"/start/rel.* | grep -c .)"

traced "$TMP/e" "$TP/forker" exec >"$TMP/out"
child=$(awk '{ print $3 }' "$TMP/out")
pre=$(one_file "$TMP/e.$child"); post=$(one_file "$TMP/e.$child.1")
check "pre-exec and post-exec traces of the child (.pid and .pid.1)" test -n "$pre" -a -n "$post"
eq "pre-exec: its malloc(1001)" 1 "$(count "$pre" malloc 1001)"
eq "post-exec image: its 4 malloc(1005)" 4 "$(count "$post" malloc 1005)"
eq "pre-exec trace readable though exec skipped the destructor" 0 "$(count "$pre" finished)"
finish
