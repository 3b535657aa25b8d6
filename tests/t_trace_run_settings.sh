# The allocators' settings: what the traced program ran with (recorded by the tracer, carried
# into the workload, named beside the replay's own, replayed as 'traced'), and settings of a
# --compare column's own, each reaching its own column's run and no other.
. tests/lib.sh
. tests/lib_trace_run.sh
make_m
make_x
make_edge

# --- the allocators' settings the program ran with: recorded by the tracer (GLIBC_TUNABLES,
# MALLOC_*, MIMALLOC_*, TCMALLOC_*; nothing else), carried into the workload, named beside the
# replay's own, and usable as a --compare column as printed
( export GLIBC_TUNABLES=glibc.malloc.arena_max=1 MALLOC_TOP_PAD_=131072 MIMALLOC_SHOW_STATS=0 NOT_A_SETTING=1
  traced "$TMP/set" "$TP/xthread" 4 2000 >/dev/null )
st=$(one_file "$TMP/set.*")
"$BIN/trace_dump" -H "$st" | grep '^# settings' | tr ' ' '\n' | grep = | sort >"$TMP/set.got"
printf '%s\n' GLIBC_TUNABLES=glibc.malloc.arena_max=1 MALLOC_TOP_PAD_=131072 MIMALLOC_SHOW_STATS=0 >"$TMP/set.want"
check "settings: the trace's header holds the allocators' settings, and only those" cmp "$TMP/set.want" "$TMP/set.got"
"$BIN/trace_pack" -q -A -o "$TMP/set.gz" "$st" >/dev/null
"$BIN/trace_dump" -H "$TMP/set.gz" | grep -q '^# settings .*GLIBC_TUNABLES=glibc.malloc.arena_max=1' &&
	ok "settings: kept by trace_pack --anonymize" || bad "settings lost by --anonymize: $("$BIN/trace_dump" -H "$TMP/set.gz" | grep settings)"
eq "settings: trace_stats --tsv names them" 3 "$("$BIN/trace_stats" --tsv "$st" | awk -F'\t' '$1 == "trace" && $2 == "settings"' | tr ' ' '\n' | grep -c =)"
"$BIN/trace2wl" "$TMP/set.wl" "$st" 2>"$TMP/err"
grep -q '^  settings  .*MALLOC_TOP_PAD_=131072' "$TMP/err" && ok "settings: in trace2wl's summary" || bad "trace2wl summary: $(tail -n 2 "$TMP/err")"
"$BIN/trace_dump" -H "$TMP/set.wl" | grep -q '^# settings  .*MIMALLOC_SHOW_STATS=0' && ok "settings: in the workload's header" || bad "workload header: $("$BIN/trace_dump" -H "$TMP/set.wl")"
settings=$("$BIN/trace_dump" -H "$TMP/set.wl" | sed -n 's/^# settings  \(.*\) (the allocators.*/\1/p')
"$R" "$TMP/set.wl" >"$TMP/out"; eq "settings: replay exit 0" 0 "$?"
libc=$(basename "$("$BIN/trace_dump" -H "$st" | sed -n 's/^# allocator \(.*\), glibc .*/\1/p')")
case "$libc" in libc.so*) ok "settings: the trace names the allocator that served it ($libc)" ;; *) bad "allocator: '$libc'" ;; esac
eq "settings: named beside the replay's own" "Allocator as traced: $libc, with $settings; this replay: glibc, with no settings" "$(grep '^Allocator as traced' "$TMP/out")"
"$R" -T glibc.malloc.arena_max=2 -M M_TOP_PAD=4096 "$TMP/set.wl" | grep -q '; this replay: glibc, with GLIBC_TUNABLES=glibc.malloc.arena_max=2 M_TOP_PAD=4096$' &&
	ok "settings: the replay's own --tunables and --mallopt named" || bad "replay settings line"
"$R" "$TMP/m.wl" | grep -q '^Allocator as traced' && bad "settings: a line where neither had any" || ok "settings: no line where neither had any (glibc both, no settings)"
"$R" --compare "glibc,glibc($settings)" "$TMP/set.wl" >"$TMP/out"; eq "settings: the column as printed is accepted" 0 "$?"
grep -q -F "(the traced program ran on $libc, with $settings: a column 'traced', glibc($settings), replays it so)" "$TMP/out" &&
	ok "settings: named under the --compare table, with the column" || bad "compare footnote: $(tail -n 1 "$TMP/out")"
# 'traced': the allocator and settings the workload says the program ran with, as --malloc or
# a --compare column
"$R" -m traced "$TMP/set.wl" >"$TMP/out"; eq "--malloc traced: exit 0" 0 "$?"
eq "--malloc traced: the replay named by what it stands for" "Allocator: glibc($settings)" "$(grep '^Allocator:' "$TMP/out")"
line=$(grep '^Allocator as traced' "$TMP/out")
n=0; for s in $settings; do case "$line" in *"this replay: glibc, with "*"$s"*) n=$((n + 1)) ;; esac; done
eq "--malloc traced: the replay ran with each of the program's settings" 3 "$n"
"$R" -m traced -l "$TMP/tr.tsv" "$TMP/m.wl" >"$TMP/out"; eq "--malloc traced, no settings: exit 0" 0 "$?"
eq "--malloc traced, no settings: plain glibc" "Allocator: glibc" "$(grep '^Allocator:' "$TMP/out")"
check "--malloc traced: --log written as named (one run)" test -s "$TMP/tr.tsv"
# read and checked once, by the run that replays it (not first by the command, then again)
"$R" -m traced -p "$TMP/m.wl" 2>&1 >/dev/null | tr '\r' '\n' | grep -c '^trace_run: checking ' >"$TMP/checks"
eq "--malloc traced: the workload checked once" 1 "$(cat "$TMP/checks")"
# a workload found bad by that run: exit 1, as when the command checks it
cp "$TMP/m.wl" "$TMP/cut.wl"; truncate -s -100 "$TMP/cut.wl"
"$R" -m traced "$TMP/cut.wl" >/dev/null 2>&1; eq "--malloc traced, a workload cut short: exit 1" 1 "$?"
"$R" --compare traced,glibc --csv "$TMP/set.wl" >"$TMP/tc.csv"; eq "--compare traced,glibc: exit 0" 0 "$?"
eq "--compare traced,glibc: the first column as it ran" "glibc($settings)|glibc" \
	"$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "allocator") c = i } NR > 1 { print $c }' "$TMP/tc.csv" | tr -d '"' | paste -sd'|')"
"$R" -m traced "$TMP/edge.dj" >/dev/null 2>"$TMP/err"; eq "--malloc traced of a dj workload: exit 2" 2 "$?"
grep -q 'does not say what the program ran on' "$TMP/err" && ok "--malloc traced of a dj workload: says why" || bad "traced dj: $(cat "$TMP/err")"
"$R" --compare 'traced(M_ARENA_MAX=2)' "$TMP/set.wl" >/dev/null 2>"$TMP/err"; eq "traced with settings of its own: exit 2" 2 "$?"
if [ "${SANITIZE:-}" != 1 ]; then   # (another allocator cannot be preloaded into an ASan process)
	# traced on another allocator (preloaded after the tracer): the trace and the workload name it,
	# and a replay on glibc says it runs on another
	( MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/fwd" LD_PRELOAD="$LIB $TP/libfwd.so" "$TP/bigalloc" 1000 >/dev/null )
	fw=$(one_file "$TMP/fwd.*")
	"$BIN/trace_dump" -H "$fw" | grep -q "^# allocator $TP/libfwd.so, not glibc$" && ok "allocator: the trace names the one after the tracer" ||
		bad "allocator: $("$BIN/trace_dump" -H "$fw" | grep allocator)"
	"$BIN/trace_stats" --diff "$st" "$fw" >"$TMP/diff"
	grep -q -F "A: $st (on " "$TMP/diff" && grep -q -F ", with $settings)" "$TMP/diff" &&
		grep -q -F "B: $fw (on $TP/libfwd.so, with no settings)" "$TMP/diff" &&
		ok "allocator: trace_stats --diff says what each trace ran on and with" || bad "diff: $(head -n 2 "$TMP/diff")"
	"$BIN/trace2wl" -q "$TMP/fwd.wl" "$fw"
	"$BIN/trace_dump" -H "$TMP/fwd.wl" | grep -q '^# allocator libfwd.so (the one it ran on)$' && ok "allocator: the workload names it" || bad "workload allocator"
	"$R" "$TMP/fwd.wl" | grep -q '^Allocator as traced: libfwd.so, with no settings; this replay: glibc, with no settings$' &&
		ok "allocator: a replay on another one says so" || bad "replay on another: $("$R" "$TMP/fwd.wl" | tail -n 1)"
	"$R" --malloc "$TP/libfwd.so" "$TMP/fwd.wl" | grep -q '^Allocator as traced' && bad "allocator: a line when the replay runs on the same" || ok "allocator: no line when the replay runs on the same"
	"$R" -m traced "$TMP/fwd.wl" >/dev/null 2>"$TMP/err"; eq "--malloc traced, an allocator known by path only: exit 2" 2 "$?"
	grep -q 'the program ran on libfwd.so, which trace_run knows by its path only' "$TMP/err" && ok "--malloc traced: asks for the path" || bad "traced path: $(cat "$TMP/err")"
fi
if [ "${SANITIZE:-}" != 1 ]; then   # four threads, one arena: the program's own setting at work
	"$R" --compare "glibc,glibc($settings)" --csv "$TMP/set.wl" >"$TMP/set.csv"
	vsz=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "peak_vmsize_kb") c = i } NR > 1 { printf "%s ", $c }' "$TMP/set.csv")
	set -- $vsz
	[ "$2" -lt $(($1 - 32768)) ] && ok "settings: GLIBC_TUNABLES=... in a column took effect (VmSize $vsz)" || bad "GLIBC_TUNABLES column: VmSize $vsz"
fi

# --- a column with settings of its own: NAME(SETTING ...), glibc tunables, mallopt parameters
# and environment variables, each reaching its own column's run and no other
"$R" --compare 'glibc,glibc(M_ARENA_MAX=1),glibc(glibc.malloc.arena_max=1 M_TOP_PAD=0)' -l "$TMP/vl" --csv "$TMP/x.wl" >"$TMP/v.csv"
eq "--compare with settings: exit 0" 0 "$?"
eq "--compare with settings: a row each, named as written" "glibc|glibc(M_ARENA_MAX=1)|glibc(glibc.malloc.arena_max=1 M_TOP_PAD=0)" \
	"$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "allocator") c = i } NR > 1 { print $c }' "$TMP/v.csv" | paste -sd'|')"
eq "--compare with settings: a timeline each, named by the allocator" "vl.glibc vl.glibc.2 vl.glibc.3" "$(cd "$TMP" && ls vl.* | xargs)"
"$R" --compare 'glibc,glibc(M_ARENA_MAX=1)' -L "$TMP/vlat" "$TMP/m.wl" >/dev/null; eq "--compare with settings, --latency: exit 0" 0 "$?"
eq "--compare with settings, --latency: the file names its column" "# trace_run latency: glibc(M_ARENA_MAX=1)" "$(head -n 1 "$TMP/vlat.glibc.2" | cut -d, -f1)"
if [ "${SANITIZE:-}" != 1 ]; then   # (ASan's allocator has no arenas)
	# four threads: glibc gives each its own arena, 64 MiB of address space each, unless limited
	vsz=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "peak_vmsize_kb") c = i } NR > 1 { printf "%s ", $c }' "$TMP/v.csv")
	set -- $vsz
	[ "$2" -lt $(($1 - 32768)) ] && [ "$3" -lt $(($1 - 32768)) ] &&
		ok "--compare with settings: M_ARENA_MAX=1 and glibc.malloc.arena_max=1 took effect in their columns only (VmSize $vsz)" ||
		bad "--compare with settings: arena limits without effect: VmSize $vsz"
	# an environment variable: the library's crash switch, set in the second column only
	LIBFWD_CRASH_AT= "$R" --compare "$TP/libfwd.so,$TP/libfwd.so(LIBFWD_CRASH_AT=500)" "$TMP/m.wl" >"$TMP/out" 2>"$TMP/err"
	eq "--compare, an environment setting: the column that has it crashed (exit 3)" 3 "$?"
	grep -q '^wall time (usec) *[0-9,]* *failed$' "$TMP/out" && ok "--compare, an environment setting: the other column unaffected" ||
		bad "environment setting: $(head -n 2 "$TMP/out")"
	# with 3 runs or more a ratio within the runs' spread is marked '~': the ideal RSS (the same
	# in every run) is; a malloc slowed by far more than a busy machine's spread (each call
	# counts to 20,000 first: some 25,000 cycles against about 100) is not.  The slow column is
	# checked against what its loop must cost, a floor no load can lower (at most one
	# iteration a core cycle, and the TSC ticks at least a quarter as fast as the core), not
	# by its ratio to the other column, which depends on how busy the machine is.
	traced "$TMP/sm" "$ROOT/$B/bench/mbench" 1 20000 >/dev/null
	"$BIN/trace2wl" -q "$TMP/sm.wl" "$(one_file "$TMP/sm.*")"
	"$R" --compare "$TP/libfwd.so,$TP/libfwd.so(LIBFWD_SLOW=20000)" -r 3 "$TMP/sm.wl" >"$TMP/sp"; eq "--compare -r 3: exit 0" 0 "$?"
	grep -q '^avg malloc (cycles) .*[0-9]x)$' "$TMP/sp" && ok "--compare -r 3: a slower malloc, unmarked" || bad "slow malloc marked: $(grep '^avg malloc' "$TMP/sp")"
	ge "--compare -r 3: the slower malloc's average, in cycles" 5000 "$(awk '/^avg malloc/ { gsub(/,/, "", $(NF - 1)); print $(NF - 1) }' "$TMP/sp")"
	grep -q '^ideal RSS (KiB) .*(1.00x~)$' "$TMP/sp" && ok "--compare -r 3: the same figure in every run, marked ~" || bad "ideal RSS: $(grep '^ideal' "$TMP/sp")"
	grep -q "^(~: the columns' runs overlap" "$TMP/sp" && ok "--compare -r 3: the mark explained" || bad "no note on ~: $(tail -n 2 "$TMP/sp")"
	"$R" --compare "glibc,$TP/libfwd.so" "$TMP/m.wl" >"$TMP/sp1"
	grep -q '~' "$TMP/sp1" && bad "--compare, one run: marks ($(grep '~' "$TMP/sp1" | head -n 1))" || ok "--compare, one run: no marks"
	grep -q '^(-r 3 or more marks the ratios within' "$TMP/sp1" && ok "--compare, one run: says how to see the spread" || bad "one run: $(tail -n 1 "$TMP/sp1")"
	"$R" --compare "glibc,$TP/libfwd.so(M_ARENA_MAX=1)" "$TMP/m.wl" >/dev/null 2>"$TMP/err"; eq "glibc settings on another allocator's column: exit 0" 0 "$?"
	eq "glibc settings on another allocator's column: one warning, naming the column" 1 \
		"$(grep -c "libfwd.so(M_ARENA_MAX=1): its mallopt and glibc.malloc settings tune glibc's malloc, which .*libfwd.so replaces" "$TMP/err")"
fi
"$R" --compare 'glibc,glibc(M_ARENA_MAX=1)' "$TMP/m.wl" >"$TMP/vt"; eq "--compare with settings, the table: exit 0" 0 "$?"
eq "--compare with settings, the table: every line as wide as the header (a wider column)" 1 \
	"$(head -n 14 "$TMP/vt" | awk '{ print length($0) }' | sort -u | wc -l)"
head -n 1 "$TMP/vt" | grep -q ' glibc(M_ARENA_MAX=1)$' && ok "--compare with settings, the table: the column named as written" || bad "header: $(head -n 1 "$TMP/vt")"
for v in 'glibc(M_NOSUCH=1)' 'glibc(arena_max)' 'glibc(LD_PRELOAD=/x.so)' 'glibc(MTRACE_CTL_FILE=/x)' 'glibc(M_ARENA_MAX=1' \
	 'glibc(M_ARENA_MAX=1)x' 'glibc)' 'glibc(M_ARENA_MAX=x)'; do
	"$R" --compare "glibc,$v" "$TMP/m.wl" >"$TMP/out" 2>"$TMP/err"
	eq "--compare '$v': exit 2, one line, nothing replayed" "2 1 0" "$? $(wc -l <"$TMP/err") $(wc -c <"$TMP/out")"
done
"$R" --compare 'glibc(arena_max)' "$TMP/m.wl" 2>"$TMP/err" >/dev/null
grep -q "'arena_max' in 'glibc(arena_max)' is not a setting: NAME=VALUE" "$TMP/err" && ok "--compare, not a setting: says what a setting is" || bad "not a setting: $(cat "$TMP/err")"
ldso=$(ls /lib64/ld-linux*.so.* /lib/ld-linux*.so.* 2>/dev/null | head -n 1)
if [ -n "$ldso" ] && "$ldso" --list-tunables 2>/dev/null | grep -q '^glibc.malloc'; then   # (what it checks against)
	"$R" --compare 'glibc(glibc.malloc.nosuch=1)' "$TMP/m.wl" >/dev/null 2>"$TMP/err"; eq "--compare, an unknown glibc tunable in a column: exit 2" 2 "$?"
else
	echo "# this glibc cannot list its tunables: an unknown one cannot be refused"
fi
"$R" --malloc 'glibc(M_ARENA_MAX=1)' "$TMP/m.wl" >/dev/null 2>"$TMP/err"; eq "--malloc with settings: exit 2" 2 "$?"
grep -q "settings in parentheses are for --compare's columns" "$TMP/err" && ok "--malloc with settings: says where they go" || bad "--malloc settings: $(cat "$TMP/err")"

finish
