/* objects.c - where the program's code is: an OBJECT record for each loaded object (its load
 * bias, mapped range, build id and path), with stacks on.
 *
 * The objects are listed with dl_iterate_phdr, from an allocating call's stack taking (never
 * under our lock: it takes the loader's), by one thread at a time (a flag taken without waiting:
 * a thread that finds it taken goes on, and a later call looks again).  A file's first stack
 * lists them all; after that they are listed again when the unwinder met a pc it had no rule
 * for (a new object's code, maybe) and the loader's counts of objects added and removed moved:
 * an object gone gets an unload record, a new one a load record, before the STACK of the call
 * that found it, and at once after the program's dlclose (dlopen.c).  An object gone takes the
 * unwinder's rules with it (another may be mapped at its addresses).  The table of those
 * announced is static; ids are per file, as stacks' are.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "mt_int.h"

#define MT_OBJ_MAX 512u
#define MT_OBJ_PATH_MAX 4096u

static struct { uintptr_t key; uint32_t id; int seen; } objs[MT_OBJ_MAX];
static unsigned nobjs;                  /* (all of this only by the thread holding scanning) */
static uint32_t next_id, gen_listed;
static unsigned long long adds_seen, subs_seen;
static int scanning;                    /* a thread lists the objects (atomic) */
static int listed;                      /* gen_listed is valid */

struct scan { struct mt_thread *t; int fresh, checked; };

/* The build id of an object (its PT_NOTE NT_GNU_BUILD_ID in memory): its length, 0 if none */
static unsigned build_id(const struct dl_phdr_info *info, const uint8_t **id)
{
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		const uint8_t *end = p + ph->p_memsz;
		while (end - p >= (ptrdiff_t)sizeof(ElfW(Nhdr))) {
			const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)(const void *)p;
			size_t nsz = (n->n_namesz + 3) & ~3u, dsz = (n->n_descsz + 3) & ~3u;
			const uint8_t *name = p + sizeof *n, *desc = name + nsz;
			if (nsz > (size_t)(end - name) || dsz > (size_t)(end - desc))
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !__builtin_memcmp(name, "GNU", 4) && n->n_descsz <= MTRACE_BUILD_ID_MAX) {
				*id = desc;
				return n->n_descsz;
			}
			p = desc + dsz;
		}
	}
	return 0;
}

/* An OBJECT record into t's chunk: load (key's object) or unload (info NULL) */
static void write_object(struct mt_thread *t, uint32_t id, const struct dl_phdr_info *info)
{
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	const uint8_t *bid = NULL;
	unsigned idlen = 0, plen = 0;
	const char *path = "";
	static char exe[MT_OBJ_PATH_MAX];   /* (under scanning) */
	if (info) {
		for (unsigned i = 0; i < info->dlpi_phnum; i++) {
			const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
			if (ph->p_type != PT_LOAD)
				continue;
			uintptr_t a = info->dlpi_addr + ph->p_vaddr;
			lo = a < lo ? a : lo;
			hi = a + ph->p_memsz > hi ? a + ph->p_memsz : hi;
		}
		idlen = build_id(info, &bid);
		path = info->dlpi_name ? info->dlpi_name : "";
		if (!path[0] && !mt_file.private_header) {
			long n = syscall(SYS_readlinkat, AT_FDCWD, "/proc/self/exe", exe,
					 sizeof exe - 1);
			exe[n > 0 ? n : 0] = 0;
			path = exe;
		}
		while (path[plen] && plen < MT_OBJ_PATH_MAX)
			plen++;
	}
	if (lo > hi)
		lo = hi = 0;
	unsigned words = 3 + (idlen + 7) / 8 + (plen + 7) / 8, cont = mtrace_ext_slots(words);
	t->no_call = 1;
	struct mtrace_slot *h = mt_reserve_n(t, 1 + cont, 1);
	t->no_call = 0;
	if (h == NULL)
		return;
	for (unsigned c = 1; c <= cont; c++) {
		h[c].call = h[c].flags = 0;
		h[c].aux = 0;
		h[c].x = 0;
		h[c].ts = h[c].a = h[c].b = 0;
	}
	*mtrace_ext_word(h, 0) = lo;
	*mtrace_ext_word(h, 1) = hi;
	*mtrace_ext_word(h, 2) = idlen | (uint64_t)plen << 16;
	/* the build id's bytes, then the path's, each from a word of its own */
	mtrace_ext_put_bytes(h, mtrace_ext_put_bytes(h, 3, bid ? bid : (const uint8_t *)"", idlen),
			     path, plen);
	h->a = info ? info->dlpi_addr : 0;
	h->b = 0;
	h->ts = mt_call_ticks(&t->clk);
	t->extra = (uint16_t)(t->extra + 1 + cont);
	mt_commit(h, MTRACE_CALL_OBJECT, info ? 0 : MTRACE_OBJ_UNLOADED, cont, id);
}

static int each_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct scan *s = arg;
	if (!s->checked) {
		s->checked = 1;
		if (!s->fresh && info->dlpi_adds == adds_seen && info->dlpi_subs == subs_seen)
			return 1;   /* nothing loaded or unloaded since */
		adds_seen = info->dlpi_adds;
		subs_seen = info->dlpi_subs;
	}
	uintptr_t key = (uintptr_t)info->dlpi_phdr;
	for (unsigned i = 0; i < nobjs; i++)
		if (objs[i].key == key) {
			objs[i].seen = 1;
			return 0;
		}
	if (nobjs == MT_OBJ_MAX)
		return 0;
	objs[nobjs].key = key;
	objs[nobjs].id = ++next_id;
	objs[nobjs].seen = 1;
	write_object(s->t, objs[nobjs++].id, info);
	return 0;
}

/* With stacks on, before a STACK record: the objects listed in this file (stacks' generation g),
   or listed again if the unwinder met a pc it had no rule for (maybe_new) */
void mt_objects_check(struct mt_thread *t, uint32_t g, int maybe_new)
{
	int fresh = !__atomic_load_n(&listed, __ATOMIC_ACQUIRE) ||
		    __atomic_load_n(&gen_listed, __ATOMIC_RELAXED) != g;
	if ((!fresh && !maybe_new) || __atomic_exchange_n(&scanning, 1, __ATOMIC_ACQUIRE))
		return;
	if (fresh) {
		nobjs = 0;
		next_id = 0;
	}
	for (unsigned i = 0; i < nobjs; i++)
		objs[i].seen = 0;
	struct scan s = { t, fresh, 0 };
	if (dl_iterate_phdr(each_object, &s) == 0) {
		/* a full pass: the objects it did not see are gone */
		unsigned k = 0;
		for (unsigned i = 0; i < nobjs; i++) {
			if (!objs[i].seen)
				write_object(t, objs[i].id, NULL);
			else
				objs[k++] = objs[i];
		}
		if (k < nobjs)
			mt_unwind_forget();
		nobjs = k;
	}
	__atomic_store_n(&gen_listed, g, __ATOMIC_RELAXED);
	__atomic_store_n(&listed, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&scanning, 0, __ATOMIC_RELEASE);
}

/* In a new process: a thread of the parent's that was listing the objects is not here */
void mt_objects_fork_child(void)
{
	__atomic_store_n(&scanning, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&listed, 0, __ATOMIC_RELAXED);
}
