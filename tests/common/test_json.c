/* The streaming JSON writer (json.h): commas, keys, nesting, both spacings. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "json.h"

#include "hwprof/metrics.h"

Test(json, commas_keys_and_nesting)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct hwprof_jw j;

	cr_assert_not_null(f);
	hwprof_jw_init(&j, f, true);
	hwprof_jw_object(&j, NULL);
	hwprof_jw_str(&j, "name", "a\"b");
	hwprof_jw_array(&j, "events");
	hwprof_jw_object(&j, NULL);
	hwprof_jw_uint(&j, "value", 18446744073709551615ull);
	hwprof_jw_int(&j, "delta", -3);
	hwprof_jw_end(&j);
	hwprof_jw_object(&j, NULL);
	hwprof_jw_double(&j, "scaled", NAN, 15);
	hwprof_jw_bool(&j, "counted", false);
	hwprof_jw_end(&j);
	hwprof_jw_end(&j);
	hwprof_jw_array(&j, "empty");
	hwprof_jw_end(&j);
	hwprof_jw_null(&j, "error");
	hwprof_jw_str(&j, "none", NULL);
	hwprof_jw_end(&j);
	fclose(f);
	cr_expect_str_eq(buf, "{\"name\":\"a\\\"b\",\"events\":[{\"value\":18446744073709551615,"
			      "\"delta\":-3},{\"scaled\":null,\"counted\":false}],\"empty\":[],"
			      "\"error\":null,\"none\":null}");
	free(buf);
}

Test(json, spaced)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct hwprof_jw j;

	cr_assert_not_null(f);
	hwprof_jw_init(&j, f, false);
	hwprof_jw_object(&j, NULL);
	hwprof_jw_double(&j, "value", 1.5, 15);
	hwprof_jw_array(&j, "list");
	hwprof_jw_int(&j, NULL, 1);
	hwprof_jw_int(&j, NULL, 2);
	hwprof_jw_end(&j);
	hwprof_jw_end(&j);
	fclose(f);
	cr_expect_str_eq(buf, "{\"value\": 1.5, \"list\": [1, 2]}");
	free(buf);
}

/* Rows one per line (report's "rows"), and the one shape of a metric. */
Test(json, newline_and_metric)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct hwprof_jw j;
	struct hwprof_metric m = {.name = "IPC", .value = 1.25, .formula = "instructions / cycles"};

	cr_assert_not_null(f);
	hwprof_jw_init(&j, f, true);
	hwprof_jw_array(&j, NULL);
	for (int i = 0; i < 2; i++) {
		hwprof_jw_newline(&j);
		hwprof_jw_int(&j, NULL, i);
	}
	hwprof_jw_metric(&j, &m, 10);
	hwprof_jw_end(&j);
	fclose(f);
	cr_expect_str_eq(buf, "[\n0,\n1,{\"name\":\"IPC\",\"value\":1.25,"
			      "\"formula\":\"instructions / cycles\"}]");
	free(buf);
}
