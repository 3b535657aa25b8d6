/* gotpatch.c - a function of the allocator beneath, reached through a wrapper of ours without
 * defining its name.
 *
 * A preload that defined mallctl would change what every program finds: in a program on glibc,
 * dlsym(RTLD_DEFAULT, "mallctl") and a weak reference would no longer be null, and a program
 * that probes for jemalloc so would take another path.  Instead, where the allocator beneath
 * defines the function, the slots of the global offset tables through which the loaded objects
 * call it are pointed at the wrapper: resolved slots that hold the definition, and slots not
 * yet resolved (lazy binding, which would resolve to it) of objects in the main namespace.
 * An object whose own symbol table defines the name is left alone.  What goes past the slots is
 * not seen: a pointer from dlsym, a call made inside the allocator, a library opened by dlopen
 * until the next dlopen (whose wrapper must end in a tail call: dlopen.c).
 *
 * Slots in a page that the loader made read-only after relocation (PT_GNU_RELRO) are written
 * through mprotect, under no sandbox (sandbox.c: it may forbid the call).  Objects come from
 * dl_iterate_phdr, which holds the loader's lock over its list: none is unmapped meanwhile.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <string.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include "mt_int.h"

#if defined(__x86_64__)
#define R_GLOB_DAT R_X86_64_GLOB_DAT
#define R_JUMP_SLOT R_X86_64_JUMP_SLOT
#elif defined(__i386__)
#define R_GLOB_DAT R_386_GLOB_DAT
#define R_JUMP_SLOT R_386_JMP_SLOT
#elif defined(__aarch64__)
#define R_GLOB_DAT R_AARCH64_GLOB_DAT
#define R_JUMP_SLOT R_AARCH64_JUMP_SLOT
#elif defined(__s390x__)
#define R_GLOB_DAT R_390_GLOB_DAT
#define R_JUMP_SLOT R_390_JMP_SLOT
#endif

#if UINTPTR_MAX > 0xffffffffu
#define R_SYM(i) ELF64_R_SYM(i)
#define R_TYPE(i) ELF64_R_TYPE(i)
#else
#define R_SYM(i) ELF32_R_SYM(i)
#define R_TYPE(i) ELF32_R_TYPE(i)
#endif

/* The objects looked at already, by their dynamic section: each is seen once (a scan follows
   every dlopen).  One unloaded and another loaded at its address is not looked at: its calls
   are not seen. */
#define SEEN_MAX 1024
static uintptr_t seen[SEEN_MAX];
static unsigned n_seen;

struct scan {
	const struct mt_got_fn *fn;
	unsigned nfn;
	uintptr_t self;                 /* an address in our own object: not ours to patch */
};

struct object {
	uintptr_t base, lo, hi;         /* load address; its segments' span */
	uintptr_t ro_lo, ro_hi;         /* the pages made read-only after relocation */
	const ElfW(Dyn) *dyn;
	const ElfW(Sym) *sym;
	const char *str;
	size_t strsz;
	const uint32_t *gnu_hash, *hash;
	const ElfW(Half) *versym;
	uintptr_t jmprel, rela, rel;    /* the relocation tables, their sizes and entry sizes */
	size_t jmpsz, relasz, relsz, jmpent, relaent, relent;
	int main_ns;                    /* -1 not known yet */
};

/* A dynamic entry's address: the loader has added the load address to most of them in place
   (not in a read-only dynamic section, the vDSO's) */
static uintptr_t dyn_addr(const struct object *o, ElfW(Addr) v)
{
	return v < o->base ? o->base + v : v;
}

/* Is o in the main namespace (not one of dlmopen's, or an auditor's)?  Its slots not yet
   resolved would resolve to another namespace's definition.  (Called from dl_iterate_phdr's
   callback, under the loader's lock that guards the list.) */
static int in_main_namespace(struct object *o)
{
	if (o->main_ns < 0) {
		o->main_ns = 0;
		unsigned n = 0;
		for (struct link_map *l = _r_debug.r_map; l && n < 65536; l = l->l_next, n++)
			if ((const void *)l->l_ld == (const void *)o->dyn) {
				o->main_ns = 1;
				break;
			}
	}
	return o->main_ns;
}

/* A slot's new value.  In the pages the loader protects once it has relocated the object, the
   write is tried first as one that fails rather than faults: an object that another thread's
   dlopen is still relocating is writable there, and must not be protected under the loader.
   Where it fails, the page is protected for good: opened for the write, and closed again. */
static void write_slot(const struct object *o, void **slot, void *v)
{
	uintptr_t pg = (uintptr_t)getpagesize(), page = (uintptr_t)slot & -pg;
	if (page < o->ro_lo || page >= o->ro_hi) {
		__atomic_store_n(slot, v, __ATOMIC_RELAXED);
		return;
	}
	if (mt_sandbox.sandboxed)
		return;
	struct iovec local = { &v, sizeof v }, remote = { slot, sizeof v };
	if (mt_libc.syscall(SYS_process_vm_writev, (long)getpid(), &local, 1L, &remote, 1L, 0L) ==
	    (long)sizeof v || errno != EFAULT)
		return;   /* written; or not allowed here: not seen */
	if (mt_libc.mprotect((void *)page, pg, PROT_READ | PROT_WRITE) == 0) {
		__atomic_store_n(slot, v, __ATOMIC_RELAXED);
		mt_libc.mprotect((void *)page, pg, PROT_READ);
	}
}

/* n relocations of stride bytes at rel (REL or RELA: both begin with offset and info) */
static void patch_table(struct object *o, const struct scan *s, const char *rel, size_t n,
			size_t stride)
{
	for (size_t i = 0; i < n; i++) {
		const ElfW(Rel) *r = (const ElfW(Rel) *)(const void *)(rel + i * stride);
		unsigned type = (unsigned)R_TYPE(r->r_info);
		if (type != R_GLOB_DAT && type != R_JUMP_SLOT)
			continue;
		const ElfW(Sym) *sym = &o->sym[R_SYM(r->r_info)];
		if (sym->st_shndx != SHN_UNDEF || sym->st_name >= o->strsz)
			continue;
		const char *name = o->str + sym->st_name;
		for (unsigned f = 0; f < s->nfn; f++) {
			if (strcmp(name, s->fn[f].name) != 0)
				continue;
			void **slot = (void **)(o->base + r->r_offset);
			uintptr_t v = (uintptr_t)*slot;
			if (v == (uintptr_t)s->fn[f].real ||
			    (v >= o->lo && v < o->hi && in_main_namespace(o)))
				write_slot(o, slot, s->fn[f].wrapper);
			break;
		}
	}
}

/* o from the object dl_iterate_phdr describes: 0, or -1 if it has no dynamic section */
static int object_read(const struct dl_phdr_info *info, struct object *o)
{
	uintptr_t page = (uintptr_t)getpagesize();
	memset(o, 0, sizeof *o);
	o->base = info->dlpi_addr;
	o->lo = UINTPTR_MAX;
	o->main_ns = -1;
	o->relaent = sizeof(ElfW(Rela));
	o->relent = sizeof(ElfW(Rel));
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		uintptr_t at = o->base + p->p_vaddr;
		if (p->p_type == PT_DYNAMIC)
			o->dyn = (const ElfW(Dyn) *)at;
		else if (p->p_type == PT_LOAD) {
			if (at < o->lo)
				o->lo = at;
			if (at + p->p_memsz > o->hi)
				o->hi = at + p->p_memsz;
		} else if (p->p_type == PT_GNU_RELRO) {
			/* the loader protects the whole pages of it: its end rounded down */
			o->ro_lo = at & -page;
			o->ro_hi = (at + p->p_memsz) & -page;
		}
	}
	if (o->dyn == NULL)
		return -1;
	for (const ElfW(Dyn) *d = o->dyn; d->d_tag != DT_NULL; d++) {
		uintptr_t a = dyn_addr(o, d->d_un.d_ptr);
		switch (d->d_tag) {
		case DT_SYMTAB: o->sym = (const ElfW(Sym) *)a; break;
		case DT_STRTAB: o->str = (const char *)a; break;
		case DT_STRSZ: o->strsz = d->d_un.d_val; break;
		case DT_GNU_HASH: o->gnu_hash = (const uint32_t *)a; break;
		case DT_HASH: o->hash = (const uint32_t *)a; break;
		case DT_VERSYM: o->versym = (const ElfW(Half) *)a; break;
		case DT_JMPREL: o->jmprel = a; break;
		case DT_PLTRELSZ: o->jmpsz = d->d_un.d_val; break;
		case DT_PLTREL:
			o->jmpent = d->d_un.d_val == DT_RELA ? sizeof(ElfW(Rela)) : sizeof(ElfW(Rel));
			break;
		case DT_RELA: o->rela = a; break;
		case DT_RELASZ: o->relasz = d->d_un.d_val; break;
		case DT_RELAENT: o->relaent = d->d_un.d_val; break;
		case DT_REL: o->rel = a; break;
		case DT_RELSZ: o->relsz = d->d_un.d_val; break;
		case DT_RELENT: o->relent = d->d_un.d_val; break;
		}
	}
	return o->sym && o->str ? 0 : -1;
}

static int scan_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	const struct scan *s = arg;
	struct object o;
	(void)size;
	if (object_read(info, &o) < 0 || (s->self >= o.lo && s->self < o.hi))
		return 0;
	for (unsigned i = 0; i < n_seen; i++)
		if (seen[i] == (uintptr_t)o.dyn)
			return 0;
	if (n_seen < SEEN_MAX)
		seen[n_seen++] = (uintptr_t)o.dyn;
	if (o.jmprel && o.jmpent)
		patch_table(&o, s, (const char *)o.jmprel, o.jmpsz / o.jmpent, o.jmpent);
	if (o.rela && o.relaent >= sizeof(ElfW(Rela)))
		patch_table(&o, s, (const char *)o.rela, o.relasz / o.relaent, o.relaent);
	if (o.rel && o.relent >= sizeof(ElfW(Rel)))
		patch_table(&o, s, (const char *)o.rel, o.relsz / o.relent, o.relent);
	return 0;
}

/* ---------------------------------------------------------------------------------------------
   A definition in one object, looked up without dlsym: a name it lacks makes dlsym allocate
   its message (the allocator beneath would serve it: mimalloc then starts up before the
   program's first call, which finds another errno), and leaves it for the program's dlerror.
   ------------------------------------------------------------------------------------------- */

/* Is symbol i of o a function it defines and exports, named name? */
static int defines(const struct object *o, uint32_t i, const char *name)
{
	const ElfW(Sym) *sym = &o->sym[i];
	/* (the ELF64_ macros read the same fields of either class) */
	unsigned bind = ELF64_ST_BIND(sym->st_info), type = ELF64_ST_TYPE(sym->st_info);
	return sym->st_shndx != SHN_UNDEF && sym->st_name < o->strsz && type == STT_FUNC &&
	       (bind == STB_GLOBAL || bind == STB_WEAK) &&
	       ELF64_ST_VISIBILITY(sym->st_other) == STV_DEFAULT &&
	       !(o->versym && (o->versym[i] & 0x8000)) &&   /* (not a hidden version) */
	       !strcmp(o->str + sym->st_name, name);
}

static uint32_t lookup(const struct object *o, const char *name)
{
	if (o->gnu_hash) {
		const uint32_t *g = o->gnu_hash;
		uint32_t nbuckets = g[0], symoffset = g[1], h = 5381;
		const uint32_t *buckets = (const uint32_t *)(const void *)
			((const ElfW(Addr) *)(const void *)(g + 4) + g[2]);
		const uint32_t *chain = buckets + nbuckets;
		for (const char *c = name; *c; c++)
			h = h * 33 + (unsigned char)*c;
		if (nbuckets == 0)
			return 0;
		for (uint32_t i = buckets[h % nbuckets]; i >= symoffset; i++) {
			uint32_t h2 = chain[i - symoffset];
			if ((h | 1) == (h2 | 1) && defines(o, i, name))
				return i;
			if (h2 & 1)
				break;
		}
		return 0;
	}
	if (o->hash)   /* (its chain's length is the number of symbols) */
		for (uint32_t i = 1; i < o->hash[1]; i++)
			if (defines(o, i, name))
				return i;
	return 0;
}

struct find {
	uintptr_t in;                   /* an address in the object */
	const char *const *names;
	void **found;
	unsigned n;
};

static int find_in_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct find *f = arg;
	struct object o;
	(void)size;
	if (object_read(info, &o) < 0 || f->in < o.lo || f->in >= o.hi)
		return 0;
	for (unsigned k = 0; k < f->n; k++) {
		uint32_t i = lookup(&o, f->names[k]);
		f->found[k] = i ? (void *)(o.base + o.sym[i].st_value) : NULL;
	}
	return 1;
}

/* The definitions of names[0..n) in the object that holds the address in (NULL: none; an
   ifunc's is not taken) */
void mt_got_symbols(const void *in, const char *const *names, void **found, unsigned n)
{
	struct find f = { (uintptr_t)in, names, found, n };
	for (unsigned k = 0; k < n; k++)
		found[k] = NULL;
	dl_iterate_phdr(find_in_object, &f);
}

/* Not under lock; one caller at a time (allocctl.c). */
void mt_got_patch(const struct mt_got_fn *fn, unsigned n)
{
	struct scan s = { fn, n, (uintptr_t)mt_got_patch };
	dl_iterate_phdr(scan_object, &s);
}
