/* The flame graph's layout (report/flame.h) from small known stacks: the 1:3 two-path
 * workload of the call-graph tests (main;path_a;leaf x100, main;path_b;hop;leaf x300). */
#include <criterion/criterion.h>
#include <string.h>

#include "flame.h"

static const struct flame_node *find(const struct flame *fl, const char *name, uint32_t depth)
{
	for (size_t i = 0; i < fl->n; i++)
		if (!strcmp(fl->v[i].name, name) && fl->v[i].depth == depth)
			return &fl->v[i];
	return NULL;
}

#define F(n, l)                                                                                    \
	{                                                                                          \
		.name = (n), .dso = "/bin/wl", .file = "wl.c", .line = (l)                         \
	}

Test(flame, two_paths_one_to_three)
{
	struct flame_node a[] = {F("main", 70), F("path_a", 30), F("leaf", 22)};
	struct flame_node b[] = {F("main", 71), F("path_b", 40), F("hop", 35), F("leaf", 22)};
	struct flame_node b2[] = {F("main", 71), F("path_b", 40), F("hop", 35), F("leaf", 23)};
	struct flame fl;

	b[2].inlined = b2[2].inlined = true;
	cr_assert_eq(flame_start(&fl), 0);
	/* In flame_cmp() order: path_a before path_b; b before b2 (same frames). */
	cr_assert_lt(flame_cmp(a, 3, b, 4), 0);
	cr_assert_eq(flame_cmp(b, 4, b2, 4), 0);
	cr_assert_lt(flame_cmp(b, 3, b, 4), 0);
	cr_assert_eq(flame_add(&fl, a, 3, 100, 100.0), 0);
	cr_assert_eq(flame_add(&fl, b, 4, 200, 200.0), 0);
	cr_assert_eq(flame_add(&fl, b2, 4, 100, 100.0), 0);

	cr_assert_eq(fl.n, 1 + 3 + 3); /* root; main, path_a, leaf; path_b, hop, leaf */
	cr_expect_eq(fl.max_depth, 4);
	cr_expect_float_eq(fl.v[0].period, 400.0, 1e-9);
	cr_expect_eq(fl.v[0].samples, 400);

	const struct flame_node *main = find(&fl, "main", 1), *pa = find(&fl, "path_a", 2),
				*pb = find(&fl, "path_b", 2), *hop = find(&fl, "hop", 3),
				*leaf_a = find(&fl, "leaf", 3), *leaf_b = find(&fl, "leaf", 4);
	cr_assert(main && pa && pb && hop && leaf_a && leaf_b);
	/* Widths: path_b three times path_a; children side by side inside their parent. */
	cr_expect_float_eq(main->period, 400.0, 1e-9);
	cr_expect_float_eq(pa->x, 0.0, 1e-9);
	cr_expect_float_eq(pa->period, 100.0, 1e-9);
	cr_expect_float_eq(pb->x, 100.0, 1e-9);
	cr_expect_float_eq(pb->period, 300.0, 1e-9);
	cr_expect_float_eq(leaf_b->x, 100.0, 1e-9);
	cr_expect_float_eq(leaf_b->period, 300.0, 1e-9);
	cr_expect_eq(leaf_b->samples, 300);
	cr_expect(hop->inlined);
	cr_expect_eq(&fl.v[leaf_b->parent], hop);
	cr_expect_eq(&fl.v[hop->parent], pb);
	/* A line shared by every merged frame stays; lines that differ are no line. */
	cr_expect_eq(main->line, 0);
	cr_expect_eq(pb->line, 40);
	cr_expect_eq(leaf_b->line, 0);
	cr_expect_str_eq(leaf_b->file, "wl.c");
	cr_expect_eq(leaf_a->line, 22);
	flame_release(&fl);
}

/* A stack that shares a prefix, then a new sibling, then a deeper path under the first. */
Test(flame, siblings_and_prefixes)
{
	struct flame_node s1[] = {F("a", 1)};
	struct flame_node s2[] = {F("a", 1), F("b", 2)};
	struct flame_node s3[] = {F("a", 1), F("c", 3), F("d", 4)};
	struct flame_node s4[] = {F("z", 9)};
	struct flame fl;

	cr_assert_eq(flame_start(&fl), 0);
	cr_assert_eq(flame_add(&fl, s1, 1, 1, 5.0), 0);
	cr_assert_eq(flame_add(&fl, s2, 2, 1, 2.0), 0);
	cr_assert_eq(flame_add(&fl, s3, 3, 1, 3.0), 0);
	cr_assert_eq(flame_add(&fl, s4, 1, 1, 10.0), 0);
	const struct flame_node *a = find(&fl, "a", 1), *b = find(&fl, "b", 2),
				*c = find(&fl, "c", 2), *d = find(&fl, "d", 3),
				*z = find(&fl, "z", 1);
	cr_assert(a && b && c && d && z);
	cr_expect_float_eq(a->period, 10.0, 1e-9); /* 5 of its own, 2 in b, 3 in c */
	cr_expect_float_eq(b->x, 5.0, 1e-9);
	cr_expect_float_eq(c->x, 7.0, 1e-9);
	cr_expect_float_eq(d->x, 7.0, 1e-9);
	cr_expect_float_eq(d->period, 3.0, 1e-9);
	cr_expect_float_eq(z->x, 10.0, 1e-9);
	cr_expect_float_eq(fl.v[0].period, 20.0, 1e-9);
	flame_release(&fl);
}
