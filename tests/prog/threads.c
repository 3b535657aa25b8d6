/* threads - create and join THREADS threads in waves of WAVE; each makes PER malloc(777) + free,
 * after the main thread has made MAIN.
 *   threads [THREADS [WAVE [PER [MAIN]]]] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int per = 10;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < per; i++) {
		volatile char *p = malloc(777);
		p[0] = 1;
		free((void *)p);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300, wave = argc > 2 ? atoi(argv[2]) : 50;
	if (argc > 3)
		per = atoi(argv[3]);
	for (int i = argc > 4 ? atoi(argv[4]) : 0; i > 0; i--) {
		volatile char *p = malloc(777);
		p[0] = 1;
		free((void *)p);
	}
	pthread_t *t = calloc((size_t)wave, sizeof *t);
	int made = 0;
	while (made < n) {
		int k = n - made < wave ? n - made : wave;
		for (int i = 0; i < k; i++)
			if (pthread_create(&t[i], NULL, worker, NULL) != 0)
				return 1;
		for (int i = 0; i < k; i++)
			pthread_join(t[i], NULL);
		made += k;
	}
	free(t);
	printf("%d threads\n", made);
	return 0;
}
