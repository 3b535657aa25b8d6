# mtracectl passes the signals a user or a service manager sends it on to the program (every
# one it can catch), follows the program's job control, waits for it, lists the traces, removes
# its manifest (made in $TMPDIR, else /tmp) and exits as the program did.
. tests/lib.sh
unset TMPDIR   # (set again where it is tried)
# ready FILE: wait (a minute at most) for the program to write its pid to FILE
ready() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	cat "$1" 2>/dev/null
}
# manifest PID: the manifest mtracectl made for the traces' names (the program's environment)
manifest() { tr '\0' '\n' <"/proc/$1/environ" | sed -n 's/^MTRACE_CTL_MANIFEST=//p'; }

# a program that handles the signal: it gets it, ends as it chooses (exit 0), and mtracectl
# with it.  (SIGINT and SIGQUIT are ignored by a background job of a non-interactive shell, in
# mtracectl and so in the program: they are not tried here.)
for s in TERM:15 HUP:1 USR1:10; do
	sig=${s%:*} n=${s#*:}
	if ignored_here "$n"; then
		echo "# SIG$sig is ignored in this shell (nohup)," \
			"so in mtracectl and the program: not tried"
		continue
	fi
	rm -f "$TMP/pid"
	"$BIN/mtracectl" -o "$TMP/c$sig" -- "$TP/sigwait" "$TMP/pid" catch >"$TMP/out" 2>"$TMP/err" &
	m=$!
	p=$(ready "$TMP/pid")
	[ -n "$p" ] || { bad "SIG$sig: the program never got ready"; kill -KILL $m; continue; }
	mf=$(manifest "$p")
	case "$mf" in /tmp/mtracectl.*) ok "SIG$sig: the manifest is $mf" ;; *) bad "SIG$sig: manifest '$mf'" ;; esac
	kill -"$sig" $m
	wait $m
	eq "SIG$sig to mtracectl: the exit status is the program's own" 0 "$?"
	eq "SIG$sig to mtracectl: the program got it" "got $n" "$(cat "$TMP/out")"
	eq "SIG$sig to mtracectl: its trace listed" 1 "$(grep -c "^mtracectl: pid $p (sigwait): $TMP/c$sig\.$p, " "$TMP/err")"
	[ -n "$mf" ] && [ ! -e "$mf" ] && ok "SIG$sig: the manifest is removed" || bad "SIG$sig: manifest '$mf' left behind"
done

# a program that keeps the default action: it dies of the signal, mtracectl says so and exits
# 128+N, and nothing runs on
rm -f "$TMP/pid"
"$BIN/mtracectl" -o "$TMP/d" -- "$TP/sigwait" "$TMP/pid" default >/dev/null 2>"$TMP/err" &
m=$!
p=$(ready "$TMP/pid")
mf=$(manifest "$p")
kill -TERM $m
wait $m
eq "SIGTERM, default action: 128+15" 143 "$?"
kill -0 "$p" 2>/dev/null && { bad "SIGTERM, default action: the program runs on as an orphan"; kill -KILL "$p"; } ||
	ok "SIGTERM, default action: the program is gone"
grep -q "sigwait was killed by signal 15" "$TMP/err" && ok "SIGTERM, default action: says so" || bad "message: $(cat "$TMP/err")"
eq "SIGTERM, default action: its trace listed" 1 "$(grep -c "^mtracectl: pid $p (sigwait): $TMP/d\.$p, " "$TMP/err")"
[ -n "$mf" ] && [ ! -e "$mf" ] && ok "SIGTERM, default action: the manifest is removed" || bad "manifest '$mf' left behind"

# SIGINT and SIGQUIT sent by kill (not the terminal's, which reach the program directly) go on
# too: mtracectl in the foreground here, signalled by its program's parent pid
for s in INT:2 QUIT:3; do
	sig=${s%:*} n=${s#*:}
	if ignored_here "$n"; then
		echo "# SIG$sig is ignored in this shell, so in mtracectl and the program: not tried"
		continue
	fi
	rm -f "$TMP/pid"
	# (and if mtracectl does not pass it on, the program is ended after a minute, by SIGTERM)
	( p=$(ready "$TMP/pid"); m=$(awk '{ print $4 }' "/proc/$p/stat"); kill -"$sig" "$m"
	  i=0; while kill -0 "$m" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	  kill -TERM "$p" 2>/dev/null ) &
	"$BIN/mtracectl" -o "$TMP/f$sig" -- "$TP/sigwait" "$TMP/pid" catch >"$TMP/out" 2>"$TMP/err"
	eq "SIG$sig by kill to mtracectl: the exit status is the program's own" 0 "$?"
	eq "SIG$sig by kill to mtracectl: the program got it" "got $n" "$(cat "$TMP/out")"
	wait
done

# a signal ignored when mtracectl starts (nohup) stays ignored, in the program too: it dies of
# the SIGTERM after it (128+15), not of the SIGHUP before (128+1)
rm -f "$TMP/pid"
( trap '' HUP; exec "$BIN/mtracectl" -o "$TMP/n" -- "$TP/sigwait" "$TMP/pid" default >/dev/null 2>&1 ) &
m=$!
p=$(ready "$TMP/pid")
kill -HUP $m
kill -HUP "$p"
kill -TERM $m
wait $m
eq "SIGHUP ignored from the start (nohup): the program ends of the SIGTERM after it" 143 "$?"
# every other signal mtracectl can catch reaches the program (one that catches them all says
# which it got): SIGWINCH and SIGURG, which mtracectl would ignore; SIGPWR and SIGRTMIN+1,
# which would end it and leave the program running, orphaned; SIGSEGV and the other faults
# sent by kill.  (A signal not passed on leaves the program waiting: it is killed after a
# while, and the check fails.)
for n in 1 4 5 6 7 8 10 11 12 13 14 15 16 18 23 24 25 26 27 28 29 30 31 34 35 64; do
	if ignored_here "$n"; then
		echo "# signal $n is ignored in this shell (nohup): not tried"
		continue
	fi
	rm -f "$TMP/pid"
	"$BIN/mtracectl" -q -o "$TMP/a" -- "$TP/sigwait" "$TMP/pid" all >"$TMP/out" 2>"$TMP/err" &
	m=$!
	p=$(ready "$TMP/pid")
	mf=$(manifest "$p")
	kill -$n $m
	i=0; while kill -0 $m 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	kill -0 "$p" 2>/dev/null && kill -KILL "$p"
	wait $m
	rc=$?
	got=$(cat "$TMP/out")
	if [ $rc -eq 0 ] && [ "$got" = "got $n" ] && [ -n "$mf" ] && [ ! -e "$mf" ]; then
		ok "signal $n to mtracectl: the program got it, mtracectl exited 0, its manifest removed"
	else
		bad "signal $n to mtracectl: exit $rc, the program said '$got', manifest '$mf'$([ -e "$mf" ] && echo ' left behind')"
	fi
done

# the program starts with the dispositions and the mask it has untraced (mtracectl's own
# ignored SIGXFSZ is not its): with SIGHUP ignored (nohup), and without
sigs() { grep -E '^Sig(Ign|Blk):' /proc/self/status | tr '\n\t' '  '; }
traced_sigs() { "$BIN/mtracectl" -q -o "$TMP/m" -- grep -E '^Sig(Ign|Blk):' /proc/self/status | tr '\n\t' '  '; }
eq "the program's ignored and blocked signals, as untraced" "$(sigs)" "$(traced_sigs)"
eq "nohup: the program's ignored and blocked signals, as untraced" "$(trap '' HUP; sigs)" "$(trap '' HUP; traced_sigs)"

# job control, as a shell's child: SIGTSTP to mtracectl stops the program, then mtracectl;
# SIGCONT continues both.  The same sent to the whole group (what the terminal's ^Z does).
# Run as a job of its own (newpgrp): in an orphaned group the kernel drops SIGTSTP.
state() { awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null; }
# until_state PID STATE: PID's state once it is STATE (T stopped, S sleeping), or after a while
until_state() {
	i=0
	while [ "$(state "$1")" != "$2" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	state "$1"
}
rm -f "$TMP/pid"
"$TP/newpgrp" "$BIN/mtracectl" -o "$TMP/js" -- "$TP/sigwait" "$TMP/pid" catch >"$TMP/out" 2>"$TMP/err" &
g=$!
p=$(ready "$TMP/pid")
m=$(awk '{ print $4 }' "/proc/$p/stat")
# sig SIGNAL TO: kill, which the shell's may not do to a group (-PGID)
sig() { if [ -x /bin/kill ]; then /bin/kill -s "$1" -- "$2"; else kill -s "$1" "$2"; fi; }
for to in "$m" "-$m"; do
	what="SIGTSTP to mtracectl"; [ "$to" = "-$m" ] && what="SIGTSTP to the group"
	sig TSTP "$to"
	eq "$what: the program stops" T "$(until_state "$p" T)"
	eq "$what: mtracectl stops once the program has" T "$(until_state "$m" T)"
	sig CONT "$to"
	eq "$what, then SIGCONT: the program goes on" S "$(until_state "$p" S)"
	eq "$what, then SIGCONT: mtracectl goes on" S "$(until_state "$m" S)"
done
# the program stopped already when SIGTSTP reaches mtracectl (as when the terminal's ^Z stops
# it and its news comes first): mtracectl stops at once, and SIGCONT continues both
kill -STOP "$p"
until_state "$p" T >/dev/null
kill -TSTP "$m"
eq "SIGTSTP to mtracectl, the program stopped already: mtracectl stops" T "$(until_state "$m" T)"
kill -CONT "$m"
eq "... then SIGCONT: the program goes on" S "$(until_state "$p" S)"
eq "... then SIGCONT: mtracectl goes on" S "$(until_state "$m" S)"
kill -TERM "$m"
wait $g
eq "after job control: SIGTERM ends both, the program's status" 0 "$?"
eq "after job control: the program got the SIGTERM" "got 15" "$(cat "$TMP/out")"
kill -KILL "$p" 2>/dev/null && bad "the program was left running"

# the manifest is made in $TMPDIR
mkdir "$TMP/td"
rm -f "$TMP/pid"
TMPDIR="$TMP/td" "$BIN/mtracectl" -o "$TMP/t" -- "$TP/sigwait" "$TMP/pid" catch >/dev/null 2>"$TMP/err" &
m=$!
p=$(ready "$TMP/pid")
mf=$(manifest "$p")
case "$mf" in "$TMP/td/mtracectl."*) ok "TMPDIR: the manifest is $mf" ;; *) bad "TMPDIR: manifest '$mf'" ;; esac
kill -TERM $m
wait $m
eq "TMPDIR: the trace listed" 1 "$(grep -c "^mtracectl: pid $p (sigwait): $TMP/t\.$p, " "$TMP/err")"
eq "TMPDIR: the manifest removed" "" "$(ls -A "$TMP/td")"
# /tmp read-only (a private mount namespace, as root) and TMPDIR elsewhere: mtracectl runs
case "$ROOT" in /tmp/*) root_in_tmp=1 ;; *) root_in_tmp=0 ;; esac
if [ "$(id -u)" = 0 ] && [ $root_in_tmp = 0 ] && unshare -m true 2>/dev/null; then
	d=$(mktemp -d "$ROOT/$B/tmpdir.XXXXXX")
	unshare -m sh -c 'mount -t tmpfs -o ro none /tmp && TMPDIR="$1" exec "$2" -o "$1/t" -- "$3" fork' \
		sh "$d" "$BIN/mtracectl" "$TP/forker" >/dev/null 2>"$TMP/err"
	eq "read-only /tmp, TMPDIR writable: exit 0" 0 "$?"
	eq "read-only /tmp: both traces listed" 2 "$(grep -c "^mtracectl: pid [0-9]* (forker): $d/t\.[0-9]*, " "$TMP/err")"
	eq "read-only /tmp: nothing left in TMPDIR but the traces" 2 "$(ls -A "$d" | wc -l)"
	rm -rf "$d"
else
	echo "# not root, no mount namespace or the build in /tmp: the read-only /tmp is left out"
fi
finish
