/* output_folded.c - folded stacks for flame graphs (flamegraph.pl, inferno, speedscope). */
#include "output.h"

#include "grow.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct line {
	char *text; /* the frames, outermost first */
	double period;
};

/* Appends frame F to *S (*LEN, *CAP): its function ("[unknown]" when none; "[dso]" for an
 * address nothing is known about), with ":line" when LINES. ';' separates frames and the last
 * space the count, so neither may appear in a name: both become '_' as do control
 * characters. */
static int put_frame(char **s, size_t *len, size_t *cap, const struct cg_frame *f, bool lines)
{
	char buf[4096];
	const char *base;
	size_t n;

	if (f->function)
		snprintf(buf, sizeof(buf), "%s", f->function);
	else if (f->unknown && f->dso)
		snprintf(buf, sizeof(buf), "[%s]",
			 (base = strrchr(f->dso, '/')) ? base + 1 : f->dso);
	else
		snprintf(buf, sizeof(buf), "[unknown]");
	n = strlen(buf);
	if (lines && f->line)
		snprintf(buf + n, sizeof(buf) - n, ":%d", f->line);
	for (char *c = buf; *c; c++)
		if (*c == ';' || *c == ' ' || (unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '_';
	n = strlen(buf);
	if (hwprof_grow((void **)s, cap, *len + n + 2, 1) < 0)
		return -ENOMEM;
	if (*len)
		(*s)[(*len)++] = ';';
	memcpy(*s + *len, buf, n + 1);
	*len += n;
	return 0;
}

/* FR's N frames (outermost first) as one line's text: a malloc'd string, NULL on ENOMEM. */
static char *fold(const struct cg_frames *fr, bool lines)
{
	char *str = NULL;
	size_t len = 0, cap = 0;

	for (size_t k = 0; k < fr->n; k++)
		if (put_frame(&str, &len, &cap, &fr->v[k], lines) < 0) {
			free(str);
			return NULL;
		}
	return str;
}

/* --sort data: data sample group D as one line's text, the instruction's frames (its inline
 * chain, outermost first; data samples keep no callers) then the object as a leaf frame,
 * "[data:g.b]" (an array's elements as one: "[data:table.entries[].key]"). A malloc'd
 * string, NULL on ENOMEM. */
static char *fold_data(const struct profile *p, const struct profile_data *d, bool inline_all,
		       bool lines)
{
	struct cg_frame chain[CG_MAX_CHAIN], leaf = {0};
	size_t k = cg_loc_chain(p, &p->locations[d->loc], inline_all, chain, CG_MAX_CHAIN);
	char name[4096], *str = NULL;
	size_t len = 0, cap = 0;

	snprintf(name, sizeof(name), "[data:%s]", d->object ? d->object : "[unknown]");
	leaf.function = name;
	while (k--)
		if (put_frame(&str, &len, &cap, &chain[k], lines) < 0)
			goto fail;
	if (put_frame(&str, &len, &cap, &leaf, false) == 0)
		return str;
fail:
	free(str);
	return NULL;
}

static int by_text(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->text, ((const struct line *)b)->text);
}

int output_folded(FILE *f, const struct profile *p, const struct profile_row *rows, size_t n,
		  const struct output_opts *o)
{
	bool data = output_has_key(o, PROFILE_KEY_DATA);
	size_t nstacks = data ? p->ndata : cg_stacks_count(p), m = 0;
	struct line *v = calloc(nstacks ? nstacks : 1, sizeof(*v));
	struct cg_frames fr = {0};
	uint64_t samples;
	int ret = -ENOMEM;

	(void)rows;
	(void)n;
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < nstacks && data; i++) {
		v[m].period = p->data[i].period;
		if (!(v[m].text = fold_data(p, &p->data[i], o->inline_frames, o->folded_lines)))
			goto out;
		m++;
	}
	for (size_t i = 0; i < nstacks && !data; i++) {
		if (cg_stack_frames(p, i, o->inline_frames, &fr, &samples, &v[m].period) < 0 ||
		    !(v[m].text = fold(&fr, o->folded_lines)))
			goto out;
		m++;
	}
	/* Stacks that differ in addresses but not in frames are one line. */
	qsort(v, m, sizeof(*v), by_text);
	for (size_t i = 0; i < m; i++) {
		double period = v[i].period;
		while (i + 1 < m && !strcmp(v[i].text, v[i + 1].text))
			period += v[++i].period;
		fprintf(f, "%s %.0f\n", v[i].text, round(period));
	}
	ret = ferror(f) ? -EIO : 0;
out:
	for (size_t i = 0; i < m; i++)
		free(v[i].text);
	free(v);
	free(fr.v);
	return ret;
}
