# Tracing other allocators: preloaded after the tracer, each is the one called (the header says
# it is not glibc), programs behave as with that allocator untraced, and every call is recorded.
. tests/lib.sh
found=0
for name in libjemalloc.so.2 libtcmalloc_minimal.so.4 libmimalloc.so.2; do
	so=$(ls /usr/lib/*/"$name" /usr/lib/"$name" 2>/dev/null | head -n 1)
	if [ -z "$so" ]; then
		echo "# $name not installed"
		continue
	fi
	found=$((found + 1))
	LD_PRELOAD="$so" "$TP/bigalloc" 50000 >"$TMP/plain" 2>&1
	MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/$name" LD_PRELOAD="$LIB $so" "$TP/bigalloc" 50000 >"$TMP/traced" 2>&1
	eq "$name: exit status" 0 "$?"
	check "$name: same output as untraced with $name" cmp "$TMP/plain" "$TMP/traced"
	f=$(one_file "$TMP/$name.*")
	check "$name: trace validates" "$BIN/trace_dump" -c "$f"
	eq "$name: header says the allocator is not glibc" 0 "$(count "$f" glibc)"
	# some allocators lack reallocarray or pvalloc, so glibc's is called and the blocks cross
	# allocators: the program then crashes untraced too, and must crash the same way traced
	LD_PRELOAD="$so" "$TP/entry_points" --count >/dev/null 2>&1; rc1=$?
	MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/c$name" LD_PRELOAD="$LIB $so" "$TP/entry_points" --count >/dev/null 2>&1; rc2=$?
	eq "$name: --count exits as it does untraced" "$rc1" "$rc2"
	f=$(one_file "$TMP/c$name.*")
	eq "$name: malloc(10001) x7" 7 "$(count "$f" malloc 10001)"
	eq "$name: memalign(64,10004) x3" 3 "$(count "$f" memalign 10004)"
	if [ "$rc1" = 0 ]; then
		eq "$name: reallocarray x2" 2 "$(count "$f" reallocarray 10009)"
	else
		echo "# $name: the program fails untraced (exit $rc1): mixed allocators, not the tracer"
	fi
	"$BIN/trace_dump" "$f" | awk '/malloc\(10001\) = / { for (i = 1; i <= NF; i++) if ($i == "usable") u = $(i + 1); exit } END { exit !(u >= 10001) }' &&
		ok "$name: usable size comes from $name" || bad "$name: usable size"
	"$TP/entry_points" >/dev/null 2>&1 && LD_PRELOAD="$so" "$TP/entry_points" >"$TMP/p2" 2>&1
	MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/e$name" LD_PRELOAD="$LIB $so" "$TP/entry_points" >"$TMP/t2" 2>&1
	check "$name: edge cases return the same as $name untraced" cmp "$TMP/p2" "$TMP/t2"
done
[ $found -eq 0 ] && skip "none of jemalloc, tcmalloc, mimalloc is installed (apt-get install libjemalloc2 libtcmalloc-minimal4 libmimalloc2.0)"
finish
