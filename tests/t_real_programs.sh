# Real programs behave the same traced (output, exit status) and give valid traces with calls.
. tests/lib.sh
compare() { # NAME COMMAND...
	name=$1; shift
	"$@" >"$TMP/$name.plain" 2>&1; rc1=$?
	traced "$TMP/$name" "$@" >"$TMP/$name.traced" 2>&1; rc2=$?
	eq "$name: same exit status" "$rc1" "$rc2"
	check "$name: same output" cmp "$TMP/$name.plain" "$TMP/$name.traced"
	n=0 bad_files=0 mallocs=0
	for f in "$TMP/$name".*[0-9]; do
		n=$((n + 1))
		"$BIN/trace_dump" -c "$f" >/dev/null || bad_files=$((bad_files + 1))
		mallocs=$((mallocs + $(count "$f" malloc)))
	done
	eq "$name: every trace valid" 0 "$bad_files"
	ge "$name: mallocs recorded" 10 "$mallocs"
}
seq 1 20000 | awk '{ print ($1 * 7919) % 10007 }' >"$TMP/numbers"
compare ls ls -la /usr/bin
compare sort sort -n "$TMP/numbers"
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
if [ -n "$PY" ]; then
	compare python env PYTHONMALLOC=malloc "$PY" -c 'd = {str(i): [i] * (i % 7) for i in range(20000)}; print(sum(len(v) for v in d.values()))'
else
	bad "python3 not found"
fi
compare cxx "$TP/cxx_prog"
compare shell sh -c 'for i in 1 2 3; do echo $i | cat; done'

# --- a library the program links against allocates in its constructor, before main.  The loader
# runs the constructors of a program's libraries before a preloaded one's (those blocks were
# missing, and their frees counted as of unknown blocks: 2,241 in a clang++ run); the tracer
# is marked to be initialised first (-z initfirst), before libc's own initialisation even, and
# takes the environment from its constructor's arguments
traced "$TMP/ctor_dep" "$TP/ctor_dep" >"$TMP/ctor_dep.out"; eq "library constructor: exit 0" 0 "$?"
f=$(one_file "$TMP/ctor_dep.*[0-9]")
set -- $(cat "$TMP/ctor_dep.out")   # the two blocks' addresses
for a in "$1" "$2"; do
	"$BIN/trace_dump" "$f" | grep -q "malloc(2001) = $a " && ok "library constructor: malloc of $a recorded" ||
		bad "library constructor: no malloc of $a: $("$BIN/trace_dump" "$f" | head -n 14 | tail -n 3)"
	"$BIN/trace_dump" "$f" | grep -q "free($a)" && ok "library constructor: its free recorded" || bad "no free($a)"
done
# and the library's destructor, which the loader runs after ours (nothing depends on us): the
# stop waits for the end of exit's handlers, among them the loader's finalisation
"$BIN/trace_dump" "$f" | grep -v " memory: " | tail -n 3 | grep -q 'malloc(2002) = ' && ok "library destructor: its malloc recorded" ||
	bad "library destructor: no malloc(2002): $("$BIN/trace_dump" "$f" | tail -n 3)"
"$BIN/trace_dump" "$f" | grep -v " memory: " | tail -n 2 | grep -q 'free(0x' && ok "library destructor: its free recorded" || bad "library destructor: no free"
"$BIN/trace2wl" "$TMP/ctor_dep.wl" "$f" >"$TMP/out" 2>&1
grep -q 'skipped: 0 frees of blocks not live' "$TMP/out" && ok "library constructor: no free of an unknown block" || bad "$(grep skipped "$TMP/out")"
readelf -d "$LIB" 2>/dev/null | grep -q 'Flags:.*INITFIRST' && ok "libmtracectl.so is marked to be initialised first" ||
	bad "no INITFIRST: $(readelf -d "$LIB" 2>&1 | grep -i flags)"
finish
