/* ctlset.c - a program that sets its allocator's options at run time, through the allocator's
 * own control interface, reached by weak references (it links without jemalloc or mimalloc).
 *
 *   ctlset je      jemalloc: mallctl writes background_thread (true) and arenas.dirty_decay_ms
 *                  (5000); a write of the wrong size fails (EINVAL) and sets nothing
 *   ctlset mi      mimalloc: mi_option_set(eager_commit_delay, 3) and mi_option_disable
 *                  (eager_commit)
 *   ctlset probe   what a program that probes for those interfaces finds: the same traced as
 *                  untraced (dlsym, weak references, dlerror's state)
 *   ctlset dl LIB  opens LIB (libctlcall.so), then another library: LIB's own mallctl write
 *                  comes after the second dlopen
 *
 * Each then allocates and frees a few blocks, and prints what it found, one line each.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

int mallctl(const char *, void *, size_t *, void *, size_t) __attribute__((weak));
int mi_version(void) __attribute__((weak));
void mi_option_set(int, long) __attribute__((weak));
void mi_option_disable(int) __attribute__((weak));
long mi_option_get(int) __attribute__((weak));

static void allocate(void)
{
	void *p[64];
	for (int i = 0; i < 64; i++)
		p[i] = malloc((size_t)(i + 1) * 100);
	for (int i = 0; i < 64; i++)
		free(p[i]);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "probe")) {
		printf("dlerror at start: %s\n", dlerror() ? "set" : "none");
		printf("weak mallctl: %s, mi_option_set: %s\n", mallctl ? "found" : "null",
		       mi_option_set ? "found" : "null");
		printf("dlsym mallctl: %s\n", dlsym(RTLD_DEFAULT, "mallctl") ? "found" : "null");
		printf("dlsym mi_option_set: %s\n",
		       dlsym(RTLD_DEFAULT, "mi_option_set") ? "found" : "null");
		allocate();
		return 0;
	}
	if (!strcmp(mode, "je")) {
		if (!mallctl) {
			printf("no mallctl\n");
			return 2;
		}
		bool on = true;
		ssize_t ms = 5000;
		int a = mallctl("background_thread", NULL, NULL, &on, sizeof on);
		int b = mallctl("arenas.dirty_decay_ms", NULL, NULL, &ms, sizeof ms);
		int c = mallctl("arenas.muzzy_decay_ms", NULL, NULL, &ms, 1);   /* wrong size */
		bool got = false;
		size_t len = sizeof got;
		int d = mallctl("background_thread", &got, &len, NULL, 0);
		printf("mallctl: %d %d %d %d, background_thread %d\n", a, b, c, d, (int)got);
		allocate();
		return 0;
	}
	if (!strcmp(mode, "mi")) {
		if (!mi_option_set || !mi_option_disable || !mi_option_get || !mi_version) {
			printf("no mi_option_set\n");
			return 2;
		}
		mi_option_set(14, 3);   /* eager_commit_delay in 2.0 and 2.1 */
		mi_option_disable(3);   /* eager_commit */
		printf("mimalloc %d: options 14 %ld, 3 %ld\n", mi_version(), mi_option_get(14),
		       mi_option_get(3));
		allocate();
		return 0;
	}
	if (!strcmp(mode, "dl") && argc > 2) {
		void *h = dlopen(argv[2], RTLD_NOW);
		int (*set)(void) = h ? (int (*)(void))dlsym(h, "ctlcall_set") : NULL;
		if (!set) {
			printf("no %s\n", argv[2]);
			return 2;
		}
		void *h2 = dlopen("libm.so.6", RTLD_NOW);   /* the objects opened before: seen */
		printf("dl: %d\n", set());
		allocate();
		if (h2)
			dlclose(h2);
		return 0;
	}
	fprintf(stderr, "usage: ctlset je|mi|probe|dl LIB\n");
	return 2;
}
