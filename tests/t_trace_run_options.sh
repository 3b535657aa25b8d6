# trace_run's options: --log, --touch, --mallopt, --trim-every, --tunables (checked against
# what glibc knows), --repeat, --progress, the list of allocators, and the usage errors.
. tests/lib.sh
. tests/lib_trace_run.sh
make_m
make_x
gzip -c "$TMP/m.wl" >"$TMP/m.wl.gz"

# --- options
"$R" -l "$TMP/tl.tsv" -i 5 "$TMP/m.wl" >/dev/null; eq "--log: exit 0" 0 "$?"
eq "--log: its first line names the run" "# trace_run timeline: glibc" "$(head -n 1 "$TMP/tl.tsv")"
# (program_ms: the program's time the replay is at, as its workload has times)
eq "--log: TSV header" "time_ms	vmrss_kb	vmsize_kb	ideal_kb	calls	anon_kb	mapped_kb	program_ms" "$(sed -n 2p "$TMP/tl.tsv")"
ge "--log: samples" 1 "$(tail -n +3 "$TMP/tl.tsv" | grep -c '^[0-9]*	[0-9]*	[0-9]*	[0-9]*	[0-9]*	[0-9]*	[0-9]*	[0-9]*\.[0-9]\{3\}$')"
# the first row is the process before the first call (the baseline of every growth figure)
eq "--log: the first row at time 0, before any call" "0 0 0" "$(sed -n 3p "$TMP/tl.tsv" | cut -f 1,4,5 | tr '\t' ' ')"
# blocks live at the end (so the last sample is at the peak): the timeline's growth above its
# first row is the summary's Max RSS, within what the sampler's reads and the harness's last
# steps add (a first row taken at the first sample, thousands of calls on, read near 0)
printf '= Start\n' >"$TMP/big.log"
for a in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do printf '+ 0x%x 0x400000\n' $((a * 0x1000000)) >>"$TMP/big.log"; done
printf '= End\n' >>"$TMP/big.log"
"$BIN/trace_import" "$TMP/big.log" "$TMP/big.trace" && "$BIN/trace2wl" -q "$TMP/big.wl" "$TMP/big.trace"
"$R" -l "$TMP/big.tsv" --csv "$TMP/big.wl" >"$TMP/big.csv"
grow=$(tail -n +3 "$TMP/big.tsv" | awk 'NR == 1 { b = $2 } $2 - b > m { m = $2 - b } END { print m + 0 }')
maxrss=$(csv "$TMP/big.csv" maxrss_growth_kb)
check "--log: growth above the first row ($grow KiB) is the summary's Max RSS ($maxrss KiB) within a tenth" \
	test $(( (grow - maxrss) * 10 )) -le "$maxrss" -a $(( (maxrss - grow) * 10 )) -le "$maxrss"
eq "--log: the last sample has every call done" "$(wl "$TMP/m.wl" calls)" "$(tail -n 1 "$TMP/tl.tsv" | cut -f 5)"
ge "--log: the ideal column saw live blocks" 1 "$(tail -n +3 "$TMP/tl.tsv" | awk '$4 > m { m = $4 } END { print m + 0 }')"
for t in none full pages resident; do "$R" --touch=$t "$TMP/m.wl" >/dev/null; eq "--touch=$t: exit 0" 0 "$?"; done
"$R" --mallopt M_MMAP_THRESHOLD=65536 --mallopt M_ARENA_MAX=1 --trim-every=1000 "$TMP/x.wl" >/dev/null; eq "--mallopt, --trim-every: exit 0" 0 "$?"
# malloc_trim from several threads at once while glibc's malloc is not set up (another allocator
# serves malloc, as under ASan): glibc's lazy set-up must not race (it aborts glibc when it does)
bad_runs=0
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	"$R" --trim-every=1 "$TMP/x.wl" >/dev/null 2>&1 || bad_runs=$((bad_runs + 1))
done
eq "--trim-every=1 on 4 threads, 20 runs: none fails" 0 "$bad_runs"
"$R" --csv "$TMP/m.wl" >"$TMP/m.csv"
"$R" --tunables=glibc.malloc.tcache_count=0 --csv "$TMP/m.wl" >"$TMP/tun.csv"; eq "--tunables: exit 0" 0 "$?"
eq "--tunables: same calls" "$(csv "$TMP/m.csv" malloc_calls)" "$(csv "$TMP/tun.csv" malloc_calls)"
"$R" -r 3 "$TMP/m.wl" >"$TMP/rep"; eq "-r 3: exit 0" 0 "$?"
grep -q '^Median of 3 runs, each in a fresh process$' "$TMP/rep" && ok "-r 3 reports medians" || bad "-r 3 output"
"$R" --mallopt M_BOGUS=1 "$TMP/m.wl" 2>/dev/null; eq "unknown mallopt: exit 2" 2 "$?"
# a tunable glibc does not know, or a value outside its range, is ignored by glibc without a
# word: refused, when the loader can list its tunables (glibc 2.33 on)
ldso=$(ls /lib64/ld-linux-*.so.* /lib/ld-linux-*.so.* 2>/dev/null | head -n 1)
if [ -n "$ldso" ] && "$ldso" --list-tunables 2>/dev/null | grep -q '^glibc.malloc.arena_max: .*(min: '; then
	"$R" --tunables=glibc.malloc.tcache_cnt=0 "$TMP/m.wl" >/dev/null 2>"$TMP/err"; eq "a misspelt tunable: exit 2" 2 "$?"
	grep -q "no tunable 'glibc.malloc.tcache_cnt'" "$TMP/err" && ok "a misspelt tunable: named" || bad "tunable: $(cat "$TMP/err")"
	"$R" --tunables=glibc.malloc.tcache_count=0:glibc.malloc.arena_max=0 "$TMP/m.wl" >/dev/null 2>"$TMP/err"
	eq "a tunable out of its range: exit 2" 2 "$?"
	grep -q "glibc.malloc.arena_max=0 is outside its range (1 to " "$TMP/err" && ok "out of range: says the range" || bad "range: $(cat "$TMP/err")"
	"$R" --tunables=glibc.malloc.arena_max=two "$TMP/m.wl" >/dev/null 2>&1; eq "a tunable that is not a number: exit 2" 2 "$?"
	"$R" --tunables=glibc.malloc.arena_max "$TMP/m.wl" >/dev/null 2>&1; eq "a tunable without a value: exit 2" 2 "$?"
	"$R" --tunables=glibc.malloc.tcache_count=0x10:glibc.malloc.arena_max=1 "$TMP/m.wl" >/dev/null; eq "good tunables, hex and decimal: exit 0" 0 "$?"
else
	echo "# the dynamic loader cannot list its tunables: their check is not run"
fi
# mallopt and glibc.malloc tunables tune glibc's malloc: with another allocator, said once
if [ "${SANITIZE:-}" != 1 ]; then
	"$R" --malloc "$TP/libfwd.so" --mallopt M_ARENA_MAX=1 "$TMP/m.wl" >/dev/null 2>"$TMP/err"; eq "--mallopt with another allocator: exit 0" 0 "$?"
	eq "--mallopt with another allocator: one warning" 1 "$(grep -c "mallopt sets glibc's malloc, which .*libfwd.so replaces" "$TMP/err")"
	"$R" --compare "glibc,$TP/libfwd.so" -r 2 --tunables=glibc.malloc.arena_max=1 "$TMP/m.wl" >/dev/null 2>"$TMP/err"
	eq "--compare, malloc tunables and another allocator: one warning in all" "1 1" \
		"$(grep -c "glibc.malloc tunables tune glibc's malloc only: the .*libfwd.so column is not affected" "$TMP/err") $(grep -c . "$TMP/err")"
fi
"$R" --touch=sometimes "$TMP/m.wl" 2>/dev/null; eq "bad --touch: exit 2" 2 "$?"

# --- progress: -p shows the calls replayed on stderr (the sampler's line, cleared at the end),
# naming the run in --compare/--repeat; stdout keeps the summary alone; without -p and a
# terminal, nothing
"$R" -p "$TMP/m.wl" >"$TMP/out" 2>"$TMP/err"; eq "-p: exit 0" 0 "$?"
calls=$(wl "$TMP/m.wl" calls)
grouped=$(echo "$calls" | sed ':a; s/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/; ta')
tr '\r' '\n' <"$TMP/err" | grep -q "^trace_run: $TMP/m.wl: [0-9]*% ([0-9,]* of $grouped calls)" &&
	ok "-p: a progress line of the workload's calls" || bad "-p: $(cat -A "$TMP/err" | head -c 300)"
tr '\r' '\n' <"$TMP/err" | tail -n 1 | grep -q '^ *$' && ok "-p: the line cleared at the end" || bad "-p not cleared: $(cat -A "$TMP/err" | tail -c 200)"
eq "-p: stdout is the summary alone" "cycles" "$(head -n 1 "$TMP/out" | awk '{ print $2 }')"
tr '\r' '\n' <"$TMP/err" | grep -q "^trace_run: checking $TMP/m.wl: 0% (0 of [0-9,]* operations)" &&
	ok "-p: the validation's progress too" || bad "-p validation: $(cat -A "$TMP/err" | head -c 300)"
"$R" "$TMP/m.wl" >/dev/null 2>"$TMP/err"; eq "no -p, no terminal: nothing on stderr" 0 "$(wc -c <"$TMP/err")"
"$R" -p -r 2 --csv "$TMP/m.wl" >/dev/null 2>"$TMP/err"; eq "-p -r 2: exit 0" 0 "$?"
eq "-p -r 2: each run named" "run 1 of 2, glibc run 2 of 2, glibc" \
	"$(tr '\r' '\n' <"$TMP/err" | sed -n 's/^trace_run: \(run [0-9] of 2, glibc\): .*/\1/p' | uniq | xargs)"
# a compressed workload: its decompression shows progress too (how much of the compressed
# file is read)
"$R" -p --csv "$TMP/m.wl.gz" >/dev/null 2>"$TMP/err"; eq "-p, compressed: exit 0" 0 "$?"
tr '\r' '\n' <"$TMP/err" | grep -q "^trace_run: decompressing $TMP/m.wl.gz: [0-9]*% ([0-9,]* MiB of [0-9,]* MiB compressed)" &&
	ok "-p: the decompression's progress" || bad "-p decompression: $(cat -A "$TMP/err" | head -c 300)"
# a dj/malloc workload: its translation (in a child process) shows progress too
"$R" -p --csv "$TMP/mdj" >"$TMP/out" 2>"$TMP/err"; eq "-p, dj/malloc workload: exit 0" 0 "$?"
eq "dj/malloc workload: every free" "$(wl "$TMP/m.wl" free)" "$(csv "$TMP/out" free_calls)"
tr '\r' '\n' <"$TMP/err" | grep -q "^trace_run: translating $TMP/mdj: [0-9]*% ([0-9,]* of [0-9,]* operations)" &&
	ok "-p: the translation's progress" || bad "-p translation: $(cat -A "$TMP/err" | head -c 300)"

# --- the list of allocators: an empty name, or more than 16, refused (not dropped, nor left
# out without a word)
"$R" --compare glibc,,glibc "$TMP/m.wl" >/dev/null 2>"$TMP/err"; eq "--compare with an empty name: exit 2" 2 "$?"
grep -q "separated by single commas, not 'glibc,,glibc'" "$TMP/err" && ok "--compare, empty name: says so" || bad "empty: $(cat "$TMP/err")"
"$R" --compare glibc, "$TMP/m.wl" >/dev/null 2>&1; eq "--compare with a trailing comma: exit 2" 2 "$?"
"$R" --compare glibc,glibc,glibc,glibc,glibc,glibc,glibc,glibc,glibc,glibc,glibc,glibc,glibc,glibc,glibc,glibc,glibc "$TMP/m.wl" >/dev/null 2>"$TMP/err"
eq "--compare with 17 allocators: exit 2" 2 "$?"

# --- an allocator not there, or not known
"$R" --compare glibc,/nonexistent/lib.so "$TMP/m.wl" 2>"$TMP/err"; eq "missing allocator: exit 3" 3 "$?"
"$R" --malloc=nosuch "$TMP/m.wl" 2>"$TMP/err"; eq "unknown allocator: exit 2 (a usage error)" 2 "$?"
grep -q 'no allocator of that name' "$TMP/err" && ok "says the allocator is unknown" || bad "unknown allocator message"
"$R" --malloc= "$TMP/m.wl" 2>"$TMP/err"; eq "--malloc with nothing: exit 2" 2 "$?"
"$R" --csv --json "$TMP/m.wl" >/dev/null 2>&1; eq "--csv and --json together: exit 2" 2 "$?"
# --- 80 columns: on a terminal a single run's summary is broken at spaces to fit (the
# fidelity line, the memalign line); piped, a line each as scripts read them
"$TP/ptyrun" 80 sh -c 'exec "$@" 2>/dev/null' sh "$R" -m traced "$TMP/m.wl" | tr -d '\r' >"$TMP/tty.txt"
widest=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$TMP/tty.txt")
check "a terminal of 80 columns: no line wider than 79 ($widest)" test "$widest" -le 79
grep -q '^Program as traced: ' "$TMP/tty.txt" && ok "... the fidelity line there" || bad "no fidelity line: $(tail -n 3 "$TMP/tty.txt")"
"$R" -m traced "$TMP/m.wl" >"$TMP/pipe.txt" 2>/dev/null
eq "piped: the fidelity line on one line" 1 "$(grep -c '^Program as traced: .*peak anonymous RSS growth; this replay: .* on average' "$TMP/pipe.txt")"
finish
