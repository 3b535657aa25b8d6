/* replay_vm.h - the memory a workload's check takes (replay_check.c, replay_race.c): none of
 * it from the allocator under test, which may be preloaded already. */
#ifndef REPLAY_VM_H
#define REPLAY_VM_H
#include <stddef.h>

/* p (*cap bytes, or NULL) grown to hold need bytes, the new ones zeroed, *cap updated (a power
   of two from 256); NULL if it cannot (p is then kept) */
void *replay_vm_grow(void *p, size_t *cap, size_t need);
/* give back p of cap bytes (NULL: nothing) */
void replay_vm_free(void *p, size_t cap);
/* as calloc and free, for u64map's table */
void *replay_vm_alloc(size_t bytes);
#endif
