// cxx_prog - C++ allocation through new/delete, containers and exceptions; prints a checksum.
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

static int thrower(int i)
{
	std::string s(100 + i, 'x');
	if (i % 3 == 0)
		throw std::runtime_error("boom " + s.substr(0, 10));
	return (int)s.size();
}

int main()
{
	std::map<std::string, std::vector<int>> m;
	long sum = 0;
	for (int i = 0; i < 2000; i++) {
		m["key" + std::to_string(i % 97)].push_back(i);
		auto p = std::make_unique<int[]>(i % 50 + 1);
		p[0] = i;
		sum += p[0];
		try {
			sum += thrower(i);
		} catch (const std::exception &e) {
			sum += (long)std::string(e.what()).size();
		}
	}
	for (auto &kv : m)
		sum += (long)kv.second.size();
	std::printf("cxx checksum %ld\n", sum);
	return 0;
}
