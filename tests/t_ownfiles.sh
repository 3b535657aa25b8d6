# The tracer never writes into the program's files nor closes its descriptors, whatever the
# program does to its descriptor table (tests/prog/ownfiles.c): descriptors closed and taken
# again while the tracer works, a daemon whose stderr is now a data file, fork children made
# while a memory sample is being read; and it goes on past a change of user or root
# directory, which takes the trace file out of reach by name.
. tests/lib.sh
P=$TP/ownfiles
# run NAME MODE...: traced to $TMP/NAME.<pid>, killed if it hangs; output in $TMP/NAME.out
run() {
	name=$1; shift
	timeout -k 5 300 env MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/$name" LD_PRELOAD="$LIB" \
		"$P" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
}
# the header's status line
status() { "$BIN/trace_dump" -H "$1" | sed -n 's/^# status *\([a-z]*\).*/\1/p'; }

# 1. a thread closes every descriptor from 3 up and opens its own file again, over and over,
# while others make the trace grow and its header be rewritten: its file is never written by
# the tracer, its descriptor never closed under it
run closer closer "$TMP/closer.dat"
eq "close_range while the trace grows: the program ends well" 0 "$?"
eq "... its file holds what it wrote, no call failed with EBADF" "file intact" \
	"$(cat "$TMP/closer.out")"
f=$(one_file "$TMP/closer.*[0-9]")
check "... the trace validates" "$BIN/trace_dump" -c "$f"
ge "... every call traced" 3000000 "$(count "$f" malloc)"
eq "... and the header says finished" finished "$(status "$f")"
eq "... nothing on stderr" "" "$(cat "$TMP/closer.err")"

# 2. a daemon's data file became its descriptor 2: a warning (its trace file removed) is not
# written there, nor anywhere; a stderr the program kept gets it
run daemon daemon "$TMP/daemon.dat"; eq "a daemon whose fd 2 is a data file: ends well" 0 "$?"
printf 'program data\nprogram done\n' >"$TMP/daemon.want"
check "... the data file holds only the program's lines" cmp -s "$TMP/daemon.want" "$TMP/daemon.dat"
run kept daemon "$TMP/kept.dat" keep
eq "a program that kept its stderr: the warning is there, once" 1 \
	"$(grep -c '^mtracectl: the trace file was removed' "$TMP/kept.err")"
eq "... the program's lines too" 2 "$(grep -c '^program ' "$TMP/kept.err")"

# 3. fork children never hold a descriptor of the tracer's, also when forked by a handler that
# interrupted a thread taking a memory sample (every millisecond, and before each release of
# 1 MiB once a tenth of that has passed)
MTRACE_CTL_MEMORY_MS=1 run forks forks 300
eq "300 fork children made amid memory samples: none holds a descriptor of ours" \
	"0 of 300 children held a descriptor of the tracer's" "$(cat "$TMP/forks.out")"
rm -f "$TMP"/forks.*

# 4. a change of user, and a chroot: the trace goes on to its end, and a child made after a
# chroot writes its own
if [ "$(id -u)" != 0 ]; then
	echo "# not root: the changes of user and root directory are left out"
	finish
fi
(cd / && run drop drop); eq "setresuid(65534): the program ends well" 0 "$?"
eq "... as untraced" "$(cd / && "$P" drop)" "$(cat "$TMP/drop.out")"
f=$(one_file "$TMP/drop.*[0-9]")
check "... its trace validates" "$BIN/trace_dump" -c "$f"
eq "... holds every call made after it" 400000 "$(count "$f" malloc 1002)"
eq "... and says finished" finished "$(status "$f")"
eq "... its child (which cannot create a file here as nobody) is left untraced, silently" \
	"1 file, stderr ''" "$(ls "$TMP"/drop.*[0-9] | wc -l) file, stderr '$(cat "$TMP/drop.err")'"
# ... and then closes every descriptor from 3 up (those the tracer kept to reach the file): the
# trace ends there, its header saying why, with one warning
(cd / && run closeall drop closeall)
eq "setresuid(65534), then close_range(3, ~0U): ends well" 0 "$?"
f=$(one_file "$TMP/closeall.*[0-9]")
check "... its trace validates" "$BIN/trace_dump" -c "$f"
eq "... which says it stopped early" stopped "$(status "$f")"
"$BIN/trace_dump" -H "$f" | grep -q 'changed its root directory or its user' &&
	ok "... and why" || bad "... why: $("$BIN/trace_dump" -H "$f" | grep status)"
eq "... one warning" 1 "$(grep -c '^mtracectl: ' "$TMP/closeall.err")"
mkdir "$TMP/root"
run chroot chroot "$TMP/root"; eq "chroot: the program ends well" 0 "$?"
eq "... as untraced" chrooted "$(cat "$TMP/chroot.out")"
eq "... nothing on stderr" "" "$(cat "$TMP/chroot.err")"
p=""; c=""
for f in "$TMP"/chroot.*[0-9]; do
	if [ "$(count "$f" malloc 1003)" = 10000 ]; then c=$f; else p=$f; fi
done
c=${c:-/nonexistent} p=${p:-/nonexistent}
check "... its trace validates" "$BIN/trace_dump" -c "$p"
eq "... holds every call made after it" 300000 "$(count "$p" malloc 1002)"
eq "... and says finished" finished "$(status "$p")"
check "a child forked after the chroot: its trace validates" "$BIN/trace_dump" -c "$c"
eq "... and names its parent" "$(count "$p" pid)" "$(count "$c" ppid)"
# under mtracectl, whose list comes from a manifest the tracer appends to: both are listed
mkdir "$TMP/root2"
timeout -k 5 300 "$BIN/mtracectl" -o "$TMP/ctl" -- "$P" chroot "$TMP/root2" >"$TMP/ctl.out" 2>&1
eq "chroot under mtracectl: both traces listed" 2 "$(grep -c "^mtracectl: pid .*$TMP/ctl\." "$TMP/ctl.out")"
finish
