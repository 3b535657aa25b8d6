#!/bin/sh
# tests/dev/same-outputs.sh OLD NEW: do two builds (build directories holding bin/) turn the
# same traces into byte-identical outputs?  For changes that must not change behaviour (moving
# or splitting code): traces a small 2-thread program once, with NEW's tracer, and a program
# making every call type with durations and memory samples, takes the edge-case fixture
# (NEW's tests/mkfixture: make check builds it), then runs every tool of each build on them
# (the workload, dumps, statistics in text/TSV/JSON and latency, every kind of chart, a packed
# copy, an import, the calls a replay counts) and compares the files.  What a replay measures
# varies run to run: its timelines, CSV and latency files are made once, by NEW, and each
# build draws them.
# Prints each output's verdict; exit 0 when all are identical, 1 otherwise.
OLD=${1:?usage: same-outputs.sh OLD_BUILD NEW_BUILD}
NEW=${2:?usage: same-outputs.sh OLD_BUILD NEW_BUILD}
OLD=$(cd "$OLD" && pwd) && NEW=$(cd "$NEW" && pwd) || exit 1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
D=$(mktemp -d) || exit 1
trap 'rm -rf "$D"' EXIT
[ -x "$NEW/tests/mkfixture" ] ||
	{ echo "same-outputs.sh: no $NEW/tests/mkfixture (make check builds it)"; exit 1; }
cc -O2 -o "$D/prog" "$ROOT/bench/mbench.c" -pthread || exit 1
MTRACE_CTL_QUIET=1 "$NEW/bin/mtracectl" -q -o "$D/t" -- "$D/prog" 2 20000 >/dev/null || exit 1
T=$(ls "$D"/t.* | head -n 1)
# every call type, from two threads, each call's time recorded, the memory sampled (-O0
# -fno-builtin: no call left out as unused)
cat >"$D/calls.c" <<'CALLS'
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
static void *work(void *arg)
{
	for (int i = 0; i < 2000; i++) {
		size_t n = 16 + (size_t)(i % 97) * 24;
		void *a = malloc(n), *b = calloc(i % 7 + 1, n), *c = realloc(NULL, n), *d, *e;
		c = realloc(c, 2 * n);
		c = reallocarray(c, 3, n);
		d = memalign(64, n);
		if (posix_memalign(&e, 256, n))
			e = NULL;
		void *f = aligned_alloc(128, 4 * n), *g = valloc(n), *h = pvalloc(n);
		free(a), free(b), free(c), free(d), free(e), free(f), free(g), free(h);
		if (i % 100 == 0) {
			char *m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (m != MAP_FAILED) {
				m[0] = 1;
				munmap(m, 1 << 20);
			}
		}
	}
	return arg;
}
int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, work, NULL);
	work(NULL);
	pthread_join(t, NULL);
	return 0;
}
CALLS
cc -O0 -fno-builtin -o "$D/calls" "$D/calls.c" -pthread || exit 1
MTRACE_CTL_QUIET=1 MTRACE_CTL_MEMORY_MS=1 "$NEW/bin/mtracectl" -q -d -o "$D/c" -- "$D/calls" ||
	exit 1
C=$(ls "$D"/c.* | head -n 1)
"$NEW/tests/mkfixture" trace-edge "$D/edge" >/dev/null || exit 1
E=$D/edge
# a replay's files, made once (what they measure varies run to run)
"$NEW/bin/trace2wl" -q "$D/c.wl" "$C" >/dev/null 2>&1 || exit 1
"$NEW/bin/trace_run" -i 2 -l "$D/a.tsv" -L "$D/a.lat" "$D/c.wl" >/dev/null 2>&1 || exit 1
"$NEW/bin/trace_run" -i 2 -l "$D/b.tsv" --touch=none "$D/c.wl" >/dev/null 2>&1 || exit 1
"$NEW/bin/trace_run" --compare glibc --csv -r 1 "$D/c.wl" >"$D/cmp.csv" 2>/dev/null || exit 1
printf '= Start\n@ ./prog:[0x401000] + 0x1000 0x10\n@ ./prog:[0x401000] - 0x1000\n= End\n' >"$D/log.txt"
run() { # BUILD OUT: (in OUT, so that file names printed are the same for both builds)
	b=$1 o=.
	mkdir -p "$2" && cd "$2" || exit 1
	for x in t c e; do   # the 2-thread program; every call type; the edge cases
		case $x in t) t=$T ;; c) t=$C ;; e) t=$E ;; esac
		"$b/bin/trace2wl" -q "$o/$x.wl" "$t" >"$o/$x.trace2wl.out" 2>&1
		echo $? >>"$o/$x.trace2wl.out"
		"$b/bin/trace2wl" -q --dj-format="$o/$x.dj" "$o/$x.w2.wl" "$t" >/dev/null 2>&1
		"$b/bin/trace_dump" "$t" >"$o/$x.dump.txt" 2>&1
		"$b/bin/trace_dump" --sorted "$t" >"$o/$x.dump-sorted.txt" 2>&1
		"$b/bin/trace_dump" "$o/$x.wl" >"$o/$x.dump-wl.txt" 2>&1
		"$b/bin/trace_dump" "$o/$x.dj" >"$o/$x.dump-dj.txt" 2>&1
		"$b/bin/trace_stats" "$t" >"$o/$x.stats.txt" 2>&1
		"$b/bin/trace_stats" --json "$t" >"$o/$x.stats.json" 2>&1
		"$b/bin/trace_stats" --tsv "$t" >"$o/$x.stats.tsv" 2>&1
		"$b/bin/trace_stats" --latency="$o/$x.lat" "$t" >/dev/null 2>&1
		"$b/bin/trace_plot" -o "$o/$x.svg" "$t" >/dev/null 2>&1   # (the kind guessed)
		for k in live sizes lifetime; do
			"$b/bin/trace_plot" -k $k -o "$o/$x.$k.svg" "$t" >/dev/null 2>&1
		done
	done
	"$b/bin/trace_pack" -o "$o/packed" "$T" >/dev/null 2>&1
	# (gzip's header holds the second it ran: what the pack holds is compared)
	gzip -dc "$o/packed" >"$o/packed.unpacked" 2>&1; rm -f "$o/packed"
	# (an import records when it ran: its file and that line differ by design)
	"$b/bin/trace_import" "$D/log.txt" "$D/imported" >/dev/null 2>&1
	"$b/bin/trace_dump" "$D/imported" 2>&1 | grep -v '^# started' >"$o/dump-imported.txt"
	"$b/bin/trace_plot" -o "$o/c.lat.svg" "$o/c.lat" >/dev/null 2>&1
	"$b/bin/trace_plot" -o "$o/rss.svg" "$D/a.tsv" "$D/b.tsv" >/dev/null 2>&1
	"$b/bin/trace_plot" --vmsize -o "$o/vmsize.svg" "$D/a.tsv" >/dev/null 2>&1
	"$b/bin/trace_plot" -o "$o/program.svg" "$D/c.wl" "$D/a.tsv" >/dev/null 2>&1
	"$b/bin/trace_plot" -o "$o/compare.svg" "$D/cmp.csv" >/dev/null 2>&1
	"$b/bin/trace_plot" -o "$o/replay-lat.svg" --label x "$D/a.lat" >/dev/null 2>&1
	# what a replay counts (its times aside): the calls by class, the waits
	"$b/bin/trace_run" --compare glibc --csv -r 1 "$D/c.wl" 2>/dev/null |
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++)
				     if ($i ~ /_calls$|^waits$|^threads$/) k[i] = 1 }
			 { s = ""; for (i = 1; i <= NF; i++) if (i in k) s = s $i ","; print s }' \
		>"$o/replay-counts.csv"
	cd "$D"
}
run "$OLD" "$D/old"
run "$NEW" "$D/new"
bad=0
for f in "$D"/old/* "$D"/new/*; do
	n=$(basename "$f")
	[ -e "$D/old/$n" ] || { echo "only NEW has $n"; bad=1; continue; }
	[ -e "$D/new/$n" ] || { echo "only OLD has $n"; bad=1; continue; }
done
for f in "$D"/old/*; do
	n=$(basename "$f")
	[ -e "$D/new/$n" ] || continue
	if cmp -s "$f" "$D/new/$n"; then echo "same       $n"
	else echo "DIFFERENT  $n"; bad=1; fi
done
exit $bad
