# make install puts libraries, headers, tools and man pages under DESTDIR/PREFIX, and the
# installed wrapper finds the installed preload.
. tests/lib.sh
make -s install PREFIX=/opt/mt DESTDIR="$TMP/root" >/dev/null
eq "make install exit status" 0 "$?"
for f in lib/libmtracectl.so lib/libmtrace.so include/mtrace.h include/mtrace-trace.h include/mtrace-workload.h bin/trace_dump bin/trace2wl bin/trace_run bin/trace_stats bin/trace_import bin/trace_pack bin/trace_plot bin/mtracectl share/man/man1/trace_import.1 share/man/man1/trace_plot.1 share/man/man1/trace_pack.1 share/man/man1/trace2wl.1 share/man/man1/trace_run.1 share/man/man1/trace_stats.1 share/man/man1/trace_dump.1 share/man/man1/mtracectl.1 share/man/man3/libmtracectl.3; do
	check "installed $f" test -e "$TMP/root/opt/mt/$f"
done
ge "man pages installed" 2 "$(ls "$TMP/root/opt/mt/share/man/man1" "$TMP/root/opt/mt/share/man/man3" 2>/dev/null | grep -c '\.[13]$')"
"$TMP/root/opt/mt/bin/mtracectl" -o "$TMP/i" -- "$TP/entry_points" --count >/dev/null 2>&1
eq "installed wrapper traces" 7 "$(count "$(one_file "$TMP/i.*")" malloc 10001)"
finish
