# The pictures README and doc/ show are what the current tools draw from the data kept in
# doc/pictures/ (make pictures draws them again), and that data is in the formats the tools
# write today: no picture shows figures or labels the tools no longer produce.
. tests/lib.sh
mkdir "$TMP/out"
OUT="$TMP/out" sh doc/pictures.sh; eq "doc/pictures.sh: exit 0" 0 "$?"
for f in "$TMP"/out/example-*.svg; do
	n=$(basename "$f")
	check "$n: as the tools draw it (make pictures)" cmp -s "$f" "doc/$n"
done
eq "every picture of doc/ drawn" "$(cd doc && ls example-*.svg | xargs)" "$(cd "$TMP/out" && ls | xargs)"
# the data: the current tools' formats, line for line where they are fixed
D=doc/pictures
"$BIN/trace_run" --csv "$D/mbench.wl" >"$TMP/now.csv"
eq "compare.csv: today's --csv columns" "$(head -n 1 "$TMP/now.csv")" "$(head -n 1 "$D/compare.csv")"
for f in "$D"/rss.*; do
	eq "$(basename "$f"): a timeline as trace_run writes it today" \
		"# trace_run timeline: $(basename "$f" | sed 's/^rss\.//')|time_ms	vmrss_kb	vmsize_kb	ideal_kb	calls	anon_kb	mapped_kb	program_ms" \
		"$(head -n 2 "$f" | paste -sd'|')"
done
for f in "$D"/lat.*; do
	case "$(sed -n 2p "$f")" in "class	$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "timer_unit") c = i } NR == 2 { print $c }' "$D/compare.csv")	calls	at_or_below") ok "$(basename "$f"): the unit compare.csv names" ;;
	*) bad "$(basename "$f"): $(sed -n 2p "$f")" ;; esac
done
"$BIN/trace_dump" -c "$D/mbench.trace.gz" >/dev/null; eq "the trace: valid" 0 "$?"
finish
