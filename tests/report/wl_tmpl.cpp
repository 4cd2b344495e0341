// wl_tmpl.cpp - a C++ template member function touches N fresh pages on a marked line; the
// report must name it demangled: hw::Filler<int>::fill(unsigned long).
#include <cstdlib>
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
} // namespace hw

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? std::strtoul(argv[1], nullptr, 0) : 4000;
	void *p = mmap(nullptr, n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	hw::Filler<int> f{ static_cast<volatile int *>(p) };
	f.fill(n);
	return 0;
}
