/* symbols.c - see symbols.h */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mtrace-trace.h"
#include "proc.h"
#include "symbols.h"

/* The largest ELF file read (mapped: memory is the page cache's) */
#define SYM_FILE_MAX ((uint64_t)4 << 30)

/* ---------------------------------------------------------------------------------------------
   ELF: one parser for both classes, its fields read through the class's layout
   ------------------------------------------------------------------------------------------- */

struct elf {
	const unsigned char *b;
	size_t n;
	int is64;
	uint64_t shoff;
	unsigned shnum, shentsize;
};

struct sec { uint32_t name, type, link; uint64_t off, size, entsize; };

/* [off, off + len) inside the file? */
static int in_file(const struct elf *e, uint64_t off, uint64_t len)
{
	return off <= e->n && len <= e->n - off;
}

static int section(const struct elf *e, unsigned i, struct sec *s)
{
	if (i >= e->shnum)
		return -1;
	const unsigned char *p = e->b + e->shoff + (uint64_t)i * e->shentsize;
	if (e->is64) {
		Elf64_Shdr h;
		memcpy(&h, p, sizeof h);
		*s = (struct sec){ h.sh_name, h.sh_type, h.sh_link, h.sh_offset, h.sh_size,
				   h.sh_entsize };
	} else {
		Elf32_Shdr h;
		memcpy(&h, p, sizeof h);
		*s = (struct sec){ h.sh_name, h.sh_type, h.sh_link, h.sh_offset, h.sh_size,
				   h.sh_entsize };
	}
	if (s->type == SHT_NOBITS)
		s->size = 0;
	return in_file(e, s->off, s->size) ? 0 : -1;
}

/* The build id in a note section's bytes, if any */
static void read_notes(const unsigned char *p, uint64_t len, struct sym_table *t)
{
	uint64_t at = 0;
	while (len - at >= 12) {
		uint32_t nsz, dsz, type;
		memcpy(&nsz, p + at, 4);
		memcpy(&dsz, p + at + 4, 4);
		memcpy(&type, p + at + 8, 4);
		uint64_t name = at + 12, desc = name + ((nsz + 3ull) & ~3ull);
		uint64_t next = desc + ((dsz + 3ull) & ~3ull);
		if (next > len)
			return;
		if (type == NT_GNU_BUILD_ID && nsz == 4 && memcmp(p + name, "GNU", 4) == 0 &&
		    dsz <= sizeof t->build_id && dsz > 0) {
			memcpy(t->build_id, p + desc, dsz);
			t->build_id_len = dsz;
			return;
		}
		at = next;
	}
}

static int by_start(const void *a, const void *b)
{
	const struct sym_func *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->size > y->size ? -1 : x->size < y->size;   /* the sized one first */
}

/* The functions of symbol table section st (its strings in section st.link) into t */
static int read_symbols(const struct elf *e, const struct sec *st, struct sym_table *t)
{
	struct sec str;
	size_t esz = e->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	if (st->entsize != esz || section(e, st->link, &str) < 0)
		return -1;
	size_t n = st->size / esz;
	t->f = malloc((n ? n : 1) * sizeof *t->f);
	t->names = malloc(str.size + 1);
	if (!t->f || !t->names)
		return -1;
	memcpy(t->names, e->b + str.off, str.size);
	t->names[str.size] = 0;   /* (a name running off the table's end stops there) */
	t->names_len = str.size;
	for (size_t i = 0; i < n; i++) {
		const unsigned char *p = e->b + st->off + i * esz;
		uint64_t value, size;
		uint32_t name;
		unsigned info, shndx;
		if (e->is64) {
			Elf64_Sym y;
			memcpy(&y, p, sizeof y);
			value = y.st_value, size = y.st_size, name = y.st_name;
			info = y.st_info, shndx = y.st_shndx;
		} else {
			Elf32_Sym y;
			memcpy(&y, p, sizeof y);
			value = y.st_value, size = y.st_size, name = y.st_name;
			info = y.st_info, shndx = y.st_shndx;
		}
		unsigned type = ELF64_ST_TYPE(info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || shndx == SHN_UNDEF ||
		    value == 0 || name >= str.size || !t->names[name])
			continue;
		t->f[t->n++] = (struct sym_func){ value, size, name };
	}
	qsort(t->f, t->n, sizeof *t->f, by_start);
	return 0;
}

int sym_parse(const unsigned char *b, size_t n, struct sym_table *t)
{
	memset(t, 0, sizeof *t);
	struct elf e = { .b = b, .n = n };
	static const unsigned char host_data =
		__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
	if (n < EI_NIDENT || memcmp(b, ELFMAG, SELFMAG) != 0 || b[EI_DATA] != host_data)
		return -1;
	e.is64 = b[EI_CLASS] == ELFCLASS64;
	unsigned shstrndx;
	if (e.is64 && n >= sizeof(Elf64_Ehdr)) {
		Elf64_Ehdr h;
		memcpy(&h, b, sizeof h);
		e.shoff = h.e_shoff, e.shnum = h.e_shnum, e.shentsize = h.e_shentsize;
		e.shentsize = e.shentsize == sizeof(Elf64_Shdr) ? e.shentsize : 0;
		shstrndx = h.e_shstrndx;
	} else if (b[EI_CLASS] == ELFCLASS32 && n >= sizeof(Elf32_Ehdr)) {
		Elf32_Ehdr h;
		memcpy(&h, b, sizeof h);
		e.shoff = h.e_shoff, e.shnum = h.e_shnum, e.shentsize = h.e_shentsize;
		e.shentsize = e.shentsize == sizeof(Elf32_Shdr) ? e.shentsize : 0;
		shstrndx = h.e_shstrndx;
	} else
		return -1;
	if (!e.shentsize || !in_file(&e, e.shoff, (uint64_t)e.shnum * e.shentsize))
		return -1;
	/* section names, for .debug_line (none is fine) */
	struct sec names = { 0 };
	if (section(&e, shstrndx, &names) < 0)
		names.size = 0;
	struct sec s, symtab = { 0 }, dynsym = { 0 };
	for (unsigned i = 0; i < e.shnum; i++) {
		if (section(&e, i, &s) < 0)
			continue;
		if (s.type == SHT_SYMTAB && !symtab.type)
			symtab = s;
		else if (s.type == SHT_DYNSYM && !dynsym.type)
			dynsym = s;
		else if (s.type == SHT_NOTE && !t->build_id_len)
			read_notes(b + s.off, s.size, t);
		if (s.name < names.size && names.size - s.name >= sizeof ".debug_line" &&
		    memcmp(b + names.off + s.name, ".debug_line", sizeof ".debug_line") == 0 &&
		    s.size)
			t->has_lines = 1;
	}
	/* a symbol table that cannot be read leaves the other, or none */
	if (symtab.type && read_symbols(&e, &symtab, t) == 0 && t->n)
		return 0;
	sym_table_free(t);
	unsigned char bid[64];
	unsigned bid_len = t->build_id_len, lines = (unsigned)t->has_lines;
	memcpy(bid, t->build_id, sizeof bid);
	if (dynsym.type && read_symbols(&e, &dynsym, t) < 0)
		sym_table_free(t);
	memcpy(t->build_id, bid, sizeof bid);
	t->build_id_len = bid_len;
	t->has_lines = (int)lines;
	return 0;
}

void sym_table_free(struct sym_table *t)
{
	free(t->f);
	free(t->names);
	t->f = NULL;
	t->names = NULL;
	t->n = t->names_len = 0;
}

const char *sym_table_find(const struct sym_table *t, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi = t->n;   /* the last function starting at or below addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->f[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the nearest with a size holding addr (a sizeless one: the nearest below) */
	for (size_t i = lo, k = 0; i-- > 0 && k < 16; k++) {
		const struct sym_func *f = &t->f[i];
		if ((f->size == 0 && k == 0) || addr - f->start < f->size) {
			*off = addr - f->start;
			return t->names + f->name;
		}
	}
	return NULL;
}

/* ---------------------------------------------------------------------------------------------
   Files
   ------------------------------------------------------------------------------------------- */

/* Map path and parse it into t: 0, or -1 with *why */
static int load(const char *path, struct sym_table *t, const char **why)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	memset(t, 0, sizeof *t);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		*why = "not found";
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if ((uint64_t)st.st_size > SYM_FILE_MAX || st.st_size == 0) {
		close(fd);
		*why = "not ELF";
		return -1;
	}
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		*why = "not readable";
		return -1;
	}
	int rc = sym_parse(m, (size_t)st.st_size, t);
	munmap(m, (size_t)st.st_size);
	if (rc < 0)
		*why = "not ELF";
	return rc;
}

/* Does t name a C++ function (mangled: _Z...)? */
static int has_cxx_names(const struct sym_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (strncmp(t->names + t->f[i].name, "_Z", 2) == 0)
			return 1;
	return 0;
}

int sym_open(struct sym_file *s, const char *path, const unsigned char *bid, unsigned bid_len,
	     const char **why)
{
	memset(s, 0, sizeof *s);
	if (load(path, &s->tab, why) < 0)
		return -1;
	if (bid_len && s->tab.build_id_len &&
	    (bid_len != s->tab.build_id_len || memcmp(bid, s->tab.build_id, bid_len) != 0)) {
		sym_table_free(&s->tab);
		*why = "build id differs";
		return -1;
	}
	s->ok = 1;
	if (s->tab.has_lines || has_cxx_names(&s->tab))   /* (addr2line -C demangles) */
		s->lines_from = strdup(path);
	/* a separate debug file: DIR/.build-id/xx/rest.debug, DIR $MTRACE_DEBUG_DIR or the
	   distributions' /usr/lib/debug */
	const unsigned char *id = bid_len ? bid : s->tab.build_id;
	unsigned idn = bid_len ? bid_len : s->tab.build_id_len;
	if (idn < 2)
		return 0;
	const char *root = getenv("MTRACE_DEBUG_DIR");
	if (root == NULL || !root[0])
		root = "/usr/lib/debug";
	char dbg[PATH_MAX];
	int k = snprintf(dbg, sizeof dbg, "%s/.build-id/%02x/", root, id[0]);
	if (k < 0 || (size_t)k + 2 * MTRACE_BUILD_ID_MAX + 8 > sizeof dbg)
		return 0;   /* (a root too long to hold a name under it) */
	for (unsigned i = 1; i < idn; i++)
		k += snprintf(dbg + k, sizeof dbg - (size_t)k, "%02x", id[i]);
	snprintf(dbg + k, sizeof dbg - (size_t)k, ".debug");
	struct sym_table d;
	const char *dwhy;
	if (load(dbg, &d, &dwhy) < 0)
		return 0;
	if (d.n) {
		sym_table_free(&s->tab);
		s->tab = d;
	} else
		sym_table_free(&d);
	if (d.has_lines) {
		free(s->lines_from);
		s->lines_from = strdup(dbg);
	}
	return 0;
}

void sym_close(struct sym_file *s)
{
	sym_table_free(&s->tab);
	free(s->lines_from);
	s->lines_from = NULL;
}

/* ---------------------------------------------------------------------------------------------
   addr2line
   ------------------------------------------------------------------------------------------- */

int sym_have_addr2line(void)
{
	static int have = -1;
	if (have < 0)
		have = tool_on_path("addr2line");
	return have;
}

/* The line at *p (up to a newline), NUL-terminated in place; *p past it.  NULL at the end */
static char *next_line(char **p)
{
	if (!**p)
		return NULL;
	char *s = *p, *nl = strchr(s, '\n');
	if (nl) {
		*nl = 0;
		*p = nl + 1;
	} else
		*p = s + strlen(s);
	return s;
}

int sym_lines(const struct sym_file *s, const uint64_t *addr, size_t n, struct sym_line *out)
{
	memset(out, 0, n * sizeof *out);
	if (!s->lines_from || n == 0 || !sym_have_addr2line())
		return -1;
	FILE *in = tmpfile(), *res = tmpfile();
	char *text = NULL;
	int rc = -1;
	if (!in || !res)
		goto done;
	for (size_t i = 0; i < n; i++)
		fprintf(in, "0x%llx\n", (unsigned long long)addr[i]);
	if (fflush(in) != 0 || fseek(in, 0, SEEK_SET) != 0)
		goto done;
	char *args[] = { "addr2line", "-f", "-C", "-e", s->lines_from, NULL };
	if (!tool_wait_ok(tool_spawn(args, fileno(in), fileno(res), 1)))
		goto done;
	/* two lines an address: the function, then FILE:LINE ("??" and 0 or ?: unknown) */
	long len = lseek(fileno(res), 0, SEEK_END);
	if (len < 0 || (uint64_t)len > 4096 * (uint64_t)n + 4096 || !(text = malloc((size_t)len + 1)))
		goto done;
	if (pread(fileno(res), text, (size_t)len, 0) != len)
		goto done;
	text[len] = 0;
	char *p = text, *fn, *fl;
	for (size_t i = 0; i < n && (fn = next_line(&p)) && (fl = next_line(&p)); i++) {
		char *d = strstr(fl, " (discriminator");
		if (d)
			*d = 0;
		char *colon = strrchr(fl, ':');
		if (strcmp(fn, "??") != 0)
			out[i].func = strdup(fn);
		if (colon && colon != fl && strncmp(fl, "??", 2) != 0) {
			*colon = 0;
			out[i].line = (uint32_t)strtoul(colon + 1, NULL, 10);
			out[i].file = strdup(fl);
		}
	}
	rc = 0;
done:
	free(text);
	if (in)
		fclose(in);
	if (res)
		fclose(res);
	return rc;
}
