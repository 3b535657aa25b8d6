/* Fuzz the ELF symbol reader (tools/lib/analysis/symbols.c): any bytes give a table (possibly
 * empty) or -1, never a crash, a hang or an allocation beyond the input's size; every function
 * found lies in the table, its name a string inside the names. */
#include <string.h>
#include "fuzz.h"
#include "symbols.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sym_table t;
	if (sym_parse(data, size, &t) < 0) {
		PROPERTY(t.n == 0 && t.f == NULL, "a failed parse left functions");
		return 0;
	}
	PROPERTY(t.n <= size / 16, "more functions than symbols fit");
	PROPERTY(t.build_id_len <= sizeof t.build_id, "a build id too long");
	for (size_t i = 0; i < t.n; i++) {
		PROPERTY(t.f[i].name < t.names_len, "a name outside the names");
		PROPERTY(i == 0 || t.f[i - 1].start <= t.f[i].start, "functions out of order");
		uint64_t off;
		const char *n = sym_table_find(&t, t.f[i].start, &off);
		PROPERTY(n && strlen(n) <= t.names_len, "a function not found at its start");
	}
	uint64_t off;
	sym_table_find(&t, 0, &off);
	sym_table_find(&t, UINT64_MAX, &off);
	sym_table_free(&t);
	return 0;
}
