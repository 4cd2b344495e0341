/* hot.h - the workloads' environment and their HOT: tokens, for tests/report's criterion
 * files (meson's rpt_env names each workload). */
#ifndef HWPROF_TESTS_HOT_H
#define HWPROF_TESTS_HOT_H

#include <criterion/criterion.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Environment variable NAME, or the test is skipped (that workload was not built). */
static inline const char *need_env(const char *name)
{
	const char *v = getenv(name);

	if (!v || !v[0])
		cr_skip_test("%s not set: that workload was not built on this host", name);
	return v;
}

/* The line of SRC (in tests/report) that carries "HOT: TOKEN". */
static inline int hot_line(const char *src, const char *token)
{
	char path[PATH_MAX], line[512], want[128];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s/%s", need_env("RPT_SRC"), src);
	snprintf(want, sizeof(want), "HOT: %s */", token);
	f = fopen(path, "r");
	cr_assert(f, "cannot open %s", path);
	while (fgets(line, sizeof(line), f)) {
		n++;
		/* C++ sources end the token with the line, not with a comment close. */
		if (strstr(line, want) || (strstr(line, "// HOT: ") && strstr(line, token)))
			break;
	}
	cr_assert(!feof(f), "no 'HOT: %s' in %s", token, path);
	fclose(f);
	return n;
}

#endif
