# make install lays the tree out as a Debian library: libmtrace.so.0 (its SONAME) with the
# development link, the preload, tools, headers, man pages with a link for each function of
# <mtrace.h>, the format documents, a pkg-config file; LIBDIR may be multiarch; the staged
# wrapper finds the staged preload; make uninstall removes every file it installed.
. tests/lib.sh
R="$TMP/root" P=/opt/mt L=/opt/mt/lib/x86_64-linux-gnu
vars="PREFIX=$P LIBDIR=$L DESTDIR=$R"
make -s install $vars >"$TMP/make.log" 2>&1
eq "make install $vars: exit status" 0 "$?"
for f in lib/x86_64-linux-gnu/libmtracectl.so lib/x86_64-linux-gnu/libmtrace.so.0.1.0 include/mtrace.h \
	include/mtrace-trace.h include/mtrace-workload.h bin/trace_dump bin/trace2wl bin/trace_run bin/trace_stats \
	bin/trace_import bin/trace_pack bin/trace_plot bin/mtracectl share/man/man1/mtracectl.1 \
	share/man/man1/trace_plot.1 share/man/man3/libmtracectl.3 share/doc/mtrace/trace-format.md \
	share/doc/mtrace/workload-format.md share/doc/mtrace/options.md share/doc/mtrace/README.md \
	share/doc/mtrace/examples/mbench.c; do
	check "installed $f" test -f "$R$P/$f"
done
for t in trace_dump trace2wl trace_run trace_stats trace_import trace_pack trace_plot mtracectl; do
	check "man page of $t" test -f "$R$P/share/man/man1/$t.1"
done
# every relative link of the installed documents leads to an installed file
broken=""
for d in "$R$P"/share/doc/mtrace/*.md; do
	for l in $(grep -o '](\([^)#:]*\)' "$d" | sed 's/^](//' | sort -u); do
		[ -e "$(dirname "$d")/$l" ] || broken="$broken $(basename "$d"):$l"
	done
done
eq "installed documents: every link resolves" "" "$broken"
# the library: SONAME libmtrace.so.0, the links beside it, not executable (Debian policy)
lib="$R$L"
eq "libmtrace.so.0 -> the real file" libmtrace.so.0.1.0 "$(readlink "$lib/libmtrace.so.0")"
eq "libmtrace.so (development link) -> libmtrace.so.0" libmtrace.so.0 "$(readlink "$lib/libmtrace.so")"
if command -v readelf >/dev/null; then
	eq "SONAME" "[libmtrace.so.0]" "$(readelf -d "$lib/libmtrace.so.0.1.0" | awk '/SONAME/ { print $NF }')"
fi
eq "libraries installed mode 644" "644 644" "$(stat -c %a "$lib/libmtrace.so.0.1.0" "$lib/libmtracectl.so" | xargs)"
check "nothing in PREFIX/lib itself (LIBDIR is multiarch)" sh -c "! ls '$R$P/lib' | grep -q '^lib'"
# a man page for each function of <mtrace.h>
fns=$(sed -n 's/^[a-z].*[ *]\(mtrace_[a-z_]*\)(.*/\1/p' include/mtrace.h)
ge "functions in mtrace.h" 9 "$(echo $fns | wc -w)"
for fn in $fns libmtrace; do
	check "man 3 $fn: a link to libmtracectl(3)" test "$(readlink -f "$R$P/share/man/man3/$fn.3")" = "$(readlink -f "$R$P/share/man/man3/libmtracectl.3")"
done
if command -v man >/dev/null; then
	MANWIDTH=80 man -M "$R$P/share/man" mtrace_init 2>/dev/null | grep -q 'mtrace_init' &&
		ok "man mtrace_init shows the page" || bad "man mtrace_init: $(man -M "$R$P/share/man" mtrace_init 2>&1 | head -n 2)"
else
	echo "# man is not installed: the page links are checked by their targets only"
fi
# pkg-config finds the control API: a program built with its flags links libmtrace.so.0
pc="$lib/pkgconfig/mtrace.pc"
eq "mtrace.pc names the prefix" "prefix=$P" "$(sed -n 1p "$pc")"
eq "mtrace.pc names LIBDIR" "libdir=$L" "$(sed -n 2p "$pc")"
if command -v pkg-config >/dev/null 2>&1; then
	flags=$(PKG_CONFIG_PATH="$lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$R" pkg-config --cflags --libs mtrace | xargs)
	eq "pkg-config --cflags --libs mtrace" "-I$R$P/include -L$lib -lmtrace" "$flags"
	printf '#include <mtrace.h>\n#include <stdlib.h>\nint main(void) { mtrace_init(0); mtrace_start(); free(malloc(10002)); return mtrace_stop(); }\n' >"$TMP/region.c"
	cc "$TMP/region.c" $flags -Wl,-rpath,"$lib" -o "$TMP/pc"; eq "a program built with those flags" 0 "$?"
	command -v readelf >/dev/null && eq "... needs libmtrace.so.0" "[libmtrace.so.0]" "$(readelf -d "$TMP/pc" | awk '/NEEDED.*libmtrace/ { print $NF }')"
	MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/pc" "$TMP/pc"
	eq "... traces its region" 1 "$(count "$(one_file "$TMP/pc.*")" malloc 10002)"
else
	echo "# pkg-config not installed: the file's first lines checked only"
fi
# the staged wrapper finds the staged preload (LIBDIR itself does not exist outside DESTDIR)
check "LIBDIR exists only under DESTDIR" test ! -e "$L"
env -u MTRACE_CTL_LIB "$R$P/bin/mtracectl" -q -o "$TMP/i" -- "$TP/entry_points" --count >/dev/null 2>"$TMP/err"
eq "installed wrapper traces" 7 "$(count "$(one_file "$TMP/i.*")" malloc 10001)"
# ... also once the staged tree is moved (as a package is unpacked elsewhere)
mv "$R" "$TMP/moved"
env -u MTRACE_CTL_LIB "$TMP/moved$P/bin/mtracectl" -q -o "$TMP/m" -- "$TP/entry_points" --count >/dev/null 2>&1
eq "moved: installed wrapper traces" 7 "$(count "$(one_file "$TMP/m.*")" malloc 10001)"
mv "$TMP/moved" "$R"
# uninstall leaves no file and no link behind
make -s uninstall $vars >"$TMP/make.log" 2>&1
eq "make uninstall: exit status" 0 "$?"
eq "make uninstall: nothing left" "" "$(find "$R" ! -type d | sed "s|$R||" | head -n 5 | xargs)"
check "make uninstall: the documentation's directory removed" test ! -e "$R$P/share/doc/mtrace"
finish
