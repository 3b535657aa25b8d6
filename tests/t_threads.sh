# Hundreds of threads created and joined in waves: every call of every thread is in the trace.
. tests/lib.sh
traced "$TMP/th" "$TP/threads" 400 50 10 >"$TMP/out"
eq "program output" "400 threads" "$(cat "$TMP/out")"
f=$(one_file "$TMP/th.*")
check "trace validates" "$BIN/trace_dump" -c "$f"
eq "all 4000 malloc(777) recorded" 4000 "$(count "$f" malloc 777)"
ge "threads seen" 400 "$(count "$f" threads)"
ge "glibc flag: threads' blocks from other arenas than the main one" 1000 "$(count "$f" flags_arena)"
# a thread's first chunk is 1 KiB and its calls after its exit destructor (glibc freeing its
# thread state) go to a 256-byte one: about 27 unwritten records a thread (4 KiB chunks left
# about 100, a 64 KiB chunk each over 1,000)
u=$(count "$f" unwritten)
check "threads that exit leave little unused space ($u unwritten records for 400 threads)" test "$u" -lt 16000
# a thread's chunks grow from 1 KiB as it makes calls: threads of 200 calls leave about 37
# unused records each (from 4 KiB: about 300; a 64 KiB second chunk would leave over 900)
traced "$TMP/th4" "$TP/threads" 400 50 100 >/dev/null
f=$(one_file "$TMP/th4.*")
eq "400 threads x 100 malloc(777)" 40000 "$(count "$f" malloc 777)"
u=$(count "$f" unwritten)
check "threads of 200 calls leave little unused space ($u unwritten records for 400 threads)" test "$u" -lt 30000
# the closing count includes what exiting threads record after their exit destructor
MTRACE_CTL_VERBOSE=1 MTRACE_CTL_FILE="$TMP/th3" LD_PRELOAD="$LIB" "$TP/threads" 200 50 10 >/dev/null 2>"$TMP/err3"
f=$(one_file "$TMP/th3.*")
eq "stderr: 'N entries recorded', N every record in the file (200 threads)" \
	"mtracectl: $(count "$f" calls) entries recorded" "$(tail -n 1 "$TMP/err3")"
# fewer threads, more calls each: chunks are handed out and released many times
traced "$TMP/th2" "$TP/threads" 16 8 20000 >/dev/null
f=$(one_file "$TMP/th2.*")
eq "16 threads x 20000 malloc(777)" 320000 "$(count "$f" malloc 777)"
finish
