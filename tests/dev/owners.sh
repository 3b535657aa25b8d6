#!/bin/sh
# tests/dev/owners.sh [DIR]: does each file of malloc/ write only its own module's state?
# Each state variable below (or one field of it) belongs to one file; any other file that
# assigns to it, increments it or takes its address (other than to load it atomically) is
# reported as FILE:LINE.  The others read it, or call its owner's functions.
# Exit 0 when no file does, 1 otherwise.
DIR=${1:-$(cd "$(dirname "$0")/../.." && pwd)/malloc}
OWNERS='
mt_run control.c
mt_names control.c
mt_hot control.c
mt_hot->sample_due memory.c
mt_file tracefile.c
mt_wnd window.c
mt_win window.c
mt_win_done writer.c
mt_win_count writer.c
mt_chunks writer.c
mt_pop populate.c
mt_proc process.c
mt_sandbox sandbox.c
mt_mlock mlock.c
mt_mem memory.c
mt_calib clock_watch.c
mt_remote remote.c
mt_mallopt mallopt.c
mt_real resolve.c
mt_libc libc.c
mtrace_control remote.c
mt_allocator_path resolve.c
mt_boot_arena resolve.c
mt_clock_kind clock.c
mt_clock_solo clock.c
mt_solo clock.c
mt_coarse_word clock.c
mt_unwind_rules unwind.c
mt_unwind_epoch unwind.c
'
out=${TMPDIR:-/tmp}/owners.$$
trap 'rm -f "$out"' EXIT
: >"$out"
# every variable the headers share has its owner here (mt_tls, each thread's own, is not
# one)
decl='^extern [^(;/]*[ *]\([a-z_][a-z_0-9]*\)\( *\[[^]]*\]\)\{0,1\} *;.*'
for v in $(sed -n "s/$decl/\\1/p" "$DIR"/*.h); do
	[ "$v" = mt_tls ] || echo "$OWNERS" | grep -q "^$v " ||
		echo "$v: shared by a header, owned by no file listed in $0" >>"$out"
done
echo "$OWNERS" | while read -r var owner; do
	[ -n "$var" ] || continue
	base=${var%%->*}
	if [ "$base" = "$var" ]; then
		field='(\.[a-z_]+|->[a-z_]+)'
		# the fields listed apart are checked on their own line
		skip=$(echo "$OWNERS" | sed -n "s/^$var->\([a-z_]*\) .*/$var->\1/p" |
			paste -sd'|' -)
	else
		field="->${var#*->}\b"
		skip=
	fi
	v="\b$base$field?(\[[^]]*\])*"
	write='(([-+*/%&|^]|<<|>>)?=[^=]|\+\+|--)'   # an assignment, or an increment after
	for f in "$DIR"/*.c "$DIR"/*.h; do
		[ "$(basename "$f")" = "$owner" ] && continue
		# comments out (a write is never split across lines here)
		sed -e 's|/\*.*\*/||g' -e 's|^[[:space:]]*/\{0,1\}\*.*||' "$f" |
		grep -nE "(\+\+|--)[[:space:]]*$v|$v[[:space:]]*$write|(^|[^&])&[[:space:]]*$v" |
		grep -vE "__atomic_load_n\(&$v[[:space:]]*," |
		{ if [ -n "$skip" ]; then grep -vE "$skip"; else cat; fi; } |
		sed "s,^,$(basename "$f"):,;s,\$,   <- $var belongs to $owner,"
	done
done >>"$out"
[ -s "$out" ] || exit 0
cat "$out"
exit 1
