# lib.sh - sourced by every test: paths, a scratch directory, and assertions that count failures.
set -u
# progress lines fit $COLUMNS when stderr is no terminal: the logs here keep them whole
unset COLUMNS
B=${B:-build}
ROOT=${ROOT:-$(pwd)}
LIB=$ROOT/$B/lib/libmtracectl.so
BIN=$ROOT/$B/bin
TP=$ROOT/$B/tests
TMP=$(mktemp -d /tmp/mtrace-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fails=0
# sanitized tools: any finding ends the program with a non-zero status, which the tests see;
# not leaks: the tools run once and exit, holding their tables to the end by design
# trace_run replays through the malloc in its process, which is ASan's there: let it return
# NULL for the edge cases glibc accepts (aligned_alloc of an odd size, absurd sizes)
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:exitcode=99:detect_leaks=0:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

ok()  { printf "ok - %s\n" "$*"; }
bad() { printf "not ok - %s\n" "$*"; fails=$((fails + 1)); }
# check DESCRIPTION COMMAND...: passes if the command succeeds
check() { d=$1; shift; if "$@"; then ok "$d"; else bad "$d"; fi; }
# eq DESCRIPTION EXPECTED ACTUAL
eq() { if [ "$2" = "$3" ]; then ok "$1 ($3)"; else bad "$1: expected '$2', got '$3'"; fi; }
# ge DESCRIPTION MIN ACTUAL
ge() { if [ "$3" -ge "$2" ] 2>/dev/null; then ok "$1 ($3 >= $2)"; else bad "$1: expected at least $2, got '$3'"; fi; }
skip() { echo "$*"; exit 77; }
finish() { echo "$fails failed"; [ "$fails" -eq 0 ]; exit $?; }

# traced BASE COMMAND...: run COMMAND under the preload, tracing to BASE.<pid>
traced() { base=$1; shift; MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE=$base LD_PRELOAD=$LIB "$@"; }
# count TRACE KEY [SIZE]: one figure from trace_count
count() {
	if [ $# -eq 3 ]; then "$TP/trace_count" --size "$3" "$1"; else "$TP/trace_count" "$1"; fi |
		awk -v k="$2" '$1 == k { print $2 }'
}
# runs_agree DESCRIPTION TRACE: reading a run at a time (what trace2wl does) gives the same
# records as reading one at a time, and each run keeps its promises (trace_count --runs checks)
runs_agree() {
	"$TP/trace_count" "$2" >"$TMP/runs1" 2>&1; "$TP/trace_count" --runs "$2" >"$TMP/runs2" 2>&1
	if cmp -s "$TMP/runs1" "$TMP/runs2"; then ok "$1"; else bad "$1: $(diff "$TMP/runs1" "$TMP/runs2" | head -n 3 | tr '\n' ' ')"; fi
}
# the only trace file matching a glob, or the empty string
# Is signal number N ignored in this shell (nohup, a background job)?  mtracectl and its
# program then inherit it ignored: a check of its delivery has nothing to check.
ignored_here() {
	[ $(( 0x$(awk '/^SigIgn:/ { print $2 }' /proc/$$/status) >> ($1 - 1) & 1 )) -eq 1 ]
}
one_file() { set -- $1; [ $# -eq 1 ] && [ -e "$1" ] && echo "$1"; }
