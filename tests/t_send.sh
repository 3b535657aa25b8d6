# mtracectl --send and trace_recv (issue 40): every trace of the tree arrives byte for byte (cmp)
# over TCP and over a command's pipe, through a link cut mid-stream, a collector killed and
# started again, a program killed by SIGKILL, ten senders at once; malformed streams are refused
# naming their offset.  Loopback only; every background process in its own group, killed.
. tests/lib.sh
R=$BIN/trace_recv
CTL=$BIN/mtracectl
pgids=""
yama_was=
trap 'for g in $pgids; do kill -9 -- -$g 2>/dev/null; done
	[ -n "$yama_was" ] && echo "$yama_was" >/proc/sys/kernel/yama/ptrace_scope; rm -rf "$TMP"' EXIT

# start_recv DIR OUT [PORT]: a collector in its own group listening on loopback; its port in $port
start_recv() {
	setsid timeout -k 5 300 "$R" -q -o "$1" --listen "127.0.0.1:${3:-0}" >"$2" 2>"$2.err" &
	rpid=$!
	pgids="$pgids $rpid"
	i=0
	while ! grep -q '^listening' "$2" && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	port=$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$2")
}
# same LOCALDIR RECVDIR: "N same" when each of the N local traces has an identical received one
same() {
	n=0 s=0
	for f in "$1"/*; do
		n=$((n + 1))
		g=$(ls "$2"/*/"$(basename "$f")" 2>/dev/null | head -n 1)
		[ -n "$g" ] && cmp -s "$f" "$g" && s=$((s + 1))
	done
	echo "$n traces, $s identical"
}

untraced=$("$TP/threads" 16 4 3000 20000)

# TCP, compressed (--send-compress=auto, the default)
start_recv "$TMP/r1" "$TMP/r1.out"
mkdir "$TMP/l1"
out=$(timeout -k 5 120 "$CTL" -o "$TMP/l1" --send="127.0.0.1:$port" -- "$TP/threads" 16 4 3000 20000 \
	2>"$TMP/err1")
eq "over TCP: the program's output as untraced" "$untraced" "$out"
eq "... and every trace received byte for byte" "1 traces, 1 identical" "$(same "$TMP/l1" "$TMP/r1")"
ratio=$(sed -n 's/^mtracectl: sent [0-9,]* bytes of traces as [0-9,]* on the wire (\([0-9]*\)\..*/\1/p' \
	"$TMP/err1")
ge "... compressed: the wire carries a third of the bytes or less ($(grep -o '([0-9.]*x)' \
	"$TMP/err1"))" 3 "$ratio"
mkdir "$TMP/l1n"
timeout -k 5 120 "$CTL" -o "$TMP/l1n" --send="127.0.0.1:$port" --send-compress=none -- \
	"$TP/threads" 16 4 3000 20000 >/dev/null 2>"$TMP/err1n"
eq "--send-compress=none: every trace received byte for byte" "1 traces, 1 identical" \
	"$(same "$TMP/l1n" "$TMP/r1")"
check "... uncompressed: $(grep -o '([0-9.]*x)' "$TMP/err1n")" grep -q '(0\.99x)\|(1\.00x)' \
	"$TMP/err1n"

# an older collector (stream version 1, played by a script in front of trace_recv) refuses a
# version-2 HELLO as such a trace_recv does: auto goes on uncompressed, slots sends nothing
cat >"$TMP/oldrecv.sh" <<EOF
dd bs=1 count=26 of="\$1.hello" 2>/dev/null
if [ "\$(od -An -tu1 -j24 -N1 "\$1.hello" | tr -d ' ')" = 2 ]; then
	printf '\\010\\000\\000\\000\\000\\000\\000\\000\\052\\000\\000\\000\\000\\000\\000\\000'
	printf 'stream version 2 (this trace_recv reads 1)'
	exit 0
fi
{ cat "\$1.hello"; cat; } | "$R" -q -o "\$2" -
EOF
mkdir "$TMP/l1o"
timeout -k 5 120 "$CTL" -o "$TMP/l1o" --send="|sh $TMP/oldrecv.sh $TMP/o1 $TMP/r1o" -- "$TP/threads" \
	4 4 1000 3000 >/dev/null 2>"$TMP/err1o"
eq "an older collector: status" 0 $?
check "... mtracectl says: $(grep -F 'older' "$TMP/err1o")" grep -q \
	'reads no compressed frames (an older trace_recv): sending uncompressed' "$TMP/err1o"
eq "... every trace received byte for byte, uncompressed" "1 traces, 1 identical" \
	"$(same "$TMP/l1o" "$TMP/r1o")"
mkdir "$TMP/l1s"
timeout -k 5 120 "$CTL" -o "$TMP/l1s" --send="|sh $TMP/oldrecv.sh $TMP/o2 $TMP/r1s" \
	--send-compress=slots -- "$TP/threads" 4 4 1000 3000 >/dev/null 2>"$TMP/err1s"
eq "an older collector, --send-compress=slots: status" 125 $?
check "... mtracectl says: $(grep -F 'older' "$TMP/err1s")" grep -q \
	'sends nothing to it, the local files keep the traces' "$TMP/err1s"
check "... the local trace is there" test -s "$(ls "$TMP"/l1s/* | head -n 1)"

# |COMMAND, a tree that forks and execs: one stream carries every process's trace
mkdir "$TMP/l2"
timeout -k 5 120 "$CTL" -q -o "$TMP/l2" --send="|$R -q -o $TMP/r2 -" -- "$TP/forker" exec >/dev/null
eq "over a command's pipe, fork and exec: the traces received" "3 traces, 3 identical" \
	"$(same "$TMP/l2" "$TMP/r2")"

# a link cut three times mid-stream (after 150000 bytes each time) is resumed
setsid timeout -k 5 300 "$TP/cutproxy" "$port" 150000 3 >"$TMP/proxy" 2>&1 &
pgids="$pgids $!"
i=0
while ! grep -q '^port' "$TMP/proxy" && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
pport=$(sed -n 's/^port //p' "$TMP/proxy")
mkdir "$TMP/l3"
timeout -k 5 120 "$CTL" -q -o "$TMP/l3" --send="127.0.0.1:$pport" -- "$TP/threads" 16 4 3000 20000 \
	>/dev/null
eq "a link cut 3 times mid-stream" "cut 3" "$(tail -n 1 "$TMP/proxy")"
eq "... resumed: every trace received byte for byte" "1 traces, 1 identical" \
	"$(same "$TMP/l3" "$TMP/r1")"

# the collector killed while a trace is being written (the shell's, waiting), then started again
# on its port while the program goes on: the sender sends what was not acknowledged
mkdir "$TMP/l4"
mkfifo "$TMP/go"
setsid timeout -k 5 200 "$CTL" -q -o "$TMP/l4" --send="127.0.0.1:$port" -- sh -c \
	"$TP/threads 8 4 2000 5000 >/dev/null; : >$TMP/phase1; read x <$TMP/go
	 $TP/threads 8 4 2000 5000 >/dev/null" &
spid=$!
pgids="$pgids $spid"
i=0
while [ ! -e "$TMP/phase1" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
kill -9 -"$rpid"
wait "$rpid" 2>/dev/null
echo go >"$TMP/go"
start_recv "$TMP/r1" "$TMP/r1b.out" "$port"
wait "$spid"
eq "collector killed and restarted mid-trace: mtracectl's status" 0 $?
eq "... every trace received byte for byte" "$(ls "$TMP/l4" | wc -l) traces, $(ls "$TMP/l4" | wc -l) identical" \
	"$(same "$TMP/l4" "$TMP/r1")"

# the program killed by SIGKILL: its trace, never finished, arrives as it is on disk
mkdir "$TMP/l5"
timeout -k 5 120 "$CTL" -q -o "$TMP/l5" --send="127.0.0.1:$port" -- sh -c \
	"$TP/threads 4 4 1000 3000 >/dev/null; kill -9 \$\$"
eq "a program killed by SIGKILL: mtracectl says so" 137 $?
eq "... its trace and its child's received byte for byte" "2 traces, 2 identical" \
	"$(same "$TMP/l5" "$TMP/r1")"

# ten senders at once into one collector
mkdir "$TMP/l6"
kids=""
for k in 1 2 3 4 5 6 7 8 9 10; do
	timeout -k 5 200 "$CTL" -q -o "$TMP/l6" --send="127.0.0.1:$port" -- "$TP/threads" 4 4 2000 \
		2000 >/dev/null &
	kids="$kids $!"
done
st=0
for k in $kids; do wait "$k" || st=$?; done
eq "ten senders at once: their status" 0 "$st"
eq "... ten traces received byte for byte" "10 traces, 10 identical" "$(same "$TMP/l6" "$TMP/r1")"

# --no-keep: the local file keeps its size but gives its blocks back once acknowledged; what the
# collector has is the whole trace
mkdir "$TMP/l8"
timeout -k 5 120 "$CTL" -q -o "$TMP/l8" --send="127.0.0.1:$port" --no-keep -- "$TP/threads" 2 2 10 \
	300000 >/dev/null
eq "--no-keep: status" 0 $?
f=$(ls "$TMP"/l8/*)
g=$(ls "$TMP"/r1/*/"$(basename "$f")")
size=$(stat -c %s "$f") kept=$(( $(stat -c %b "$f") * 512 ))
check "... the local file keeps its size, $size bytes, the same as the received one" \
	test "$size" -eq "$(stat -c %s "$g")" -a "$size" -gt 16000000
check "... but holds $kept bytes of disk (< 1 MiB)" test "$kept" -lt 1048576
ge "... the received trace has every call" 600040 "$(count "$g" calls)"

# no collector ever: the local files keep the traces, mtracectl says so and exits 125
mkdir "$TMP/l7"
timeout -k 5 120 "$CTL" -q -o "$TMP/l7" --send="127.0.0.1:1" --send-wait=1 -- "$TP/threads" 2 2 10 \
	>/dev/null 2>"$TMP/err7"
eq "no collector: exit status" 125 $?
check "... said: $(tail -n 1 "$TMP/err7")" grep -q 'the local files keep them' "$TMP/err7"
check "... the local trace is there" test -s "$(ls "$TMP"/l7/* | head -n 1)"

# --backlog: the collector never answers; once more than 1 MiB is unacknowledged, the traces
# still written stop (the shell's, at its next allocator call after it is asked), their
# headers saying why; the program goes on
mkdir "$TMP/l9"
mkfifo "$TMP/go9"
setsid timeout -k 5 120 "$CTL" -q -o "$TMP/l9" --send="127.0.0.1:1" --backlog=1M --send-wait=1 \
	-- sh -c "$TP/threads 1 1 10 100000 >/dev/null; read x <$TMP/go9; $TP/threads 1 1 1 1 >/dev/null
	echo went on" >"$TMP/out9" 2>"$TMP/err9" &
spid=$!
pgids="$pgids $spid"
i=0
while ! grep -q 'passed --backlog' "$TMP/err9" && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
echo go >"$TMP/go9"
wait "$spid"
eq "--backlog passed: the program goes on" "went on" "$(cat "$TMP/out9")"
check "... mtracectl says so: $(grep -F "passed --backlog" "$TMP/err9" | head -n 1)" grep -q 'passed --backlog: the traces stop' \
	"$TMP/err9"
nstop=0
for f in "$TMP"/l9/*; do
	"$BIN/trace_dump" -H "$f" | grep -q -F "stopped early, as what was not yet sent to the collector passed the bound (mtracectl --backlog)" &&
		nstop=$((nstop + 1))
done
ge "... the traces still written stopped early (the shell's, and the program's if it still ran), \
their headers saying why" 1 "$nstop"

# --backlog where Yama's ptrace_scope is 1: only an ancestor may write to a process, and the
# sender is the program's sibling; mtracectl, its parent, makes the stop.  As a user without
# CAP_SYS_PTRACE (which passes Yama), the scope set for the test and restored on exit.
Y=/proc/sys/kernel/yama/ptrace_scope
if [ -w "$Y" ] && [ "$(cat "$Y")" -le 1 ] && command -v setpriv >/dev/null; then
	yama_was=$(cat "$Y")
	echo 1 >"$Y"
	chmod 711 "$TMP"
	mkdir -m 777 "$TMP/l11"
	mkfifo -m 666 "$TMP/go11"
	setsid timeout -k 5 120 setpriv --reuid=65534 --regid=65534 --clear-groups env \
		TMPDIR="$TMP/l11" "$CTL" -q -o "$TMP/l11/t" --send="127.0.0.1:1" --backlog=1M \
		--send-wait=1 -- sh -c "$TP/threads 1 1 10 100000 >/dev/null; read x <$TMP/go11
		$TP/threads 1 1 1 1 >/dev/null" >/dev/null 2>"$TMP/err11" &
	spid=$!
	pgids="$pgids $spid"
	i=0
	while ! grep -q 'passed --backlog' "$TMP/err11" && [ $i -lt 1200 ]; do
		sleep 0.1; i=$((i + 1))
	done
	echo go >"$TMP/go11"
	wait "$spid"
	echo "$yama_was" >"$Y"
	yama_was=
	nstop=0
	for f in "$TMP"/l11/t.*; do
		"$BIN/trace_dump" -H "$f" | grep -q -F "(mtracectl --backlog)" &&
			nstop=$((nstop + 1))
	done
	ge "--backlog under Yama ptrace_scope 1, not root: the traces stopped" 1 "$nstop"
	check "... nothing refused: $(grep -F 'cannot stop' "$TMP/err11" | head -n 1)" \
		test -z "$(grep -F 'cannot stop' "$TMP/err11")"
else
	ok "--backlog under Yama ptrace_scope 1: skipped, $Y cannot be set here (no Yama, or \
no root)"
fi

# --start --send PID: the trace the process names is reached through its root, not ours.  The
# program runs in a mount namespace of its own, a tmpfs over the directory where, seen from
# mtracectl, a decoy of the trace's name lies
mkdir "$TMP/d10"
if unshare -m true 2>/dev/null; then
	setsid timeout -k 5 120 unshare -m sh -c "mount -t tmpfs none '$TMP/d10' &&
		MTRACE_CTL_START=0 MTRACE_CTL_FILE='$TMP/d10/win' LD_PRELOAD='$LIB' \
		exec '$TP/windows' --idle" >"$TMP/idle10" 2>&1 &
	pgids="$pgids $!"
	i=0
	while ! grep -q "^idle " "$TMP/idle10" && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	ipid=$(sed -n 's/^idle //p' "$TMP/idle10")
	w="win.$ipid.w0001"
	echo decoy >"$TMP/d10/$w"
	timeout -k 5 120 "$CTL" -q --start --send="127.0.0.1:$port" "$ipid" >"$TMP/out10" 2>&1 &
	cpid=$!
	i=0
	while ! [ -s "/proc/$ipid/root$TMP/d10/$w" ] && [ $i -lt 600 ]; do
		sleep 0.1; i=$((i + 1))
	done
	"$CTL" -q --stop "$ipid"
	cp "/proc/$ipid/root$TMP/d10/$w" "$TMP/own10"
	kill -9 "$ipid"
	wait "$cpid"
	eq "--start --send PID: status" 0 $?
	check "... the trace of the process (in a namespace of its own) received byte for byte, \
not the file of its name seen from mtracectl" cmp -s "$TMP/own10" "$(ls "$TMP"/r1/*/"$w")"
else
	ok "--start --send PID in a mount namespace of its own: skipped, unshare -m is refused here"
fi

# malformed streams on standard input: refused, naming the offset, nothing written outside
hello='MTSTREAM\001\000\002\000hx'
mkdir "$TMP/bad"
bad_stream() {   # DESCRIPTION EXPECTED-MESSAGE PRINTF-FORMAT
	printf "$3" >"$TMP/bad.in"
	"$R" -o "$TMP/bad" - <"$TMP/bad.in" >"$TMP/bad.ack" 2>"$TMP/bad.err"
	st=$?
	eq "$1: exit status" 1 $st
	check "... message: $(head -n 1 "$TMP/bad.err")" grep -q "^trace_recv: <stdin>.*$2" "$TMP/bad.err"
}
bad_stream "not a stream" "offset 0: not a frame head" 'GET / HTTP/1.0\r\n\r\n'
bad_stream "a name with a slash" "offset 30: a trace name that is not one plain file name" \
	"\001\000\000\000\000\000\000\000\016\000\000\000\000\000\000\000$hello\002\000\000\000\001\000\000\000\020\000\000\000\000\000\000\000\000\000\000\000\001\000\000\000\006\000../abc"
check "... nothing written outside DIR" test ! -e "$TMP/abc"
bad_stream "a frame cut short" "offset 30: the stream ends inside a frame" \
	"\001\000\000\000\000\000\000\000\016\000\000\000\000\000\000\000$hello\002\000\000\000\001\000\000\000\020\000\000\000"
bad_stream "a frame larger than the bound" "offset 30: not a frame head" \
	"\001\000\000\000\000\000\000\000\016\000\000\000\000\000\000\000$hello\003\000\000\000\001\000\000\000\000\000\000\001\000\000\000\000"
# compressed DATA (ZDATA, at offset 62) that lies, and one in a version-1 stream
hello2='MTSTREAM\002\000\002\000hx'
file1='\002\000\000\000\001\000\000\000\020\000\000\000\000\000\000\000\000\000\000\000\001\000\000\000\006\000abc123'
zhead='\011\000\000\000\001\000\000\000'   # ZDATA of file 1; then its length, 0, offset, seq
zoff='\000\000\000\000\000\020\000\000\000\000\000\000\001\000\000\000\000\000\000\000'
h1='\001\000\000\000\000\000\000\000\016\000\000\000\000\000\000\000'
bad_stream "compressed DATA saying 64 bytes, packing 32" \
	"offset 62: file 1: compressed DATA that does not unpack to its 64 bytes" \
	"$h1$hello2$file1$zhead\034\000\000\000$zoff\100\000\000\000\001\000\000\000\000\000\000\000"
bad_stream "compressed DATA whose unit wants bytes that are not there" \
	"offset 62: file 1: compressed DATA that does not unpack to its 32 bytes" \
	"$h1$hello2$file1$zhead\037\000\000\000$zoff\040\000\000\000\001\000\000\000\377\000\000\000abc"
bad_stream "compressed DATA saying more than the bound (2 MiB)" \
	"offset 62: file 1: compressed DATA of 2097152 bytes" \
	"$h1$hello2$file1$zhead\034\000\000\000$zoff\000\000\040\000\001\000\000\000\000\000\000\000"
bad_stream "compressed DATA in a version-1 stream" \
	"offset 62: file 1: compressed DATA (codec 1) in a version 1 stream" \
	"$h1$hello$file1$zhead\034\000\000\000$zoff\100\000\000\000\001\000\000\000\000\000\000\000"
check "... nothing of them written" test ! -s "$TMP/bad/hx/abc123"
check "... the collector still runs after all this" kill -0 "$rpid"
finish
