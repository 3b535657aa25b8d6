# Every command README shows, and every command `make demo` prints, runs as shown on an
# installed tree (make install into a staging directory, its bin on the PATH), as a user would:
#  - the demo runs, then each command it printed is run again from the top of the source tree
#    with the installed tools (a glob that picks up what the demo itself wrote fails there);
#  - README's commands (in its indented blocks: lines that start with a tool, with cc, with a
#    variable assignment, or after "$ ") run in order, in a fresh directory that is
#    also /tmp for them (so a file a command writes where it runs lies beside the traces a
#    later glob means: `/tmp/mb.*` must not pick up mb.lat).  The paths /usr/local/ and /tmp/
#    are the only words changed: the staging tree and that directory stand for them.
# Commands that need something not installed here (jemalloc, tcmalloc, mimalloc, less,
# glibc's libc_malloc_debug.so.0, a C compiler) are named and not run.
. tests/lib.sh
R="$TMP/root"
make -s install DESTDIR="$R" >"$TMP/make.log" 2>&1; eq "make install DESTDIR=...: exit status" 0 "$?"
IBIN="$R/usr/local/bin"
# the optional things a command may need, and whether they are here
missing() { # COMMAND: the first thing it needs that is not installed, or nothing
	for need in jemalloc:libjemalloc.so.2 tcmalloc:libtcmalloc_minimal.so.4 mimalloc:libmimalloc.so.2 \
		libc_malloc_debug:libc_malloc_debug.so.0; do
		case $1 in *"${need%%:*}"*) ls /usr/lib/*/"${need#*:}" /lib/*/"${need#*:}" >/dev/null 2>&1 || { echo "${need#*:}"; return; } ;; esac
	done
	case $1 in *"| less"*) command -v less >/dev/null || { echo less; return; } ;; esac
	case $1 in "cc "*) command -v cc >/dev/null || { echo cc; return; } ;; esac
}
run() { # DIR DESCRIPTION COMMAND: run COMMAND with sh in DIR, the installed tools first on the PATH
	need=$(missing "$3")
	if [ -n "$need" ]; then
		echo "# not run, $need is not installed: $3"
		return
	fi
	(cd "$1" && PATH="$IBIN:$PATH" sh -c "$3") >>"$TMP/run.log" 2>&1 </dev/null
	eq "$2: $3" 0 "$?"
}

# --- the demo, then what it printed
export DEMO_DIR="$TMP/demo"
B=$B sh examples/demo.sh >"$TMP/demo.out" 2>&1; eq "make demo's script: exit status" 0 "$?"
grep '^\$ ' "$TMP/demo.out" | cut -c3- >"$TMP/demo.cmds"
ge "the demo printed its commands" 7 "$(wc -l <"$TMP/demo.cmds")"
check "the demo's charts were written" test -s "$DEMO_DIR/mtrace-demo/latency.svg" -a -s "$DEMO_DIR/mtrace-demo/rss.svg"
while IFS= read -r c; do
	run "$ROOT" "the demo's command, again, installed tools" "$c"
done <"$TMP/demo.cmds"
grep -q '^mtracectl \|^trace_' "$TMP/demo.cmds" && ok "the demo's commands name the tools, not a build path" || bad "demo commands: $(head -n 2 "$TMP/demo.cmds")"

# --- README
tools='mtracectl|trace_dump|trace2wl|trace_run|trace_stats|trace_plot|trace_pack|trace_import|cc'
awk -v tools="$tools" '
	/^    / {
		line = substr($0, 5)
		if (line ~ /^\$ /) { print substr(line, 3); next }
		split(line, w, " ")
		if (line ~ /^[A-Z_]+=/ || w[1] ~ "^(" tools ")$") print line
	}' README.md >"$TMP/readme.cmds"
ge "commands found in README" 20 "$(wc -l <"$TMP/readme.cmds")"
W="$TMP/w"
mkdir -p "$W"
export MTRACE_CTL_FILE="$W/mtrace.out" TMPDIR="$W"   # the tracer's default, /tmp/mtrace.out
n=0
while IFS= read -r c; do
	n=$((n + 1))
	# the staging tree for /usr/local/, the directory for /tmp/ (both lie in /tmp themselves:
	# through marks, so that neither replaces in the other)
	w=$(printf '%s\n' "$c" | sed "s|/usr/local/|@R@|g; s|/tmp/|@W@|g; s|@R@|$R/usr/local/|g; s|@W@|$W/|g")
	run "$W" "README command $n" "$w"
done <"$TMP/readme.cmds"
# what they were to make
for f in mbench.wl lat.svg flame.svg live.svg rss.svg latency.svg cmp.csv.compare.svg app.wl; do
	case $f in lat.svg|latency.svg|cmp.csv.compare.svg) [ -n "$(missing jemalloc)" ] && continue ;; esac
	case $f in app.wl) [ -n "$(missing libc_malloc_debug)" ] && continue ;; esac
	check "README's commands wrote $f" test -s "$W/$f"
done
[ "$fails" -gt 0 ] && sed 's/^/# /' "$TMP/run.log" | tail -n 30
finish
