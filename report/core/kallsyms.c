/* kallsyms.c - parse "ADDR TYPE NAME [MODULE]" lines, keep text symbols, sort. */
#include "kallsyms.h"
#include "grow.h"
#include "textfmt.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* /proc/kallsyms is ~10 MB on a distribution kernel with its modules; a copy larger than
 * this is not one. A line holds an address, a type, a name of at most KSYM_NAME_LEN (512)
 * bytes and a module name: one longer than the buffer is not kallsyms either. Both bounds
 * keep `--kallsyms /dev/zero` from reading forever. */
#define KALLSYMS_MAX_BYTES ((uint64_t)256 << 20)
#define KALLSYMS_LINE_MAX  1024

static int load_lines(struct kallsyms *k, FILE *f, char *why, size_t whylen)
{
	char line[KALLSYMS_LINE_MAX], type, name[513], mod[129];
	uint64_t addr, bytes = 0, nline = 0;
	size_t cap = 0;

	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		nline++;
		bytes += len;
		if (bytes > KALLSYMS_MAX_BYTES) {
			snprintf(why, whylen, "more than %" PRIu64 " MiB, not a kallsyms file",
				 KALLSYMS_MAX_BYTES >> 20);
			return -EFBIG;
		}
		if (len == sizeof(line) - 1 && line[len - 1] != '\n') {
			snprintf(why, whylen,
				 "line %" PRIu64 " longer than %d bytes, not a kallsyms file",
				 nline, KALLSYMS_LINE_MAX - 1);
			return -EBADMSG;
		}
		int n = sscanf(line, "%" SCNx64 " %c %512s %128s", &addr, &type, name, mod);
		if (n < 3 || (type != 't' && type != 'T'))
			continue;
		if (!addr) {
			k->hidden++;
			continue;
		}
		if (hwprof_grow((void **)&k->v, &cap, k->n + 1, sizeof(*k->v)) < 0)
			return -ENOMEM;
		if (n == 4) {
			size_t l = strlen(name) + strlen(mod) + 2;
			k->v[k->n].name = malloc(l);
			if (k->v[k->n].name)
				snprintf(k->v[k->n].name, l, "%s %s", name, mod);
		} else {
			k->v[k->n].name = strdup(name);
		}
		if (!k->v[k->n].name)
			return -ENOMEM;
		k->v[k->n++].addr = addr;
	}
	return ferror(f) ? -EIO : 0;
}

int kallsyms_load(struct kallsyms *k, const char *path, char *why, size_t whylen)
{
	struct stat st;
	FILE *f;
	int ret;

	memset(k, 0, sizeof(*k));
	snprintf(why, whylen, "%s", "");
	f = fopen(path, "re");
	if (!f) {
		ret = -errno;
		hwprof_msgf(why, whylen, ret, "%m");
		return ret;
	}
	/* A pipe (a saved copy through <(...)) is fine; a device or directory is not. */
	if (fstat(fileno(f), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
		snprintf(why, whylen, "%s, not a kallsyms file",
			 S_ISCHR(st.st_mode)   ? "a character device"
			 : S_ISDIR(st.st_mode) ? "a directory"
					       : "not a regular file");
		fclose(f);
		return -EINVAL;
	}
	ret = load_lines(k, f, why, whylen);
	if (ret == -EIO)
		hwprof_msgf(why, whylen, EIO, "%m");
	fclose(f);
	if (ret < 0) {
		kallsyms_release(k);
		return ret;
	}
	if (k->n) /* k->v is NULL without symbols: qsort wants an array */
		qsort(k->v, k->n, sizeof(*k->v), by_addr);
	return 0;
}

const char *kallsyms_find(const struct kallsyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->n;

	if (!k->n || addr < k->v[0].addr)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->v[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return k->v[lo].name;
}

void kallsyms_release(struct kallsyms *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i].name);
	free(k->v);
	memset(k, 0, sizeof(*k));
}
