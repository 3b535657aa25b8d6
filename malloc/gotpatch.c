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
 * through mprotect, under no sandbox (guard.c: it may forbid the call).  Objects come from
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
#include "mt-internal.h"

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
	const ElfW(Sym) *sym;
	const char *str;
	size_t strsz;
	int main_ns;                    /* -1 not known yet */
	const ElfW(Dyn) *dyn;
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
	if (mt_g.sandboxed)
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

static int scan_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	const struct scan *s = arg;
	struct object o = { .base = info->dlpi_addr, .lo = UINTPTR_MAX, .main_ns = -1 };
	uintptr_t page = (uintptr_t)getpagesize();
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		uintptr_t at = o.base + p->p_vaddr;
		if (p->p_type == PT_DYNAMIC)
			o.dyn = (const ElfW(Dyn) *)at;
		else if (p->p_type == PT_LOAD) {
			if (at < o.lo)
				o.lo = at;
			if (at + p->p_memsz > o.hi)
				o.hi = at + p->p_memsz;
		} else if (p->p_type == PT_GNU_RELRO) {
			/* the loader protects the whole pages of it: its end rounded down */
			o.ro_lo = at & -page;
			o.ro_hi = (at + p->p_memsz) & -page;
		}
	}
	if (o.dyn == NULL || (s->self >= o.lo && s->self < o.hi))
		return 0;
	for (unsigned i = 0; i < n_seen; i++)
		if (seen[i] == (uintptr_t)o.dyn)
			return 0;
	if (n_seen < SEEN_MAX)
		seen[n_seen++] = (uintptr_t)o.dyn;
	uintptr_t jmprel = 0, rela = 0, rel = 0;
	size_t jmpsz = 0, relasz = 0, relsz = 0, relaent = sizeof(ElfW(Rela)),
	       relent = sizeof(ElfW(Rel)), jmpent = 0;
	for (const ElfW(Dyn) *d = o.dyn; d->d_tag != DT_NULL; d++)
		switch (d->d_tag) {
		case DT_SYMTAB: o.sym = (const ElfW(Sym) *)dyn_addr(&o, d->d_un.d_ptr); break;
		case DT_STRTAB: o.str = (const char *)dyn_addr(&o, d->d_un.d_ptr); break;
		case DT_STRSZ: o.strsz = d->d_un.d_val; break;
		case DT_JMPREL: jmprel = dyn_addr(&o, d->d_un.d_ptr); break;
		case DT_PLTRELSZ: jmpsz = d->d_un.d_val; break;
		case DT_PLTREL:
			jmpent = d->d_un.d_val == DT_RELA ? sizeof(ElfW(Rela)) : sizeof(ElfW(Rel));
			break;
		case DT_RELA: rela = dyn_addr(&o, d->d_un.d_ptr); break;
		case DT_RELASZ: relasz = d->d_un.d_val; break;
		case DT_RELAENT: relaent = d->d_un.d_val; break;
		case DT_REL: rel = dyn_addr(&o, d->d_un.d_ptr); break;
		case DT_RELSZ: relsz = d->d_un.d_val; break;
		case DT_RELENT: relent = d->d_un.d_val; break;
		}
	if (o.sym == NULL || o.str == NULL)
		return 0;
	if (jmprel && jmpent)
		patch_table(&o, s, (const char *)jmprel, jmpsz / jmpent, jmpent);
	if (rela && relaent >= sizeof(ElfW(Rela)))
		patch_table(&o, s, (const char *)rela, relasz / relaent, relaent);
	if (rel && relent >= sizeof(ElfW(Rel)))
		patch_table(&o, s, (const char *)rel, relsz / relent, relent);
	return 0;
}

/* Not under lock; one caller at a time (allocctl.c). */
void mt_got_patch(const struct mt_got_fn *fn, unsigned n)
{
	struct scan s = { fn, n, (uintptr_t)mt_got_patch };
	dl_iterate_phdr(scan_object, &s);
}
