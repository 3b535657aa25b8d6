# Every input the fuzzers ever found (fuzz/regressions/HARNESS/) and every committed seed runs
# through its harness without a crash, hang or property violation.
. tests/lib.sh
n=0
for h in fuzz_trace_reader fuzz_convert fuzz_workload fuzz_dj_workload fuzz_import fuzz_replay_maps \
	fuzz_stacks fuzz_elf_symbols fuzz_stream; do
	files=$(ls fuzz/regressions/$h/* fuzz/corpus/$h/* 2>/dev/null)
	# always at least the generated fixtures, so the harness itself is exercised
	"$TP/mkfixture" trace-edge "$TMP/$h.edge"; "$TP/mkfixture" wl-deadlock "$TMP/$h.wl"
	# (and the kind of input each new harness reads: a trace with stacks, ELF files)
	case $h in
	fuzz_stacks) "$TP/stackprog" "$TMP/$h.stk" >/dev/null; files="$files $TMP/$h.stk" ;;
	fuzz_elf_symbols) files="$files $TP/stackprog $BIN/trace_pack" ;;
	esac
	timeout 120 "$ROOT/$B/fuzz/$h" $files "$TMP/$h.edge" "$TMP/$h.wl" >"$TMP/out" 2>&1
	eq "$h: $(echo $files | wc -w) kept inputs and 2 fixtures run clean" 0 "$?"
	n=$((n + 1))
done
eq "all nine harnesses ran" 9 "$n"
finish
