/* vdso.c - a function of the kernel's vDSO, found by name in its ELF dynamic symbol table.
 *
 * The tracer reads CLOCK_MONOTONIC through the vDSO itself, not through libc's clock_gettime:
 * a library preloaded for the program (libfaketime) may replace that one and stop its clock.
 * The image is the kernel's, but every offset and count is checked against the image's own
 * extent before it is followed, and every walk is bounded.
 */
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include "clock.h"

#define VDSO_PHDRS_MAX 32
#define VDSO_DYNS_MAX  64
#define VDSO_SYMS_MAX  4096

struct image {
	uintptr_t lo, hi;       /* the bytes the image's loadable segments cover */
	uintptr_t bias;         /* what a virtual address in the image is offset by */
};

/* Is [vaddr, vaddr + len) inside the image?  Its address, or 0. */
static uintptr_t at(const struct image *im, uintptr_t vaddr, uintptr_t len)
{
	uintptr_t a = im->bias + vaddr;
	return a >= im->lo && a <= im->hi && len <= im->hi - a ? a : 0;
}

/* The number of symbols of a GNU hash table (the highest index any of its chains reaches,
   plus one), or 0 if the table does not fit in the image. */
static uint32_t gnu_hash_count(const struct image *im, uintptr_t vaddr)
{
	const uint32_t *h = (const uint32_t *)at(im, vaddr, 16);
	if (!h || h[0] == 0 || h[0] > VDSO_SYMS_MAX || h[2] > VDSO_SYMS_MAX)
		return 0;
	uint32_t nbuckets = h[0], base = h[1];
	uintptr_t buckets_at = vaddr + 16 + (uintptr_t)h[2] * sizeof(ElfW(Addr));
	const uint32_t *buckets = (const uint32_t *)at(im, buckets_at, nbuckets * 4u);
	if (!buckets)
		return 0;
	uint32_t last = 0;
	for (uint32_t i = 0; i < nbuckets; i++)
		if (buckets[i] > last)
			last = buckets[i];
	if (last < base)
		return 0;   /* no symbol hashed: none to find */
	uintptr_t chain_at = buckets_at + nbuckets * 4u;
	for (uint32_t n = 0; n < VDSO_SYMS_MAX; n++, last++) {
		const uint32_t *c = (const uint32_t *)at(im, chain_at + (last - base) * 4u, 4);
		if (!c)
			return 0;
		if (*c & 1)   /* the chain's last entry */
			return last + 1;
	}
	return 0;
}

void *mt_vdso_sym(const char *name)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	if (base == 0)
		return NULL;   /* none (valgrind hides it; vdso=0) */
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)base;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
	    eh->e_phentsize != sizeof(ElfW(Phdr)) || eh->e_phnum > VDSO_PHDRS_MAX ||
	    eh->e_phoff > 4096)
		return NULL;
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(base + eh->e_phoff);
	const ElfW(Phdr) *load = NULL, *dynamic = NULL;
	struct image im = { base, base, 0 };
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD) {
			if (!load)
				load = &ph[i];
			if (ph[i].p_offset + ph[i].p_filesz > im.hi - base)
				im.hi = base + (uintptr_t)(ph[i].p_offset + ph[i].p_filesz);
		} else if (ph[i].p_type == PT_DYNAMIC)
			dynamic = &ph[i];
	}
	if (!load || !dynamic || im.hi - base > ((uintptr_t)1 << 20))
		return NULL;
	im.bias = base + (uintptr_t)load->p_offset - (uintptr_t)load->p_vaddr;

	const ElfW(Dyn) *dyn = (const ElfW(Dyn) *)at(&im, dynamic->p_vaddr, sizeof *dyn);
	uintptr_t symtab = 0, strtab = 0, strsz = 0, hash = 0, gnu_hash = 0;
	for (unsigned i = 0; dyn && i < VDSO_DYNS_MAX; i++) {
		if (!at(&im, dynamic->p_vaddr + i * sizeof *dyn, sizeof *dyn) ||
		    dyn[i].d_tag == DT_NULL)
			break;
		uintptr_t v = (uintptr_t)dyn[i].d_un.d_ptr;
		switch (dyn[i].d_tag) {
		case DT_SYMTAB: symtab = v; break;
		case DT_STRTAB: strtab = v; break;
		case DT_STRSZ: strsz = v; break;
		case DT_HASH: hash = v; break;
		case DT_GNU_HASH: gnu_hash = v; break;
		}
	}
	uint32_t nsyms = 0;
	const uint32_t *h = hash ? (const uint32_t *)at(&im, hash, 8) : NULL;
	if (h)
		nsyms = h[1];   /* nchain: one entry a symbol */
	else if (gnu_hash)
		nsyms = gnu_hash_count(&im, gnu_hash);
	if (!symtab || !strtab || nsyms > VDSO_SYMS_MAX || !at(&im, strtab, strsz))
		return NULL;
	const ElfW(Sym) *syms = (const ElfW(Sym) *)at(&im, symtab, nsyms * sizeof(ElfW(Sym)));
	if (!syms)
		return NULL;
	const char *strs = (const char *)(im.bias + strtab);
	size_t len = strlen(name);
	for (uint32_t i = 1; i < nsyms; i++) {
		const ElfW(Sym) *s = &syms[i];
		unsigned bind = ELF64_ST_BIND(s->st_info), type = ELF64_ST_TYPE(s->st_info);
		if (type != STT_FUNC || s->st_shndx == SHN_UNDEF ||
		    (bind != STB_GLOBAL && bind != STB_WEAK) || s->st_name >= strsz ||
		    strsz - s->st_name <= len || memcmp(strs + s->st_name, name, len + 1) != 0)
			continue;
		return (void *)at(&im, (uintptr_t)s->st_value, 1);
	}
	return NULL;
}
