// stacks_cxx: make_widgets allocates 7777 bytes through operator new (in libstdc++, which
// calls malloc); its address is printed first, for t_stacks.sh to find make_widgets in the
// stack of that malloc (operator new's own frame is just a frame before it).
#include <cstdio>
#include <new>

static char *volatile kept;

extern "C" __attribute__((noinline)) void make_widgets()
{
	kept = new char[7777];
	__asm__ volatile("");
}

int main()
{
	std::printf("make_widgets %p\n", (void *)make_widgets);
	std::fflush(stdout);
	make_widgets();
	delete[] kept;
	std::puts("stacks_cxx ok");
	return 0;
}
