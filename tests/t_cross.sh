# aarch64: everything builds for it without a warning (clang cross-compiling), and, where
# qemu-user can run it, works there: a program traced on aarch64 makes the same calls as on
# x86-64 and its trace reads here; trace2wl and trace_dump give byte-identical output on either
# machine for either machine's trace; trace_run replays with the aarch64 counter.
. tests/lib.sh
XCC="clang --target=aarch64-linux-gnu -fuse-ld=lld"
need="clang lld libc6-dev-arm64-cross libgcc-12-dev-arm64-cross"
command -v clang >/dev/null 2>&1 && command -v ld.lld >/dev/null 2>&1 ||
	skip "not built for aarch64: no clang or lld (apt-get install $need)"
printf 'int main(void) { return 0; }\n' >"$TMP/p.c"
$XCC "$TMP/p.c" -o "$TMP/p" 2>/dev/null ||
	skip "not built for aarch64: clang cannot link for it here (apt-get install $need)"

A=$TMP/arm64
make -s -j2 B="$A" CC="$XCC -Wno-unused-command-line-argument" CFLAGS="-O2 -g -Werror" all >"$TMP/build.log" 2>&1
eq "make all for aarch64, warnings as errors: exit status" 0 "$?"
sed 's/^/# /' "$TMP/build.log" | head -n 20
machine() { od -An -tx1 -j18 -N2 "$1" 2>/dev/null | tr -d ' \n'; }   # ELF e_machine; b700: AArch64
for f in lib/libmtracectl.so lib/libmtrace.so bin/trace2wl bin/trace_run bin/trace_dump bin/mtracectl; do
	eq "$f is an AArch64 ELF file" b700 "$(machine "$A/$f")"
done
[ "$fails" -eq 0 ] || finish
command -v qemu-aarch64 >/dev/null 2>&1 ||
	skip "built and checked for aarch64, not run there: no qemu-aarch64 (apt-get install qemu-user)"

Q="qemu-aarch64 -L /usr/aarch64-linux-gnu"
$XCC -std=gnu11 -O2 bench/mbench.c -o "$A/mbench" -pthread
# the same deterministic program, traced on each machine
$Q -E MTRACE_CTL_QUIET=1 -E MTRACE_CTL_FILE="$TMP/qa" -E LD_PRELOAD="$A/lib/libmtracectl.so" \
	"$A/mbench" 2 20000 >"$TMP/out_a"
traced "$TMP/qx" "$ROOT/$B/bench/mbench" 2 20000 >"$TMP/out_x"
fa=$(one_file "$TMP/qa.*"); fx=$(one_file "$TMP/qx.*")
check "a trace was written on aarch64" test -n "$fa"
check "the aarch64 trace validates here" "$BIN/trace_dump" -c "$fa"
"$BIN/trace_dump" -H "$fa" >"$TMP/hdr"
grep -q 'aarch64 CNTVCT' "$TMP/hdr" && ok "its timestamps are the aarch64 counter's" ||
	bad "clock line: $(grep clock "$TMP/hdr")"
check "the program printed the same on both" cmp "$TMP/out_a" "$TMP/out_x"
for k in malloc calloc free realloc calls threads; do
	eq "aarch64 and x86-64 traces: $k" "$(count "$fx" $k)" "$(count "$fa" $k)"
done

# each machine reads each machine's trace the same
$Q "$A/bin/trace_dump" "$fx" >"$TMP/dump_a"; "$BIN/trace_dump" "$fx" >"$TMP/dump_x"
check "trace_dump on aarch64 prints what it prints here" cmp "$TMP/dump_a" "$TMP/dump_x"
"$BIN/trace2wl" -q "$TMP/xx.wl" "$fx"; $Q "$A/bin/trace2wl" -q "$TMP/ax.wl" "$fx"
check "x86-64 trace: the same workload converted on aarch64" cmp "$TMP/xx.wl" "$TMP/ax.wl"
"$BIN/trace2wl" -q "$TMP/xa.wl" "$fa"; $Q "$A/bin/trace2wl" -q "$TMP/aa.wl" "$fa"
check "aarch64 trace: the same workload converted here" cmp "$TMP/aa.wl" "$TMP/xa.wl"

# replay there
$Q "$A/bin/trace_run" "$TMP/aa.wl" >"$TMP/run"
eq "trace_run on aarch64: exit status" 0 "$?"
calls_of() { awk -v k="$1" '$1 == "Avg" && $2 == k { gsub(",", "", $(NF - 1)); print $(NF - 1) }' "$TMP/run"; }
eq "trace_run on aarch64: malloc calls replayed" "$(count "$fa" malloc)" "$(calls_of malloc)"
eq "trace_run on aarch64: free calls replayed" "$(count "$fa" free)" "$(calls_of free)"
grep -q '^Timer: cntvct_el0' "$TMP/run" && ok "trace_run on aarch64 times with its counter" ||
	bad "timer line: $(grep Timer "$TMP/run")"
finish
