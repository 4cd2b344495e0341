/* test_buildid.c - the NT_GNU_BUILD_ID note read from a file, against readelf's answer. */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "buildid.h"

/* "Build ID: 0123abcd..." from readelf -n, as hex. */
static int readelf_build_id(const char *path, char *hex, size_t len)
{
	char cmd[PATH_MAX + 64], line[512];
	FILE *p;
	int found = 0;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		char *b = strstr(line, "Build ID: ");
		if (b && !found) {
			snprintf(hex, len, "%s", b + 10);
			hex[strcspn(hex, "\n ")] = '\0';
			found = 1;
		}
	}
	pclose(p);
	return found;
}

Test(buildid, matches_readelf)
{
	char exe[PATH_MAX], want[128], got[128] = "";
	uint8_t id[20];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int size;

	cr_assert_gt(n, 0);
	exe[n] = '\0';
	if (!readelf_build_id(exe, want, sizeof(want)))
		cr_skip_test("readelf shows no build-id for %s (linked without --build-id)", exe);
	size = buildid_read(exe, id);
	cr_assert_eq(size, (int)strlen(want) / 2, "%d bytes, readelf says %s", size, want);
	for (int i = 0; i < size; i++)
		snprintf(got + 2 * i, 3, "%02x", id[i]);
	cr_assert_str_eq(got, want);
}

Test(buildid, errors)
{
	uint8_t id[20];
	char path[] = "/tmp/hwprof-buildid-XXXXXX";
	int fd = mkstemp(path);

	cr_assert_eq(buildid_read("/nonexistent/file", id), -ENOENT);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "not an ELF file at all\n", 23), 23);
	close(fd);
	cr_assert_eq(buildid_read(path, id), -EBADMSG);
	unlink(path);
}

Test(buildid, linked_without_one_is_enodata)
{
	uint8_t id[20];
	char path[64], cmd[256];

	snprintf(path, sizeof(path), "/tmp/hwprof-nobuildid-%d", (int)getpid());
	snprintf(cmd, sizeof(cmd),
		 "printf 'int main(void){return 0;}' | cc -x c - -Wl,--build-id=none -o %s", path);
	if (system(cmd) != 0)
		cr_skip_test("no C compiler to link a file without a build-id");
	cr_expect_eq(buildid_read(path, id), -ENODATA);
	unlink(path);
}
