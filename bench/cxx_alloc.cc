// cxx_alloc - make bench's C++ program: objects made by new through a few levels of calls
// (main -> parse -> build -> make_node -> operator new), each with a string and a vector of
// its own, dropped a thousand at a time.  cxx_alloc [N]: N objects (default 1,000,000); prints
// how many were dropped.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

struct node {
	std::string name;
	std::vector<int> vals;
	explicit node(int i) : name(static_cast<size_t>(16 + i % 32), 'n'), vals(i % 7 + 1, i) {}
};

__attribute__((noinline)) static std::unique_ptr<node> make_node(int i)
{
	return std::make_unique<node>(i);
}

__attribute__((noinline)) static void build(std::vector<std::unique_ptr<node>> &out, int i)
{
	out.push_back(make_node(i));
	if (i % 3 == 0)
		out.pop_back();
}

__attribute__((noinline)) static size_t parse(int n)
{
	std::vector<std::unique_ptr<node>> v;
	size_t dropped = 0;
	for (int i = 0; i < n; i++) {
		build(v, i);
		if (v.size() >= 1000) {
			dropped += v.size();
			v.clear();
		}
	}
	return dropped + v.size();
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? std::atoi(argv[1]) : 1000000;
	std::printf("%zu\n", parse(n));
	return 0;
}
