/* test_data_oom.c - the data view when memory runs out while a file's variables are read:
 * the report fails with ENOMEM, it never drops the data rows and succeeds.
 *
 * Linked with -Wl,--wrap=data_vars_build (tests/report/meson.build): data.c's calls reach
 * __wrap_data_vars_build() below, which fails the call numbered fail_call as an allocation
 * would. */
#include <criterion/criterion.h>

#include "fixture.h"

#include "core/datavars.h"
#include "rows.h"
#include "rows_data.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int __real_data_vars_build(struct data_vars *vs, struct dso *d, struct strpool *pool);
int __wrap_data_vars_build(struct data_vars *vs, struct dso *d, struct strpool *pool);

static int calls, fail_call;

int __wrap_data_vars_build(struct data_vars *vs, struct dso *d, struct strpool *pool)
{
	if (++calls == fail_call) {
		memset(vs, 0, sizeof(*vs));
		return -ENOMEM;
	}
	return __real_data_vars_build(vs, d, pool);
}

/* Two samples in each of two ELF files' data, the files given by path (their variables
 * are read when the first sample of each is resolved); the profile from builder_finish(),
 * which must return WANT. */
static struct profile *two_files(int want)
{
	struct profile_options o = {.data = true};
	struct builder *b;
	char err[256] = "", self[PATH_MAX];
	const char *other = getenv("RPT_INLINE");

	cr_assert_not_null(other, "$RPT_INLINE");
	self_exe(self, sizeof(self));
	cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
	begin_data(b);
	/* Each file mapped as code too: the data view reads the variables of an image it knows. */
	data_map(b, 0x7f0000100000, 0x1000, 0, self, PROT_READ | PROT_EXEC);
	data_map(b, 0x7e0000100000, 0x1000, 0, other, PROT_READ | PROT_EXEC);
	data_map(b, 0x7f0000000000, 0x4000, 0, self, PROT_READ | PROT_WRITE);
	data_map(b, 0x7e0000000000, 0x4000, 0, other, PROT_READ | PROT_WRITE);
	for (uint64_t i = 0; i < 2; i++) {
		mem_sample(b, 0x401000, 0x7f0000000040 + 8 * i, 0, 0);
		mem_sample(b, 0x401000, 0x7e0000000040 + 8 * i, 0, 0);
	}
	return finish(b, err, sizeof(err), want);
}

Test(data_oom, with_memory_both_files_have_their_rows)
{
	struct profile *p;

	calls = 0;
	fail_call = 0;
	p = two_files(0);
	cr_assert_eq(calls, 2, "each file's variables read once");
	cr_assert_eq(p->data_samples, 4);
	enum profile_key keys[] = {PROFILE_KEY_DATA};
	struct profile_rows_req req = {.keys = keys, .nkeys = 1};
	struct profile_row *rows;
	size_t n;
	char buf[PATH_MAX + 64], self[PATH_MAX];
	size_t mine = 0, other = 0;
	cr_assert_eq(profile_rows_by(p, &req, &rows, &n, NULL), 0);
	self_exe(self, sizeof(self));
	for (size_t i = 0; i < n; i++) {
		const char *label = row_data_label(&rows[i], buf, sizeof(buf));
		mine += strstr(label, self) == label ? rows[i].samples : 0;
		other += strstr(label, getenv("RPT_INLINE")) == label ? rows[i].samples : 0;
	}
	cr_assert_eq(mine, 2, "the test binary's two samples in its rows");
	cr_assert_eq(other, 2, "the other file's two samples in its rows");
	free(rows);
	profile_free(p);
}

Test(data_oom, the_second_files_variables_fail)
{
	calls = 0;
	fail_call = 2;
	/* The first file's samples were resolved before the second file's variables failed:
	 * that success must not become the report's answer. */
	cr_assert_null(two_files(-ENOMEM));
	cr_assert_eq(calls, 2);
}

/* A control: the first failure, before any sample was resolved, always failed. */
Test(data_oom, the_first_files_variables_fail)
{
	calls = 0;
	fail_call = 1;
	cr_assert_null(two_files(-ENOMEM));
}
