// cxx_catalogue - thread_local destructors that allocate, and exceptions across threads.
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

struct Local {
	std::vector<std::string> v;
	Local() { v.emplace_back(2008, 'a'); }
	~Local() { std::string s(2009, 'b'); v.push_back(s); }   // allocates while the thread ends
};
thread_local Local local;

int main()
{
	std::vector<std::thread> ts;
	for (int i = 0; i < 8; i++)
		ts.emplace_back([] {
			local.v.emplace_back(100, 'c');
			try {
				throw std::runtime_error(std::string(300, 'e'));
			} catch (const std::exception &e) {
				local.v.emplace_back(e.what());
			}
		});
	for (auto &t : ts)
		t.join();
	std::printf("tls_dtor ok\n");
	return 0;
}
