/* filter.c - comma-separated filter lists and their matching. */
#include "filter.h"

#include "grow.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void filter_release(struct filter *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i]);
	free(f->v);
	free(f->ids);
	free(f->hits);
	memset(f, 0, sizeof(*f));
}

int filter_parse(struct filter *f, const char *option, const char *list, bool numeric, char *err,
		 size_t errlen)
{
	char *copy, *save = NULL, *tok;
	int ret = 0;

	f->option = option;
	if (!list)
		return 0;
	copy = strdup(list);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (hwprof_grow((void **)&f->v, &f->cap, f->n + 1, sizeof(*f->v)) < 0 ||
		    hwprof_grow((void **)&f->ids, &f->capids, f->n + 1, sizeof(*f->ids)) < 0 ||
		    !(f->v[f->n] = strdup(tok))) {
			ret = -ENOMEM;
			goto out;
		}
		f->n++;
		if (numeric) {
			char *end;
			unsigned long long x;
			errno = 0;
			x = strtoull(tok, &end, 10);
			if (errno || *end || end == tok || x > UINT32_MAX || tok[0] == '-') {
				bool digits = !tok[strspn(tok, "0123456789")];
				snprintf(err, errlen,
					 "%s '%s': %s (give a comma-separated list of ids, e.g. "
					 "%s 1234,1235)",
					 option, tok,
					 digits ? "too large for an id, at most 4294967295"
						: "not a number",
					 option);
				ret = -EINVAL;
				goto out;
			}
			f->ids[f->n - 1] = (uint32_t)x;
		}
	}
	if (!f->n) {
		snprintf(err, errlen,
			 "%s '%s': empty list (give one or more values, "
			 "comma-separated)",
			 option, list);
		ret = -EINVAL;
		goto out;
	}
	f->hits = calloc(f->n, sizeof(*f->hits));
	if (!f->hits)
		ret = -ENOMEM;
out:
	free(copy);
	return ret;
}

bool filter_id(struct filter *f, uint32_t id)
{
	if (!f->n)
		return true;
	for (size_t i = 0; i < f->n; i++)
		if (f->ids[i] == id) {
			f->hits[i]++;
			return true;
		}
	return false;
}

bool filter_str(struct filter *f, const char *s)
{
	if (!f->n)
		return true;
	if (!s)
		return false;
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->v[i], s)) {
			f->hits[i]++;
			return true;
		}
	return false;
}

/* --dso matches the recorded path or its basename. */
bool filter_dso(struct filter *f, const char *path)
{
	const char *base = strrchr(path, '/');

	if (!f->n)
		return true;
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->v[i], path) || (base && !strcmp(f->v[i], base + 1))) {
			f->hits[i]++;
			return true;
		}
	return false;
}

void list_ids(char *buf, size_t len, const uint32_t *v, size_t n)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%u", i ? ", " : "", v[i]);
}

void list_strs(char *buf, size_t len, const char *const *v, size_t n)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "", v[i]);
}
