/* test_symcache_self.c - the symbol cache keys its files by hwprof's own build-id
 * (symcache.c, read through buildid.h): built twice, with the note (SELF_BUILD_ID 1: a cache
 * opens) and linked with --build-id=none (0: nothing is cached, and nothing breaks). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "buildid.h"
#include "dso.h"
#include "symcache.h"

Test(symcache_self, cached_only_with_a_build_id_of_its_own)
{
	char dir[] = "/tmp/hwprof-symcache-self-XXXXXX", sub[64];
	struct dso d = {.path = "/proc/self/exe", .build_id = {1, 2, 3, 4}, .build_id_size = 4};
	uint8_t id[20];
	struct symcache *c;

	cr_assert_not_null(mkdtemp(dir));
	setenv("XDG_CACHE_HOME", dir, 1);
	cr_expect_eq(buildid_read("/proc/self/exe", id) > 0, SELF_BUILD_ID);
	c = symcache_open(&d, INLINE_CALLEE, NULL, 0);
	cr_expect_eq(c != NULL, SELF_BUILD_ID, "symcache_open: %p", (void *)c);
	symcache_close(c, NULL);
	snprintf(sub, sizeof(sub), "%s/hwprof", dir);
	rmdir(sub); /* made by symcache_open(), empty: nothing was put */
	rmdir(dir);
}
