# make install puts libraries, headers, tools and man pages under DESTDIR/PREFIX, and the
# installed wrapper finds the installed preload.
. tests/lib.sh
make -s install PREFIX=/opt/mt DESTDIR="$TMP/root" >/dev/null
eq "make install exit status" 0 "$?"
for f in lib/libmtracectl.so lib/libmtrace.so include/mtrace.h include/mtrace-trace.h include/mtrace-workload.h bin/trace_dump bin/trace2wl bin/trace_run bin/trace_stats bin/trace_import bin/trace_pack bin/trace_plot bin/mtracectl share/man/man1/trace_import.1 share/man/man1/trace_plot.1 share/man/man1/trace_pack.1 share/man/man1/trace2wl.1 share/man/man1/trace_run.1 share/man/man1/trace_stats.1 share/man/man1/trace_dump.1 share/man/man1/mtracectl.1 share/man/man3/libmtracectl.3; do
	check "installed $f" test -e "$TMP/root/opt/mt/$f"
done
ge "man pages installed" 2 "$(ls "$TMP/root/opt/mt/share/man/man1" "$TMP/root/opt/mt/share/man/man3" 2>/dev/null | grep -c '\.[13]$')"
# pkg-config finds the control API: a program built with its flags links and traces a region
pc="$TMP/root/opt/mt/lib/pkgconfig/mtrace.pc"
eq "mtrace.pc names the prefix" "prefix=/opt/mt" "$(sed -n 1p "$pc")"
if command -v pkg-config >/dev/null 2>&1; then
	flags=$(PKG_CONFIG_PATH="$TMP/root/opt/mt/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$TMP/root" pkg-config --cflags --libs mtrace | xargs)
	eq "pkg-config --cflags --libs mtrace" "-I$TMP/root/opt/mt/include -L$TMP/root/opt/mt/lib -lmtrace" "$flags"
	printf '#include <mtrace.h>\n#include <stdlib.h>\nint main(void) { mtrace_init(0); mtrace_start(); free(malloc(10002)); return mtrace_stop(); }\n' >"$TMP/region.c"
	cc "$TMP/region.c" $flags -Wl,-rpath,"$TMP/root/opt/mt/lib" -o "$TMP/pc"; eq "a program built with those flags" 0 "$?"
	MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/pc" "$TMP/pc"
	eq "... traces its region" 1 "$(count "$(one_file "$TMP/pc.*")" malloc 10002)"
else
	echo "# pkg-config not installed: the file's first line checked only"
fi
"$TMP/root/opt/mt/bin/mtracectl" -o "$TMP/i" -- "$TP/entry_points" --count >/dev/null 2>&1
eq "installed wrapper traces" 7 "$(count "$(one_file "$TMP/i.*")" malloc 10001)"
finish
