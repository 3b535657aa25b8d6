# mtracectl passes the signals a user or a service manager sends it on to the program, waits for
# it, lists the traces, removes its manifest and exits as the program did.
. tests/lib.sh
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
ignored=$(awk '/^SigIgn:/ { print $2 }' /proc/$$/status)
for s in INT:2 QUIT:3; do
	sig=${s%:*} n=${s#*:}
	if [ $(( 0x$ignored >> (n - 1) & 1 )) -eq 1 ]; then
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
finish
