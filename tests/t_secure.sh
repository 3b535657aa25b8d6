# Secure execution (setuid): MTRACE_CTL_FILE is ignored, the trace goes to the default name;
# MTRACE_CTL_START=0 cannot switch off the tracing of a program that has the tracer in it.
. tests/lib.sh
[ "$(id -u)" = 0 ] || skip "needs root to make a setuid-root program (run as root to test secure mode)"
command -v setpriv >/dev/null || skip "needs setpriv (util-linux) to run as another user"
chmod 755 "$TMP"
mkdir "$TMP/evil"; chmod 777 "$TMP/evil"
cp "$TP/api_secure" "$TMP/sec"
chmod 755 "$TMP/sec"
# the unprivileged user may not reach the build (a checkout in a private directory): the
# control run finds libmtrace in a copy beside the program (the setuid run, as root, reaches
# it through the program's absolute RUNPATH, as it must: secure mode ignores the environment)
mkdir "$TMP/lib"
cp -P "$ROOT/$B/lib"/libmtrace.so* "$ROOT/$B/lib/libmtracectl.so" "$TMP/lib/"
chmod -R a+rX "$TMP/lib"
# control: not setuid, the variable is honoured
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups env LD_LIBRARY_PATH="$TMP/lib" MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/evil/x" "$TMP/sec")
case "$out" in "$TMP/evil/x."*) ok "not setuid: MTRACE_CTL_FILE chooses the file ($out)" ;; *) bad "control run: '$out'" ;; esac
rm -f "$TMP"/evil/*
chown root:root "$TMP/sec"; chmod 4755 "$TMP/sec"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups env MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/evil/x" "$TMP/sec")
eq "setuid: exit 0" 0 "$?"
case "$out" in /tmp/mtrace.out.*) ok "setuid: the default name is used ($out)" ;; *) bad "setuid: '$out'" ;; esac
eq "setuid: nothing was created where the environment pointed" "" "$(ls "$TMP/evil")"
[ -n "$out" ] && rm -f "$out"
# the tracer brought in by the program itself (as /etc/ld.so.preload would): the invoking
# user's MTRACE_CTL_START=0 is honoured when not setuid, ignored when setuid
cp "$TP/ctl_secure" "$TMP/ctl"
chmod 755 "$TMP/ctl"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups env LD_LIBRARY_PATH="$TMP/lib" MTRACE_CTL_START=0 "$TMP/ctl" 2>/dev/null)
eq "not setuid: MTRACE_CTL_START=0 leaves the tracer dormant" dormant "$out"
chown root:root "$TMP/ctl"; chmod 4755 "$TMP/ctl"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups env MTRACE_CTL_START=0 "$TMP/ctl" 2>/dev/null)
case "$out" in /tmp/mtrace.out.*) ok "setuid: MTRACE_CTL_START=0 ignored, the program is traced ($out)" ;;
	*) bad "setuid: MTRACE_CTL_START=0 switched the tracing off ('$out')" ;; esac
case "$out" in /tmp/mtrace.out.*) rm -f "$out" ;; esac
finish
