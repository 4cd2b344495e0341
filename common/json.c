/* json.c - the streaming JSON writer (json.h). */
#include "json.h"
#include "textfmt.h"

#include "hwprof/metrics.h"

#include <inttypes.h>

void hwprof_jw_init(struct hwprof_jw *j, FILE *f, bool compact)
{
	*j = (struct hwprof_jw){.f = f, .sep = compact ? "," : ", ", .colon = compact ? ":" : ": "};
}

/* The comma before a value and its key, if it has one. */
static void value_start(struct hwprof_jw *j, const char *key)
{
	if (j->depth > 0 && j->depth <= HWPROF_JW_DEPTH) {
		if (j->has_value[j->depth - 1])
			fputs(j->sep, j->f);
		j->has_value[j->depth - 1] = true;
	}
	if (j->newline) {
		fputc('\n', j->f);
		j->newline = false;
	}
	if (key) {
		hwprof_json_str(j->f, key);
		fputs(j->colon, j->f);
	}
}

static void open_container(struct hwprof_jw *j, const char *key, char open, char close)
{
	value_start(j, key);
	fputc(open, j->f);
	if (j->depth < HWPROF_JW_DEPTH) {
		j->close[j->depth] = close;
		j->has_value[j->depth] = false;
	}
	j->depth++;
}

void hwprof_jw_object(struct hwprof_jw *j, const char *key)
{
	open_container(j, key, '{', '}');
}

void hwprof_jw_array(struct hwprof_jw *j, const char *key)
{
	open_container(j, key, '[', ']');
}

void hwprof_jw_end(struct hwprof_jw *j)
{
	if (j->depth <= 0)
		return;
	j->depth--;
	fputc(j->depth < HWPROF_JW_DEPTH ? j->close[j->depth] : '}', j->f);
}

void hwprof_jw_str(struct hwprof_jw *j, const char *key, const char *s)
{
	value_start(j, key);
	hwprof_json_str(j->f, s);
}

void hwprof_jw_str_array(struct hwprof_jw *j, const char *key, char *const *v, size_t n)
{
	hwprof_jw_array(j, key);
	for (size_t i = 0; i < n; i++)
		hwprof_jw_str(j, NULL, v[i]);
	hwprof_jw_end(j);
}

void hwprof_jw_double(struct hwprof_jw *j, const char *key, double v, int digits)
{
	value_start(j, key);
	hwprof_json_double(j->f, v, digits);
}

void hwprof_jw_version(struct hwprof_jw *j)
{
	hwprof_jw_int(j, "version", HWPROF_JSON_VERSION);
}

void hwprof_jw_int(struct hwprof_jw *j, const char *key, long long v)
{
	value_start(j, key);
	fprintf(j->f, "%lld", v);
}

void hwprof_jw_uint(struct hwprof_jw *j, const char *key, uint64_t v)
{
	value_start(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void hwprof_jw_bool(struct hwprof_jw *j, const char *key, bool v)
{
	value_start(j, key);
	fputs(v ? "true" : "false", j->f);
}

void hwprof_jw_null(struct hwprof_jw *j, const char *key)
{
	value_start(j, key);
	fputs("null", j->f);
}

void hwprof_jw_measured(struct hwprof_jw *j, const char *key, double v, bool valid)
{
	if (valid)
		hwprof_jw_double(j, key, v, 15);
	else
		hwprof_jw_null(j, key);
}

void hwprof_jw_newline(struct hwprof_jw *j)
{
	j->newline = true;
}

void hwprof_jw_metric(struct hwprof_jw *j, const struct hwprof_metric *m, int digits)
{
	hwprof_jw_object(j, NULL);
	hwprof_jw_str(j, "name", m->name);
	hwprof_jw_double(j, "value", m->value, digits);
	hwprof_jw_str(j, "formula", m->formula);
	hwprof_jw_end(j);
}
