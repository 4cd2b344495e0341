/* big_alloc_fails.c - an LD_PRELOAD library for oom_e2e.py: malloc, calloc and realloc of more
 * than $HWPROF_TEST_FAIL_ABOVE bytes fail with ENOMEM, as glibc's do when memory runs out;
 * smaller ones go to glibc. A deterministic stand-in for `ulimit -v`, whose failures move with
 * the threads' timing. Built without sanitizers: ASan's allocator would come first. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);

static size_t limit(void)
{
	static size_t above;

	if (!above) {
		const char *s = getenv("HWPROF_TEST_FAIL_ABOVE");
		above = s && *s ? strtoull(s, NULL, 0) : SIZE_MAX;
	}
	return above;
}

void *malloc(size_t n)
{
	if (n > limit()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	if (size && n > limit() / size) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	if (n > limit()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_realloc(p, n);
}
