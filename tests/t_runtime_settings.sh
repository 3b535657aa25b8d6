# Settings a program makes as it runs through its allocator's own control interface (jemalloc's
# mallctl, mimalloc's mi_option_set): recorded with the environment's, told apart from them,
# carried into the workload, and applied by trace_run -m traced (the allocator of the replay
# says so itself: libctlprobe asks it at exit).  A program on glibc finds nothing of it.
. tests/lib.sh
R="$BIN/trace_run"
[ "${SANITIZE:-}" = 1 ] && skip "under ASan the program's allocator is ASan's, not jemalloc or mimalloc"
so() { ls /usr/lib/*/"$1" /usr/lib/"$1" 2>/dev/null | head -n 1; }
JE=$(so libjemalloc.so.2) MI=$(so libmimalloc.so.2)
PROBE=$TP/libctlprobe.so
# on SO BASE COMMAND...: COMMAND traced to BASE.<pid>, SO preloaded after the tracer
on() { so=$1 base=$2; shift 2; MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE=$base LD_PRELOAD="$LIB $so" "$@"; }

# --- glibc: no interface to see, and nothing of ours to find (a program probing for jemalloc
# or mimalloc finds what it finds untraced); nothing set as it ran
"$TP/ctlset" probe >"$TMP/probe.0"
traced "$TMP/gl" "$TP/ctlset" probe >"$TMP/probe.1"; eq "glibc, probing: exit 0" 0 "$?"
check "glibc, probing: the same answers traced as untraced (dlsym, weak references, dlerror)" cmp "$TMP/probe.0" "$TMP/probe.1"
grep -q 'weak mallctl: null, mi_option_set: null' "$TMP/probe.1" && ok "glibc, probing: no mallctl, no mi_option_set" || bad "probe: $(cat "$TMP/probe.1")"
"$BIN/trace_dump" -H "$(one_file "$TMP/gl.*")" | grep -q '^# run time' && bad "glibc: settings set as it ran" || ok "glibc: no settings set as it ran"

# --- jemalloc
if [ -n "$JE" ]; then
	LD_PRELOAD=$JE "$TP/ctlset" je >"$TMP/out.je0"
	MALLOC_CONF=narenas:2 on "$JE" "$TMP/je" "$TP/ctlset" je >"$TMP/out.je1"
	eq "jemalloc: exit 0" 0 "$?"
	check "jemalloc: the program's results the same traced as untraced ($(cat "$TMP/out.je1"))" cmp "$TMP/out.je0" "$TMP/out.je1"
	t=$(one_file "$TMP/je.*")
	"$BIN/trace_dump" -H "$t" >"$TMP/je.h"
	eq "jemalloc: the header's settings, the program's over the environment's" \
		"# settings  MALLOC_CONF=narenas:2,background_thread:true,dirty_decay_ms:5000" "$(grep '^# settings' "$TMP/je.h")"
	grep -q '^# run time  MALLOC_CONF=background_thread:true,dirty_decay_ms:5000 (of those, set by the program as it ran' "$TMP/je.h" &&
		ok "jemalloc: those set as it ran told apart (a write that failed not among them)" || bad "run time: $(grep '^# run time' "$TMP/je.h")"
	"$BIN/trace2wl" "$TMP/je.wl" "$t" 2>"$TMP/err"; eq "jemalloc: trace2wl exit 0" 0 "$?"
	grep -q '^  set as it ran    MALLOC_CONF=background_thread:true,dirty_decay_ms:5000 ' "$TMP/err" &&
		ok "jemalloc: trace2wl's summary says which were set as it ran" || bad "trace2wl: $(grep -A1 '^  settings' "$TMP/err")"
	"$BIN/trace_dump" -H "$TMP/je.wl" >"$TMP/jewl.h"
	grep -q '^# settings  MALLOC_CONF=narenas:2,background_thread:true,dirty_decay_ms:5000 (the allocators' "$TMP/jewl.h" &&
		grep -q '^# run time  MALLOC_CONF=background_thread:true,dirty_decay_ms:5000 ' "$TMP/jewl.h" &&
		ok "jemalloc: the workload carries them, told apart" || bad "workload: $(grep -E '^# (settings|run time)' "$TMP/jewl.h")"
	"$BIN/trace_pack" -q -A -o "$TMP/je.gz" "$t" >/dev/null
	"$BIN/trace_dump" -H "$TMP/je.gz" | grep -q '^# run time  MALLOC_CONF=background_thread:true,dirty_decay_ms:5000 ' &&
		ok "jemalloc: trace_pack --anonymize keeps them apart" || bad "anonymized: $("$BIN/trace_dump" -H "$TMP/je.gz" | grep -E '^# (settings|run time)')"
	rm -f "$TMP/probe"
	CTLPROBE_OUT=$TMP/probe LD_PRELOAD=$PROBE "$R" -m traced "$TMP/je.wl" >"$TMP/out"; eq "jemalloc: -m traced, exit 0" 0 "$?"
	grep -q '^Allocator as traced: libjemalloc.so.2, with MALLOC_CONF=narenas:2,background_thread:true,dirty_decay_ms:5000 (set by the program as it ran: MALLOC_CONF=background_thread:true,dirty_decay_ms:5000); this replay: jemalloc, with MALLOC_CONF=narenas:2,background_thread:true,dirty_decay_ms:5000$' "$TMP/out" &&
		ok "jemalloc: -m traced replays with the program's settings, and says where they came from" || bad "-m traced: $(grep '^Allocator' "$TMP/out")"
	grep -q '^jemalloc background_thread 1$' "$TMP/probe" && ok "jemalloc: the replay's jemalloc ran its background thread" ||
		bad "the replay's jemalloc: $(cat "$TMP/probe")"
	rm -f "$TMP/probe"
	CTLPROBE_OUT=$TMP/probe LD_PRELOAD=$PROBE "$R" -m jemalloc "$TMP/je.wl" >/dev/null
	grep -q '^jemalloc background_thread 0$' "$TMP/probe" && ok "jemalloc: without them, no background thread (what the probe tells)" ||
		bad "plain jemalloc: $(cat "$TMP/probe")"
	# a library opened by dlopen: its call is seen once the program opens another
	on "$JE" "$TMP/dl" "$TP/ctlset" dl "$TP/libctlcall.so" >"$TMP/out.dl"
	eq "jemalloc, a library opened by dlopen: its write succeeded" "dl: 0" "$(cat "$TMP/out.dl")"
	t=$(one_file "$TMP/dl.*")
	"$BIN/trace_dump" -H "$t" | grep -q '^# run time  MALLOC_CONF=max_background_threads:2 ' &&
		ok "jemalloc, a library opened by dlopen: its setting recorded" || bad "dlopen: $("$BIN/trace_dump" -H "$t" | grep -E '^# (settings|run time)')"
	LD_PRELOAD=$JE "$TP/ctlset" probe >"$TMP/out.jp0"
	on "$JE" "$TMP/jp" "$TP/ctlset" probe >"$TMP/out.jp1"
	check "jemalloc, probing: the same answers traced as untraced" cmp "$TMP/out.jp0" "$TMP/out.jp1"
else
	echo "# jemalloc is not installed (apt-get install libjemalloc2): its settings not tested"
fi

# --- mimalloc
if [ -n "$MI" ]; then
	LD_PRELOAD=$MI "$TP/ctlset" mi >"$TMP/out.mi0"
	ver=$(sed -n 's/^mimalloc \([0-9]*\):.*/\1/p' "$TMP/out.mi0")
	if [ "$ver" -ge 209 ] && [ "$ver" -le 212 ]; then
		MIMALLOC_EAGER_COMMIT_DELAY=1 MIMALLOC_VERBOSE=0 on "$MI" "$TMP/mi" "$TP/ctlset" mi >"$TMP/out.mi1"
		eq "mimalloc: exit 0" 0 "$?"
		check "mimalloc: the program's results the same traced as untraced ($(cat "$TMP/out.mi1"))" cmp "$TMP/out.mi0" "$TMP/out.mi1"
		t=$(one_file "$TMP/mi.*")
		"$BIN/trace_dump" -H "$t" >"$TMP/mi.h"
		eq "mimalloc: the header's settings, the program's over the environment's" \
			"# settings  MIMALLOC_EAGER_COMMIT_DELAY=3 MIMALLOC_VERBOSE=0 MIMALLOC_EAGER_COMMIT=0" "$(grep '^# settings' "$TMP/mi.h")"
		grep -q '^# run time  MIMALLOC_EAGER_COMMIT=0 MIMALLOC_EAGER_COMMIT_DELAY=3 ' "$TMP/mi.h" &&
			ok "mimalloc: those set as it ran told apart" || bad "run time: $(grep '^# run time' "$TMP/mi.h")"
		"$BIN/trace2wl" -q "$TMP/mi.wl" "$t"
		rm -f "$TMP/probe"
		CTLPROBE_OUT=$TMP/probe LD_PRELOAD=$PROBE "$R" -m traced "$TMP/mi.wl" >"$TMP/out"; eq "mimalloc: -m traced, exit 0" 0 "$?"
		grep -q '; this replay: mimalloc, with .*MIMALLOC_EAGER_COMMIT_DELAY=3' "$TMP/out" && ok "mimalloc: -m traced replays with them" ||
			bad "-m traced: $(grep '^Allocator' "$TMP/out")"
		grep -q '^mimalloc 14 3 3 0$' "$TMP/probe" && ok "mimalloc: the replay's mimalloc took them" || bad "the replay's mimalloc: $(cat "$TMP/probe")"
	else
		echo "# mimalloc $ver: its options' numbers are not known to the tracer: not tested"
	fi
else
	echo "# mimalloc is not installed (apt-get install libmimalloc2.0): its settings not tested"
fi
finish
