/* tests/report/test_jobs.c - jobs_run() runs every job exactly once, whatever the count. */
#include "jobs.h"
#include "strpool.h"

#include <criterion/criterion.h>
#include <stdatomic.h>
#include <stdio.h>

struct tally {
	atomic_int runs[1000];
	struct strpool *pool;
	const char *names[1000];
};

static void count_job(void *ctx, size_t k)
{
	struct tally *t = ctx;
	char name[32];

	atomic_fetch_add(&t->runs[k], 1);
	/* Jobs intern into one pool, as symbolization threads do; equal names must still
	 * come back as one pointer. */
	snprintf(name, sizeof(name), "fn%zu", k % 7);
	t->names[k] = strpool_intern(t->pool, name);
}

Test(jobs, every_job_once)
{
	static struct tally t;
	size_t counts[] = {0, 1, 2, 3, 17, 1000};

	for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		memset(&t, 0, sizeof(t));
		t.pool = strpool_new();
		cr_assert_not_null(t.pool);
		jobs_run(counts[c], count_job, &t);
		for (size_t k = 0; k < counts[c]; k++) {
			cr_assert_eq(atomic_load(&t.runs[k]), 1, "job %zu of %zu ran %d times", k,
				     counts[c], atomic_load(&t.runs[k]));
			cr_assert_eq(t.names[k], t.names[k % 7], "one pointer per name");
		}
		for (size_t k = counts[c]; k < 1000; k++)
			cr_assert_eq(atomic_load(&t.runs[k]), 0);
		strpool_free(t.pool);
	}
}
