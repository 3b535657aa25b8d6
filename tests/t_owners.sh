# Each file of malloc/ writes only its own module's state (tests/dev/owners.sh); the check
# itself finds a write into another module's state, an increment, and an address taken.
. tests/lib.sh
out=$(sh "$ROOT/tests/dev/owners.sh" "$ROOT/malloc" 2>&1)
eq "malloc/: no file writes another module's state" "" "$out"
mkdir "$TMP/m" && cp "$ROOT"/malloc/*.c "$ROOT"/malloc/*.h "$TMP/m/"
cat >>"$TMP/m/populate.c" <<'EOF'
static void slip(void)
{
	mt_wnd.win_lo = 0;
	++mt_chunks.released;
	mt_hot->sample_due = 0;
	pthread_mutex_lock(&mt_run.lock);
}
EOF
sh "$ROOT/tests/dev/owners.sh" "$TMP/m" >"$TMP/slips" 2>&1
eq "a deliberate violation: the check fails" 1 "$?"
eq "  and names each write" 4 "$(grep -c '^populate.c:' "$TMP/slips")"
eq "  and nothing else" 4 "$(wc -l <"$TMP/slips" | tr -d ' ')"
cp "$ROOT"/malloc/populate.c "$TMP/m/"
echo 'extern int mt_stray;' >>"$TMP/m/mt_int.h"
sh "$ROOT/tests/dev/owners.sh" "$TMP/m" >"$TMP/slips" 2>&1
eq "state shared by a header without an owner: the check fails" 1 "$?"
eq "  and names it" "mt_stray" "$(cut -d: -f1 "$TMP/slips")"
finish
