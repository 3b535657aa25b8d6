#!/bin/sh
# make fuzz: build each harness with libFuzzer (clang -fsanitize=fuzzer,address,undefined), seed
# its corpus with inputs the project makes itself, run it FUZZ_SECONDS, and fail on any finding
# (the input is copied to fuzz/regressions/HARNESS/ so it becomes a regression test).
B=${B:-build}
FB=${FB:-build-fuzz}
SECONDS_EACH=${FUZZ_SECONDS:-60}
set -u
if ! command -v clang >/dev/null 2>&1; then
	echo "make fuzz: clang is not installed (apt-get install clang libclang-rt-14-dev)"; exit 77
fi
mkdir -p "$FB"
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return 0; }\n' >"$FB/probe.c"
if ! clang -fsanitize=fuzzer "$FB/probe.c" -o "$FB/probe" 2>/dev/null; then
	echo "make fuzz: clang has no libFuzzer runtime (apt-get install libclang-rt-14-dev)"; exit 77
fi
# the tools' library sources and include flags, as the Makefile lists them
LIBSRC=${LIBSRC:?run by make fuzz}
TOOL_INC=${TOOL_INC:?run by make fuzz}
HARNESSES="fuzz_trace_reader fuzz_convert fuzz_workload fuzz_dj_workload fuzz_import fuzz_latency fuzz_replay_maps
	fuzz_stacks fuzz_elf_symbols fuzz_stream"
# (-D_GNU_SOURCE= as the sources define it, empty: no "redefined" warning for each)
FCFLAGS="-std=gnu11 -D_GNU_SOURCE= -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -Iinclude $TOOL_INC -Ifuzz"
# the library as an archive, as make builds it: a harness takes only the objects it calls, so
# a tool's module that needs its tool's main (its options) never has to link
rm -rf "$FB/obj" "$FB/libmtools.a"; mkdir -p "$FB/obj"
for src in $LIBSRC; do
	o=$FB/obj/$(echo "$src" | tr / _ | sed 's/\.c$/.o/')
	clang $FCFLAGS -c "$src" -o "$o" || exit 1
done
ar rcs "$FB/libmtools.a" "$FB"/obj/*.o || exit 1
for h in $HARNESSES; do
	clang $FCFLAGS -fsanitize=fuzzer "fuzz/$h.c" "$FB/libmtools.a" -o "$FB/$h" -pthread -lm || exit 1
done

# seeds, made by the project's own tools
S=$FB/seeds
rm -rf "$S"; mkdir -p "$S/trace" "$S/wl" "$S/dj"
"$B/tests/mkfixture" trace-edge "$S/trace/edge"
"$B/tests/mkfixture" trace-inverted "$S/trace/inverted"
"$B/tests/mkfixture" dj-edge "$S/trace/dj-edge"
MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$S/trace/real" LD_PRELOAD="$B/lib/libmtracectl.so" "$B/tests/entry_points" --count >/dev/null
"$B/tests/swap_trace" "$S/trace/edge" "$S/trace/edge-swapped"
"$B/tests/swap_trace" --ptr32 "$S/trace/ptr32"
# version 2: mappings cut and remapped, resident bytes, samples (by hand, two threads, a real
# program's own), and one of each record the reader refuses
"$B/tests/mkprogmem" v2 "$S/trace/v2"
"$B/tests/mkprogmem" bad-munmap-resident "$S/trace/v2-bad"
"$B/tests/mkfixture" trace-v2threads "$S/trace/v2threads"
"$B/tests/selftrace" mapped "$S/trace/v2mapped"
"$B/tests/swap_trace" "$S/trace/v2" "$S/trace/v2-swapped"
# version 5: call stacks, objects (one unloaded) and the names trace_pack embeds; ELF files
"$B/tests/stackprog" "$S/trace/stacks" >/dev/null
"$B/tests/swap_trace" "$S/trace/stacks" "$S/trace/stacks-swapped"
mkdir -p "$S/stacks" "$S/elf"
cp "$S/trace/stacks" "$S/trace/stacks-swapped" "$S/stacks/"
# version 6: the tracer's, stack ids in the records (compact and wide)
MTRACE_CTL_STACKS=16 MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$S/trace/ids" LD_PRELOAD="$B/lib/libmtracectl.so" "$B/tests/stacks" wide >/dev/null
for f in "$S"/trace/ids.*; do "$B/tests/swap_trace" "$f" "$f-swapped"; done
cp "$S"/trace/ids.* "$S/stacks/"
"$B/bin/trace_pack" -q -o - "$S/trace/stacks" | gzip -dc >"$S/stacks/packed"
cp "$B/tests/stackprog" "$S/elf/"
strip -o "$S/elf/stripped" "$B/tests/stackprog" 2>/dev/null
# version 4: large blocks still live at the end
MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$S/trace/live" LD_PRELOAD="$B/lib/libmtracectl.so" "$B/tests/keeplive" >/dev/null
for t in "$S"/trace/*; do
	n=$(basename "$t")
	"$B/bin/trace2wl" -q --dj-format "$S/dj/$n" "$S/wl/$n" "$t" 2>/dev/null
done
for k in wl-ok wl-racy wl-deadlock wl-badslot wl-badthread wl-maps; do "$B/tests/mkfixture" $k "$S/wl/$k"; done
mkdir -p "$S/maps"   # MAP, UNMAP, REMAP with operands, as fuzz_replay_maps reads them
printf '\003\000\200\200\004\001\001\000\200\200\001\200\200\001\002\000\200\200\010\001' >"$S/maps/seq"
mkdir -p "$S/log"
printf '= Start\n@ ./prog:[0x4005d6] + 0x1b6e260 0x64\n@ ./prog:[0x4005e6] + 0x1b6e2d0 0xc8\n@ /lib/libc.so.6:(clearenv+0x5d)[0x7f00aa] < 0x1b6e260\n@ /lib/libc.so.6:(clearenv+0x5d)[0x7f00aa] > 0x1b6e400 0x190\n- 0x1b6e2d0\n+ (nil) 0xffffffffffff\n@ [0x4005f0] ! 0x1b6e400 0xfffffffffff0\n- 0x1b6e400\n= End\n' >"$S/log/hand"
dbg=$(ls /usr/lib/*/libc_malloc_debug.so.0 2>/dev/null | head -n 1)
[ -n "$dbg" ] && MALLOC_TRACE="$S/log/real" LD_PRELOAD="$dbg" "$B/tests/mtrace_prog" >/dev/null 2>&1
mkdir -p "$S/lat"
"$B/bin/trace_run" -L "$S/lat/replay" "$S/wl/real" >/dev/null 2>&1
"$B/bin/trace_stats" -L "$S/lat/traced" "$S/trace/real" >/dev/null 2>&1

failed=0
run() { # HARNESS SEEDDIR
	h=$1; corpus=$FB/corpus/$h; findings=$FB/findings/$h
	rm -rf "$findings"   # an earlier run's findings are in fuzz/regressions/ already
	mkdir -p "$corpus" "$findings"
	cp "$2"/* "$corpus"/ 2>/dev/null
	[ -d "fuzz/corpus/$h" ] && cp fuzz/corpus/"$h"/* "$corpus"/ 2>/dev/null
	echo "== $h: $SECONDS_EACH s"
	# the inputs found before, under this compiler's sanitizers too (make check runs them built
	# by gcc, whose UBSan misses some of what clang's reports, such as NULL + 0)
	if ls fuzz/regressions/"$h"/* >/dev/null 2>&1 &&
	   ! ASAN_OPTIONS=allocator_may_return_null=1 "$FB/$h" fuzz/regressions/"$h"/* >"$FB/$h.regressions.log" 2>&1; then
		echo "   REGRESSION: a kept input of fuzz/regressions/$h/ fails again (see $FB/$h.regressions.log)"
		failed=$((failed + 1))
	fi
	# leaks on: a leak per input is a bug in the library code the tools loop over
	ASAN_OPTIONS=allocator_may_return_null=1 "$FB/$h" -max_total_time="$SECONDS_EACH" \
		-rss_limit_mb=2048 -timeout=10 -max_len=65536 -artifact_prefix="$findings/" "$corpus" \
		>"$FB/$h.log" 2>&1
	tail -n 2 "$FB/$h.log" | sed 's/^/   /'
	if ls "$findings"/* >/dev/null 2>&1; then
		mkdir -p "fuzz/regressions/$h"
		cp "$findings"/* "fuzz/regressions/$h/"
		echo "   FINDING: $(ls "$findings" | head -n 3 | tr '\n' ' ') (kept in fuzz/regressions/$h/; see $FB/$h.log)"
		failed=$((failed + 1))
	fi
}
run fuzz_trace_reader "$S/trace"
run fuzz_convert "$S/trace"
run fuzz_workload "$S/wl"
run fuzz_dj_workload "$S/dj"
run fuzz_import "$S/log"
run fuzz_latency "$S/lat"
run fuzz_replay_maps "$S/maps"
run fuzz_stacks "$S/stacks"
run fuzz_elf_symbols "$S/elf"
mkdir -p "$S/stream"   # (its seeds: fuzz/corpus/fuzz_stream, a stream mtracectl --send wrote)
run fuzz_stream "$S/stream"
echo "fuzz: $failed harness(es) with findings"
[ $failed -eq 0 ]
