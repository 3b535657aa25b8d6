/* elfsym.c - a dynamic symbol's place in an ELF shared object, read from a file another process
 * chose (mtracectl may run as root against it): every size and offset is checked against the
 * file's own size, entries are of their type's size, and the work is bounded, so that a
 * crafted file (thousands of sections, each claiming a million symbols) is refused at once.
 * ELF32 and ELF64, in this machine's byte order (the process runs here).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "elfsym.h"
#include "units.h"

struct elf {
	int fd, is64;
	uint64_t size;
	char *why;
	size_t cap;
};

__attribute__((format(printf, 2, 3))) static int fail(struct elf *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->why, e->cap, fmt, ap);
	va_end(ap);
	return -1;
}

/* The n bytes at off, which lie within the file */
static int get(struct elf *e, void *buf, size_t n, uint64_t off, const char *what)
{
	char sz[32];
	if (off > e->size || n > e->size - off)
		return fail(e, "%s lies past the end of the file (%s bytes)", what,
			    fmt_commas(sz, e->size));
	ssize_t got = pread(e->fd, buf, n, (off_t)off);
	if (got != (ssize_t)n)
		return fail(e, "cannot read %s: %s", what,
			    got < 0 ? strerror(errno) : "the file is shorter than it was");
	return 0;
}

/* A table of count entries of entsize bytes at off: entries of the type's size, within the
   file */
static int table(struct elf *e, uint64_t off, uint64_t count, uint64_t entsize, size_t type,
		 const char *what)
{
	char sz[32];
	if (count && entsize != type)
		return fail(e, "%s has entries of %llu bytes, not %zu", what,
			    (unsigned long long)entsize, type);
	if (off > e->size || count > (e->size - off) / (type ? type : 1))
		return fail(e, "%s lies past the end of the file (%s bytes)", what,
			    fmt_commas(sz, e->size));
	return 0;
}

struct section {
	uint32_t type, link;
	uint64_t off, size, entsize;
};

static int section(struct elf *e, uint64_t shoff, unsigned i, struct section *s)
{
	if (e->is64) {
		Elf64_Shdr h;
		if (get(e, &h, sizeof h, shoff + i * sizeof h, "a section header") < 0)
			return -1;
		*s = (struct section){ h.sh_type, h.sh_link, h.sh_offset, h.sh_size,
				       h.sh_entsize };
	} else {
		Elf32_Shdr h;
		if (get(e, &h, sizeof h, shoff + i * sizeof h, "a section header") < 0)
			return -1;
		*s = (struct section){ h.sh_type, h.sh_link, h.sh_offset, h.sh_size,
				       h.sh_entsize };
	}
	return 0;
}

/* The address of the loaded segment that starts at the file's first byte: the load address
   is where it went */
static int first_load(struct elf *e, uint64_t phoff, unsigned phnum, uint64_t *first)
{
	*first = UINT64_MAX;
	for (unsigned i = 0; i < phnum; i++) {
		uint64_t type, vaddr, offset;
		if (e->is64) {
			Elf64_Phdr ph;
			if (get(e, &ph, sizeof ph, phoff + i * sizeof ph, "a program header") < 0)
				return -1;
			type = ph.p_type, vaddr = ph.p_vaddr, offset = ph.p_offset;
		} else {
			Elf32_Phdr ph;
			if (get(e, &ph, sizeof ph, phoff + i * sizeof ph, "a program header") < 0)
				return -1;
			type = ph.p_type, vaddr = ph.p_vaddr, offset = ph.p_offset;
		}
		if (type == PT_LOAD && offset == 0 && vaddr < *first)
			*first = vaddr;
	}
	if (*first == UINT64_MAX)
		return fail(e, "no loaded segment starts at its first byte");
	return 0;
}

/* In the dynamic symbol table s (its string table str): name's value, 1; 0 if absent */
static int search(struct elf *e, const struct section *s, const struct section *str,
		  const char *name, uint64_t *value)
{
	size_t symsize = e->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym), want = strlen(name) + 1;
	uint64_t count = s->size / symsize;
	unsigned char batch[64 * sizeof(Elf64_Sym)];
	char got[64];
	if (want > sizeof got)
		return 0;
	for (uint64_t k = 0; k < count;) {
		uint64_t n = count - k < 64 ? count - k : 64;
		if (get(e, batch, n * symsize, s->off + k * symsize,
			"the dynamic symbol table") < 0)
			return -1;
		for (uint64_t j = 0; j < n; j++) {
			uint64_t nameoff, val;
			if (e->is64) {
				Elf64_Sym sy;
				memcpy(&sy, batch + j * symsize, sizeof sy);
				nameoff = sy.st_name, val = sy.st_value;
			} else {
				Elf32_Sym sy;
				memcpy(&sy, batch + j * symsize, sizeof sy);
				nameoff = sy.st_name, val = sy.st_value;
			}
			if (val == 0 || nameoff >= str->size || str->size - nameoff < want)
				continue;
			if (get(e, got, want, str->off + nameoff, "a symbol's name") < 0)
				return -1;
			if (memcmp(got, name, want) == 0) {
				*value = val;
				return 1;
			}
		}
		k += n;
	}
	return 0;
}

int elfsym_offset(int fd, const char *name, uint64_t *value, char *why, size_t cap)
{
	struct elf e = { .fd = fd, .why = why, .cap = cap };
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return fail(&e, "not a regular file");
	e.size = (uint64_t)st.st_size;
	unsigned char ident[EI_NIDENT];
	if (e.size < sizeof ident || get(&e, ident, sizeof ident, 0, "the ELF header") < 0 ||
	    memcmp(ident, ELFMAG, SELFMAG) != 0)
		return fail(&e, "not an ELF file");
	if (ident[EI_CLASS] != ELFCLASS32 && ident[EI_CLASS] != ELFCLASS64)
		return fail(&e, "an ELF file of an unknown class");
	if (ident[EI_DATA] != (__BYTE_ORDER == __LITTLE_ENDIAN ? ELFDATA2LSB : ELFDATA2MSB))
		return fail(&e, "an ELF file of another byte order than this machine's");
	e.is64 = ident[EI_CLASS] == ELFCLASS64;
	uint64_t shoff, phoff;
	unsigned shnum, shentsize, phnum, phentsize;
	if (e.is64) {
		Elf64_Ehdr h;
		if (get(&e, &h, sizeof h, 0, "the ELF header") < 0)
			return -1;
		shoff = h.e_shoff, shnum = h.e_shnum, shentsize = h.e_shentsize;
		phoff = h.e_phoff, phnum = h.e_phnum, phentsize = h.e_phentsize;
	} else {
		Elf32_Ehdr h;
		if (get(&e, &h, sizeof h, 0, "the ELF header") < 0)
			return -1;
		shoff = h.e_shoff, shnum = h.e_shnum, shentsize = h.e_shentsize;
		phoff = h.e_phoff, phnum = h.e_phnum, phentsize = h.e_phentsize;
	}
	char n1[32], n2[32];
	if (shnum > ELFSYM_MAX_SECTIONS || phnum > ELFSYM_MAX_SECTIONS)
		return fail(&e, "%s %s headers (refused past %s)",
			    fmt_commas(n1, shnum > ELFSYM_MAX_SECTIONS ? shnum : phnum),
			    shnum > ELFSYM_MAX_SECTIONS ? "section" : "program",
			    fmt_commas(n2, ELFSYM_MAX_SECTIONS));
	size_t shsize = e.is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	size_t phsize = e.is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	size_t symsize = e.is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	uint64_t first, examined = 0;
	if (table(&e, phoff, phnum, phentsize, phsize, "the program header table") < 0 ||
	    table(&e, shoff, shnum, shentsize, shsize, "the section header table") < 0 ||
	    first_load(&e, phoff, phnum, &first) < 0)
		return -1;
	for (unsigned i = 0; i < shnum; i++) {
		struct section s, str;
		if (section(&e, shoff, i, &s) < 0)
			return -1;
		if (s.type != SHT_DYNSYM)
			continue;
		if (s.link >= shnum)
			return fail(&e, "its dynamic symbol table names section %u of %u",
				    (unsigned)s.link, shnum);
		if (section(&e, shoff, s.link, &str) < 0)
			return -1;
		if (str.type != SHT_STRTAB)
			return fail(&e, "its dynamic symbol table's names are not a string table");
		uint64_t count = s.entsize ? s.size / s.entsize : 0;
		if (table(&e, str.off, str.size, 1, 1, "the dynamic string table") < 0 ||
		    table(&e, s.off, count, s.entsize, symsize, "the dynamic symbol table") < 0)
			return -1;
		if (count > ELFSYM_MAX_SYMBOLS - examined)
			return fail(&e, "more than %s dynamic symbols (refused: a tracer has a few "
				    "hundred)", fmt_commas(n1, ELFSYM_MAX_SYMBOLS));
		examined += count;
		uint64_t val;
		int k = search(&e, &s, &str, name, &val);
		if (k < 0)
			return -1;
		if (k && val >= first) {
			*value = val - first;
			return 0;
		}
	}
	return fail(&e, "no %s among its dynamic symbols", name);
}
