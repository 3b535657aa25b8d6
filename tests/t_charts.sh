# tier: slow (a browser renders every chart)
# Every kind of chart reads well, drawn from real data (programs traced, their workloads
# replayed): read back from the SVG itself (tests/svgcheck.py), no two texts overlap, none
# leaves the canvas, value labels stay inside their panel, the legend off the plot areas, every
# axis carries a unit, no numeric ticks on a bucket axis; at the default size, small and large.
# Where Debian's chromium is installed, each chart also renders to a PNG that is not blank.
. tests/lib.sh
command -v python3 >/dev/null || skip "python3 is not installed: the charts cannot be read back (tests/svgcheck.py)"
PL="$BIN/trace_plot"
svgcheck() { python3 tests/svgcheck.py "$@"; }

# the checker itself finds each fault in a chart made to have it
cat >"$TMP/faults.svg" <<'EOF'
<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300" font-size="12">
<g class="legend"><rect x="90" y="40" width="200" height="20"/><text class="legend" x="100" y="55">a run</text></g>
<g class="panel">
<rect class="frame" x="96" y="50" width="280" height="200"/>
<text class="ytitle" x="16" y="150" transform="rotate(-90 16 150)">memory</text>
<text class="ytick" x="90" y="100" text-anchor="end">100</text>
<text class="xtick" x="150" y="267" text-anchor="middle">0</text>
<text class="xcat" x="150" y="266" text-anchor="middle">≥16 B</text>
<text class="xcat" x="250" y="266" text-anchor="middle">32</text>
<text class="value" x="200" y="52" text-anchor="middle">7 MiB</text>
<text class="xtitle" x="420" y="290">size</text>
</g>
</svg>
EOF
svgcheck "$TMP/faults.svg" >"$TMP/found"; eq "svgcheck: a chart with faults fails" 1 "$?"
for fault in 'xtick "0" overlaps xcat "≥16 B"' 'leaves the canvas' "value \"7 MiB\" crosses its panel's frame" \
	'the legend lies on a plot area' 'the y axis "memory" has no unit' 'numeric ticks on a bucket axis' \
	'the bucket "32" has no unit'; do
	grep -qF "$fault" "$TMP/found" && ok "svgcheck finds: $fault" || bad "svgcheck missed: $fault ($(cat "$TMP/found"))"
done

# real data: mbench (two threads; call durations recorded), and the C compiler's cc1, whose
# sizes and lifetimes span 20 to 30 power-of-two buckets
MTRACE_CTL_QUIET=1 "$BIN/mtracectl" -q -d -o "$TMP/mb" -- "$ROOT/$B/bench/mbench" 2 100000 >/dev/null
mb=$(one_file "$TMP/mb.*")
check "mbench traced" test -n "$mb"
traces="$mb"
if command -v cc >/dev/null; then
	mkdir "$TMP/cc"
	"$BIN/mtracectl" -q -o "$TMP/cc/t" -- cc -O2 -c tools/trace_plot/trace_plot.c -Iinclude -Itools/lib/util -Itools/lib/format -Itools/lib/analysis -Itools/trace_plot -o "$TMP/cc.o"
	cc1=$(ls -S "$TMP"/cc/t.* | head -n 1)
	ge "cc1: request sizes in 15 buckets or more" 15 "$("$BIN/trace_stats" --tsv "$cc1" | awk -F'\t' '$1 == "sizes" && $3 > 0' | wc -l)"
	traces="$traces $cc1"
else
	echo "# no C compiler: the charts of many buckets are drawn from mbench alone"
fi
"$BIN/trace2wl" -q "$TMP/mb.wl" "$mb"
"$BIN/trace_stats" -L "$TMP/traced.lat" "$mb" >/dev/null
"$BIN/trace_run" -i 2 -l "$TMP/glibc.tsv" -L "$TMP/replay.lat" "$TMP/mb.wl" >/dev/null
"$BIN/trace_run" -i 2 -l "$TMP/arena1.tsv" --tunables=glibc.malloc.arena_max=1 "$TMP/mb.wl" >/dev/null
"$BIN/trace_run" --compare 'glibc,glibc(M_ARENA_MAX=1),glibc(glibc.malloc.tcache_count=0)' --csv -L "$TMP/lat" \
	"$TMP/mb.wl" >"$TMP/cmp.csv"
eq "the data: three distributions" 3 "$(ls "$TMP"/lat.* | wc -l)"

# every kind, at three sizes
n=0
for size in 900x560 400x300 1600x900; do
	w=${size%x*} h=${size#*x} d="$TMP/$size"
	mkdir "$d"
	set -- -W "$w" --height "$h"
	i=0
	for t in $traces; do
		i=$((i + 1))
		for k in live sizes lifetime; do "$PL" "$@" -k $k -o "$d/$k$i.svg" "$t" 2>/dev/null; done
	done
	"$PL" "$@" -o "$d/rss.svg" "$TMP/glibc.tsv" 2>/dev/null
	"$PL" "$@" --vmsize -o "$d/rss-vmsize.svg" "$TMP/glibc.tsv" 2>/dev/null
	"$PL" "$@" --label glibc --label 'one arena (glibc.malloc.arena_max=1)' -o "$d/rss2.svg" "$TMP/glibc.tsv" "$TMP/arena1.tsv" 2>/dev/null
	"$PL" "$@" -o "$d/compare.svg" "$TMP/cmp.csv" 2>/dev/null
	"$PL" "$@" -o "$d/latency.svg" "$TMP"/lat.* 2>/dev/null
	"$PL" "$@" --label "as traced" --label replayed -o "$d/fidelity.svg" "$TMP/traced.lat" "$TMP/replay.lat" 2>/dev/null
	for f in "$d"/*.svg; do
		n=$((n + 1))
		out=$(svgcheck "$f" 2>&1) && ok "$size $(basename "$f" .svg): reads well" ||
			bad "$size $(basename "$f" .svg): $(printf '%s' "$out" | head -n 5 | sed "s|$d/||")"
	done
done
ge "charts drawn and checked" 27 "$n"

# what each kind must show
c="$TMP/900x560"
grep -q '>VmSize<' "$c/rss.svg" && bad "rss: VmSize drawn without --vmsize" || ok "rss: VmSize left out by default"
grep -q 'class="ytitle"[^>]*>VmSize<' "$c/rss-vmsize.svg" && ok "rss --vmsize: VmSize on its own axis" || bad "rss --vmsize: no VmSize panel"
eq "rss --vmsize: two panels" 2 "$(grep -c '<g class="panel">' "$c/rss-vmsize.svg")"
grep -q '>malloc p99 ([a-z]*)<' "$c/compare.svg" && grep -q '>free p99 ([a-z]*)<' "$c/compare.svg" &&
	ok "compare: the p99 panels say their unit" || bad "compare: p99 titles $(grep -o '>[a-z]* p99[^<]*<' "$c/compare.svg" | xargs)"
eq "sizes: no numeric ticks on the bucket axis" 0 "$(grep -c 'class="xtick"' "$c/sizes1.svg")"
if [ -n "${cc1:-}" ]; then
	ge "cc1 lifetime: 20 buckets or more" 20 "$(grep -c '<rect class="bar"' "$c/lifetime2.svg")"
fi
"$PL" --vmsize -k live -o "$TMP/x.svg" "$mb" 2>/dev/null; eq "--vmsize on a live chart: exit 2" 2 "$?"
"$PL" --height 299 -o "$TMP/x.svg" "$TMP/glibc.tsv" 2>/dev/null; eq "a chart lower than 300 pixels: exit 2" 2 "$?"

# a real browser draws each kind
if command -v chromium >/dev/null 2>&1; then
	for f in live1 sizes1 lifetime1 rss rss-vmsize compare latency; do
		rm -f "$TMP/$f.png"
		timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
			--disable-background-networking --disable-component-update --disable-sync \
			--user-data-dir="$TMP/chrome" --window-size=900,560 --screenshot="$TMP/$f.png" \
			"file://$c/$f.svg" >/dev/null 2>&1
		if [ -s "$TMP/$f.png" ]; then
			share=$(python3 tests/pngcheck.py "$TMP/$f.png" 2>&1)
			check "$f: chromium draws it, not blank ($share of the pixels are ink)" \
				awk -v s="$share" 'BEGIN { exit !(s > 0.005 && s < 0.6) }'
		else
			bad "$f: chromium wrote no PNG"
		fi
	done
else
	echo "# chromium is not installed (apt-get install chromium): the charts are not rendered to PNG"
fi
finish
