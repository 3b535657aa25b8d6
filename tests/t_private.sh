# The tests that run a program as an unprivileged user (t_secure, t_unwritable) pass from a
# checkout in a private directory (mode 0700, as a home directory or `mktemp -d`), which that
# user cannot enter: they run here from a copy of what they use, made in such a directory.
. tests/lib.sh
[ "$(id -u)" = 0 ] || skip "needs root: only root runs programs as another user in these tests"
command -v setpriv >/dev/null || skip "needs setpriv (util-linux) to run as another user"
p="$TMP/private/x"
mkdir -p "$p/tests/prog" "$p/$B/lib" "$p/$B/tests"
chmod 700 "$TMP/private"
cp tests/lib.sh tests/t_secure.sh tests/t_unwritable.sh "$p/tests/"
cp -P "$ROOT/$B/lib"/* "$p/$B/lib/"
cp "$TP/bigalloc" "$p/$B/tests/"
# api_secure and ctl_secure find libmtrace and libmtracectl by their absolute RUNPATH (secure
# mode ignores $ORIGIN): linked again, to the copy
${CC:-cc} -std=gnu11 -Iinclude tests/prog/api_secure.c -o "$p/$B/tests/api_secure" -L"$p/$B/lib" -lmtrace \
	-Wl,-rpath,"$p/$B/lib"
eq "api_secure linked to the private copy" 0 "$?"
${CC:-cc} -std=gnu11 -Iinclude tests/prog/ctl_secure.c -o "$p/$B/tests/ctl_secure" -L"$p/$B/lib" \
	-l:libmtracectl.so -Wl,-rpath,"$p/$B/lib"
eq "ctl_secure linked to the private copy" 0 "$?"
check "the unprivileged user cannot reach the copy" sh -c "! setpriv --reuid=65534 --regid=65534 --clear-groups test -r '$p/$B/lib/libmtracectl.so'"
for t in t_secure t_unwritable; do
	(cd "$p" && ROOT="$p" sh "tests/$t.sh") >"$TMP/$t.log" 2>&1
	eq "$t from a private directory: passes" 0 "$?"
	grep '^not ok' "$TMP/$t.log"
done
finish
