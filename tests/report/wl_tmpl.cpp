// wl_tmpl.cpp - a C++ template member function touches N fresh pages on a marked line; the
// report must name it demangled: hw::Filler<int>::fill(unsigned long).
// With a second argument it also runs Filler<long>::fill (a base name shared by two functions)
// and hw::work<int, long>(std::map<...>&), a name longer than report's function column.
#include <cstdlib>
#include <map>
#include <sys/mman.h>

namespace hw {
template <typename T> struct Filler {
	volatile T *buf;

	__attribute__((noinline)) void fill(unsigned long n)
	{
		for (unsigned long i = 0; i < n; i++)
			buf[i * (4096 / sizeof(T))] = (T)i; // HOT: tmpl
	}
};

template <class A, class B>
__attribute__((noinline)) long work(std::map<A, B> &m, volatile char *pages, unsigned long n)
{
	long s = 0;
	for (unsigned long i = 0; i < n; i++)
		pages[i * 4096] = (char)(s += (long)m.size() + (long)i); // HOT: work
	return s;
}
} // namespace hw

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? std::strtoul(argv[1], nullptr, 0) : 4000;
	void *p = mmap(nullptr, n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	hw::Filler<int> f{ static_cast<volatile int *>(p) };
	f.fill(n);
	if (argc > 2) {
		void *q = mmap(nullptr, 3 * n * 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		std::map<int, long> m{{1, 2}};

		if (q == MAP_FAILED)
			return 1;
		hw::Filler<long> g{static_cast<volatile long *>(q)};
		g.fill(n);
		return hw::work(m, static_cast<volatile char *>(q) + 2 * n * 4096, n) == 0;
	}
	return 0;
}
