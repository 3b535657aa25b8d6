# The tracer reads a /proc file to its end even where each read returns only a few bytes (a
# preloaded read() that cuts every /proc read to 5 bytes): the header's command line is whole.
. tests/lib.sh
timeout -k 5 60 env MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$TMP/t" \
	LD_PRELOAD="$TP/libshortread.so $LIB" /bin/echo first-argument second-argument >/dev/null
for f in "$TMP"/t.*; do "$BIN/trace_dump" -H "$f"; done >"$TMP/dump"
eq "command line read whole through short reads" \
	"# cmdline   /bin/echo first-argument second-argument" \
	"$(grep '^# cmdline .*echo' "$TMP/dump")"
finish
