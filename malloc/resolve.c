/* resolve.c - finding the next allocator in the symbol search order.
 *
 * dlsym(RTLD_NEXT, ...) gives the definition after ours, so a preload list
 * "libmtracectl.so libjemalloc.so.2" traces jemalloc and a plain preload traces glibc.
 * dlsym may itself allocate (glibc's dlerror buffer uses calloc); such calls arrive here while
 * mt_real is still empty and are served from a static bootstrap arena that is never given back.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "mt_int.h"

struct mt_real mt_real;
char mt_allocator_path[256];

extern void *__curbrk __attribute__((weak));   /* glibc's program break */

/* ---------------------------------------------------------------------------------------------
   Bootstrap arena: a bump allocator over static memory.  Each block is preceded by its size.
   ------------------------------------------------------------------------------------------- */

#define BOOT_SIZE MT_BOOT_SIZE
#define boot_arena mt_boot_arena
char mt_boot_arena[MT_BOOT_SIZE] __attribute__((aligned(64)));
static size_t boot_used;   /* atomic */

void *mt_boot_alloc(size_t size, size_t align)
{
	if (align < 16)
		align = 16;
	if (align > 4096 || (align & (align - 1)) || size > BOOT_SIZE) {
		errno = ENOMEM;
		return NULL;
	}
	size_t old = __atomic_load_n(&boot_used, __ATOMIC_RELAXED), start, end;
	do {
		start = (old + sizeof(size_t) + align - 1) & ~(align - 1);
		end = start + size;
		if (end > BOOT_SIZE) {
			errno = ENOMEM;
			return NULL;
		}
	} while (!__atomic_compare_exchange_n(&boot_used, &old, end, 0, __ATOMIC_ACQ_REL,
					      __ATOMIC_RELAXED));
	memcpy(boot_arena + start - sizeof(size_t), &size, sizeof size);
	return boot_arena + start;   /* static memory: already zero, so calloc needs nothing more */
}

size_t mt_boot_usable(const void *p)
{
	size_t size;
	memcpy(&size, (const char *)p - sizeof(size_t), sizeof size);
	return size;
}

/* ---------------------------------------------------------------------------------------------
   Fallbacks for functions the next allocator may lack (only malloc/free/calloc/realloc are
   required of it).  They keep the C and POSIX meaning.
   ------------------------------------------------------------------------------------------- */

static void *fb_reallocarray(void *p, size_t n, size_t size)
{
	size_t total;
	if (__builtin_mul_overflow(n, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	return mt_real.realloc(p, total);
}

static void *fb_memalign(size_t align, size_t size)
{
	void *p;
	int e;
	if (mt_real.posix_memalign != NULL) {
		/* memalign accepts any alignment; posix_memalign wants a power of two
		   >= sizeof(void*) */
		if (align < sizeof(void *))
			align = sizeof(void *);
		while (align & (align - 1))
			align &= align - 1, align <<= 1;
		e = mt_real.posix_memalign(&p, align, size);
		if (e == 0)
			return p;
		errno = e;
		return NULL;
	}
	if (mt_real.aligned_alloc != NULL)
		return mt_real.aligned_alloc(align, size);
	errno = ENOMEM;
	return NULL;
}

static int fb_posix_memalign(void **out, size_t align, size_t size)
{
	if (align < sizeof(void *) || (align & (align - 1)))
		return EINVAL;
	void *p = fb_memalign(align, size);
	if (p == NULL)
		return ENOMEM;
	*out = p;
	return 0;
}

static void *fb_aligned_alloc(size_t align, size_t size)
{
	return mt_real.memalign(align, size);
}

static void *fb_valloc(size_t size)
{
	return mt_real.memalign((size_t)sysconf(_SC_PAGESIZE), size);
}

static void *fb_pvalloc(size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), rounded;
	if (__builtin_add_overflow(size, page - 1, &rounded)) {
		errno = ENOMEM;
		return NULL;
	}
	return mt_real.memalign(page, rounded & ~(page - 1));
}

static size_t fb_usable(void *p)
{
	(void)p;
	return 0;
}

/* ---------------------------------------------------------------------------------------------
   Resolution
   ------------------------------------------------------------------------------------------- */

/* The executable segments of the object that holds f (dl_iterate_phdr's callback): from the
   lowest to the end of the highest, in r's text_lo and text_len. */
struct text_of { uintptr_t f; struct mt_real *r; };

static int find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct text_of *t = arg;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	int holds = 0;
	(void)size;
	for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t start = info->dlpi_addr + ph->p_vaddr, end = start + ph->p_memsz;
		holds |= t->f - start < end - start;
		if (ph->p_flags & PF_X) {
			lo = start < lo ? start : lo;
			hi = end > hi ? end : hi;
		}
	}
	if (!holds || hi <= lo)
		return 0;
	t->r->text_lo = lo;
	t->r->text_len = hi - lo;
	return 1;
}

static __thread int resolving;   /* this thread won the race below (and recursed into it) */

void mt_resolve(void)
{
	static int state;   /* 0 not started, 1 in progress, 2 done; atomic */
	int expect = 0;
	if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) == 2)
		return;
	if (!__atomic_compare_exchange_n(&state, &expect, 1, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		/* someone else is resolving; if it is this very thread (dlsym recursion) the
		   callers fall back to the arena, otherwise wait: it takes microseconds */
		if (resolving)
			return;
		while (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != 2)
			sched_yield();
		return;
	}
	resolving = 1;
	struct mt_real r;
	memset(&r, 0, sizeof r);
	r.malloc = mt_next(MT_NEXT_MALLOC);
	r.free = mt_next(MT_NEXT_FREE);
	r.calloc = mt_next(MT_NEXT_CALLOC);
	r.realloc = mt_next(MT_NEXT_REALLOC);
	r.reallocarray = mt_next(MT_NEXT_REALLOCARRAY);
	r.posix_memalign = mt_next(MT_NEXT_POSIX_MEMALIGN);
	r.aligned_alloc = mt_next(MT_NEXT_ALIGNED_ALLOC);
	r.memalign = mt_next(MT_NEXT_MEMALIGN);
	r.valloc = mt_next(MT_NEXT_VALLOC);
	r.pvalloc = mt_next(MT_NEXT_PVALLOC);
	r.usable = mt_next(MT_NEXT_USABLE);

	/* where its code lies, so that its own mapping calls, made outside any call of ours (from a
	   thread of its own, or an entry point we do not trace), are told from the program's */
	struct text_of text = { (uintptr_t)r.malloc, &r };
	dl_iterate_phdr(find_text, &text);

	Dl_info info;
	if (dladdr((void *)r.malloc, &info) && info.dli_fname) {
		const char *slash = strrchr(info.dli_fname, '/');
		const char *base = slash ? slash + 1 : info.dli_fname;
		r.is_glibc = strncmp(base, "libc.so", 7) == 0;
		size_t n = strlen(info.dli_fname); /* for the header: which allocator was traced */
		if (n < sizeof mt_allocator_path)
			memcpy(mt_allocator_path, info.dli_fname, n + 1);
	}

	/* We read glibc's chunk headers instead of calling malloc_usable_size.  No probe
	   allocation checks the layout: any probe would shift the program's own heap (alignment
	   slack, the dynamic mmap threshold).  The one layout change in libc.so itself is memory
	   tagging (aarch64 MTE), switched on by a tunable. */
	const char *tun = getenv("GLIBC_TUNABLES");
	if (tun && strstr(tun, "mem.tagging"))
		r.is_glibc = 0;
	/* Under valgrind, libc's malloc is redirected to valgrind's own allocator: what lies
	   before a block is a redzone, not a glibc header (memcheck would report the read). */
	const char *pre = getenv("LD_PRELOAD");
	if (pre && strstr(pre, "vgpreload"))
		r.is_glibc = 0;

	/* publish the required four last: entry points test mt_real.malloc to know we are ready */
	mt_real.free = r.free;
	mt_real.calloc = r.calloc;
	mt_real.realloc = r.realloc;
	mt_real.posix_memalign = r.posix_memalign ? r.posix_memalign : fb_posix_memalign;
	mt_real.memalign = r.memalign ? r.memalign : fb_memalign;
	mt_real.aligned_alloc = r.aligned_alloc ? r.aligned_alloc : fb_aligned_alloc;
	mt_real.reallocarray = r.reallocarray ? r.reallocarray : fb_reallocarray;
	mt_real.valloc = r.valloc ? r.valloc : fb_valloc;
	mt_real.pvalloc = r.pvalloc ? r.pvalloc : fb_pvalloc;
	mt_real.usable = r.usable ? r.usable : fb_usable;
	mt_real.is_glibc = r.is_glibc;
	mt_real.text_lo = r.text_lo;
	mt_real.text_len = r.text_len;
	mt_real.curbrk = (r.is_glibc && &__curbrk) ? (void *const *)&__curbrk : NULL;
	__atomic_store_n(&mt_real.malloc, r.malloc, __ATOMIC_RELEASE);
	resolving = 0;
	__atomic_store_n(&state, 2, __ATOMIC_RELEASE);
}

/* ---------------------------------------------------------------------------------------------
   Entry points that never reach us
   ------------------------------------------------------------------------------------------- */

static size_t cat(char *buf, size_t at, size_t cap, const char *s)
{
	size_t n = strlen(s);
	if (n > cap - at)
		n = cap - at;
	memcpy(buf + at, s, n);
	return at + n;
}

/* The dynamic linker binds every caller of malloc to the first definition in the search order.
   The executable comes before any preload, so a program that links its own allocator into
   itself (Chromium does) makes no call we could see, nor does one whose LD_PRELOAD lists an
   allocator before us; the trace would be empty or partial with no hint of why.  Say so once,
   and mark the header (MTRACE_HF_BYPASSED). */
void mt_check_bypass(void)
{
	static const char *const names[] = {
		"malloc", "free", "calloc", "realloc", "reallocarray", "posix_memalign",
		"aligned_alloc", "memalign", "valloc", "pvalloc",
	};
	Dl_info self, other;
	const ElfW(Sym) *sym;
	if (!dladdr((void *)mt_check_bypass, &self))
		return;
	char list[160];
	size_t n = 0;
	const char *owner = NULL;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		void *f = dlsym(RTLD_DEFAULT, names[i]);
		if (f == NULL || !dladdr1(f, &other, (void **)&sym, RTLD_DL_SYMENT) ||
		    other.dli_fbase == self.dli_fbase)
			continue;
		/* a non-PIE executable that takes the function's address has its PLT entry stand
		   for it (an undefined symbol with a value: gcc's cc1 does this for free); the
		   calls through it still come to us */
		if (sym == NULL || sym->st_shndx == SHN_UNDEF)
			continue;
		n = cat(list, n, sizeof list - 1, n ? ", " : "");
		n = cat(list, n, sizeof list - 1, names[i]);
		if (owner == NULL)
			owner = other.dli_fname && other.dli_fname[0] ? other.dli_fname :
				"the program itself";
	}
	if (owner == NULL)
		return;
	mt_real.bypassed = 1;
	list[n] = 0;
	char msg[768];
	size_t m = cat(msg, 0, sizeof msg - 1, "warning: ");
	m = cat(msg, m, sizeof msg - 1, list);
	m = cat(msg, m, sizeof msg - 1, " defined by ");
	m = cat(msg, m, sizeof msg - 1, owner);
	m = cat(msg, m, sizeof msg - 1,
		", which comes before the tracer: those calls are not traced");
	msg[m] = 0;
	mt_msg_warn(msg, NULL, 0);
}
