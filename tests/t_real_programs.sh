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
finish
