// wl_lambda.cpp - two lambdas inlined into one function, each faulting its own pages (N and
// 2N, N = argv[1], default 100): their rows must have two names, not one "operator()".
#include <cstdlib>
#include <sys/mman.h>

static volatile char *fresh(unsigned long n)
{
	void *p = mmap(nullptr, n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		std::exit(1);
	return static_cast<volatile char *>(p);
}

__attribute__((noinline)) static void lambdas(unsigned long n)
{
	auto once = [](unsigned long k) {
		volatile char *p = fresh(k);
		for (unsigned long i = 0; i < k; i++)
			p[i * 4096] = 1; // HOT: lambda_once
	};
	auto twice = [](unsigned long k) {
		volatile char *p = fresh(2 * k);
		for (unsigned long i = 0; i < 2 * k; i++)
			p[i * 4096] = 2; // HOT: lambda_twice
	};
	once(n);
	twice(n);
}

int main(int argc, char **argv)
{
	lambdas(argc > 1 ? std::strtoul(argv[1], nullptr, 0) : 100);
	return 0;
}
