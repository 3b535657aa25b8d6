# tier: slow (cross compilers, programs run under qemu-user)
# Other machines: everything builds for aarch64 (little-endian), s390x (big-endian) and 32-bit
# x86 (4-byte pointers) without a warning, and where their programs run here (under qemu-user;
# natively for 32-bit x86) it works there: a program traced there makes the same calls as here
# and its trace reads here; trace_dump and trace2wl there give byte-identical output for our
# trace, and either machine's trace converts to the same workload on either (the workload has
# one byte order); trace_run replays there, with that machine's timer.  A machine whose cross
# tools are missing is left out, saying so; the test skips if none can be built.
. tests/lib.sh
traced "$TMP/x" "$ROOT/$B/bench/mbench" 2 20000 >"$TMP/out_x"
fx=$(one_file "$TMP/x.*")
"$BIN/trace_dump" "$fx" >"$TMP/dump_x"
"$BIN/trace2wl" -q "$TMP/xx.wl" "$fx"
machine() { od -An -tx1 -j18 -N2 "$1" 2>/dev/null | tr -d ' \n'; }   # ELF e_machine
calls_of() { awk -v k="$2" '$1 == "Avg" && $2 == k { gsub(",", "", $(NF - 1)); print $(NF - 1) }' "$1"; }
built=0 ran=0 missing=""

# cross ARCH CC RUNNER E_MACHINE(as in the file) FORMAT(trace_dump) CLOCK(trace_dump) TIMER(trace_run) PACKAGES
# (RUNNER: the qemu that runs ARCH's programs here, or "" where they run natively)
cross() {
	arch=$1 xcc=$2 runner=$3 em=$4 format=$5 timer=$6 rtimer=$7 pkgs=$8
	printf 'int main(void) { return 0; }\n' >"$TMP/p.c"
	if ! command -v "${xcc%% *}" >/dev/null 2>&1 || ! $xcc "$TMP/p.c" -o "$TMP/p" 2>/dev/null; then
		echo "# $arch: not built, its cross tools are missing (apt-get install $pkgs)"
		missing="$missing $arch"
		return
	fi
	A=$TMP/$arch
	make -s -j2 B="$A" CC="$xcc -Wno-unused-command-line-argument" CFLAGS="-O2 -g -Werror" all >"$TMP/build.log" 2>&1
	eq "$arch: make all, warnings as errors: exit status" 0 "$?"
	sed 's/^/# /' "$TMP/build.log" | head -n 20
	for f in lib/libmtracectl.so lib/libmtrace.so bin/trace2wl bin/trace_run bin/trace_dump bin/mtracectl; do
		eq "$arch: $f is built for it" "$em" "$(machine "$A/$f")"
	done
	built=$((built + 1))
	Q=$runner
	if [ -n "$Q" ] && ! command -v "${Q%% *}" >/dev/null 2>&1 || ! $Q "$TMP/p" 2>/dev/null; then
		echo "# $arch: built, not run: cannot run its programs here (apt-get install qemu-user)"
		missing="$missing $arch(run)"
		return
	fi
	$xcc -std=gnu11 -O2 bench/mbench.c -o "$A/mbench" -pthread
	if [ -n "$Q" ]; then   # qemu sets the environment of the program it runs, not its own
		$Q -E MTRACE_CTL_QUIET=1 -E MTRACE_CTL_FILE="$TMP/t_$arch" -E LD_PRELOAD="$A/lib/libmtracectl.so" \
			"$A/mbench" 2 20000 >"$TMP/out_$arch"
	else
		MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/t_$arch" LD_PRELOAD="$A/lib/libmtracectl.so" \
			"$A/mbench" 2 20000 >"$TMP/out_$arch"
	fi
	# a file mapped at 2 GiB (a 32-bit off_t there): as untraced
	$xcc -std=gnu11 -O2 tests/prog/mmap_high.c -o "$A/mmap_high"
	u=$($Q "$A/mmap_high" "$TMP/big_$arch"); rm -f "$TMP/big_$arch"
	if [ -n "$Q" ]; then
		tr=$($Q -E MTRACE_CTL_QUIET=1 -E MTRACE_CTL_FILE="$TMP/mh_$arch" -E LD_PRELOAD="$A/lib/libmtracectl.so" \
			"$A/mmap_high" "$TMP/big_$arch")
	else
		tr=$(MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/mh_$arch" LD_PRELOAD="$A/lib/libmtracectl.so" \
			"$A/mmap_high" "$TMP/big_$arch")
	fi
	rm -f "$TMP/big_$arch"
	eq "$arch: a file mapped at 2 GiB, traced: as untraced" "$u" "$tr"
	fa=$(one_file "$TMP/t_$arch.*")
	check "$arch: a trace was written there" test -n "$fa"
	check "$arch: its trace validates here" "$BIN/trace_dump" -c "$fa"
	"$BIN/trace_dump" -H "$fa" >"$TMP/hdr"
	grep -q "$format" "$TMP/hdr" && ok "$arch: its trace is $format" || bad "$arch: format line: $(grep format "$TMP/hdr")"
	grep -q "$timer" "$TMP/hdr" && ok "$arch: its clock is $timer" || bad "$arch: clock line: $(grep clock "$TMP/hdr")"
	check "$arch: the program printed the same as here" cmp "$TMP/out_$arch" "$TMP/out_x"
	for k in malloc calloc free realloc calls threads; do
		eq "$arch: its trace and ours: $k" "$(count "$fx" $k)" "$(count "$fa" $k)"
	done
	$Q "$A/bin/trace_dump" "$fx" >"$TMP/dump_a"
	check "$arch: trace_dump there prints what it prints here" cmp "$TMP/dump_a" "$TMP/dump_x"
	$Q "$A/bin/trace2wl" -q "$TMP/ax.wl" "$fx"
	check "$arch: our trace converts there to the same workload" cmp "$TMP/xx.wl" "$TMP/ax.wl"
	"$BIN/trace2wl" -q "$TMP/xa.wl" "$fa"; $Q "$A/bin/trace2wl" -q "$TMP/aa.wl" "$fa"
	check "$arch: its trace converts here to the same workload as there" cmp "$TMP/aa.wl" "$TMP/xa.wl"
	$Q "$A/bin/trace_run" "$TMP/xx.wl" >"$TMP/run"
	eq "$arch: trace_run there replays our workload: exit status" 0 "$?"
	eq "$arch: malloc calls replayed" "$(count "$fx" malloc)" "$(calls_of "$TMP/run" malloc)"
	eq "$arch: free calls replayed" "$(count "$fx" free)" "$(calls_of "$TMP/run" free)"
	grep -q "^Timer: $rtimer" "$TMP/run" && ok "$arch: trace_run times with $rtimer" ||
		bad "$arch: timer line: $(grep Timer "$TMP/run")"
	"$BIN/trace_run" "$TMP/aa.wl" >"$TMP/run2"
	eq "$arch: its workload replays here: exit status" 0 "$?"
	ran=$((ran + 1))
}
cross aarch64 "clang --target=aarch64-linux-gnu -fuse-ld=lld" "qemu-aarch64 -L /usr/aarch64-linux-gnu" b700 \
	"little-endian, 8-byte pointers" "CNTVCT" cntvct_el0 \
	"clang lld libc6-dev-arm64-cross libgcc-12-dev-arm64-cross"
cross s390x "clang --target=s390x-linux-gnu" "qemu-s390x -L /usr/s390x-linux-gnu" 0016 \
	"big-endian, 8-byte pointers" "CLOCK_MONOTONIC" clock_gettime \
	"clang binutils-s390x-linux-gnu libc6-dev-s390x-cross libgcc-12-dev-s390x-cross"
cross i386 "gcc -m32" "" 0300 "little-endian, 4-byte pointers" "x86 TSC" rdtscp "gcc-multilib"
[ "$fails" -eq 0 ] || finish
[ "$built" -gt 0 ] || skip "no other machine could be built for:$missing"
echo "# built for $built machine(s), ran on $ran${missing:+; not done:$missing}"
finish
