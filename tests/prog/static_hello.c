/* static_hello - linked with -static, so LD_PRELOAD cannot reach it (mtracectl must say so) */
#include <stdio.h>
int main(void) { puts("static hello"); return 0; }
