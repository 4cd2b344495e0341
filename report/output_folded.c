/* output_folded.c - folded stacks for flame graphs (flamegraph.pl, inferno, speedscope). */
#include "output.h"

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
	if (*len + n + 2 > *cap) {
		size_t c = (*len + n + 2) * 2;
		char *v = realloc(*s, c);
		if (!v)
			return -ENOMEM;
		*s = v;
		*cap = c;
	}
	if (*len)
		(*s)[(*len)++] = ';';
	memcpy(*s + *len, buf, n + 1);
	*len += n;
	return 0;
}

/* The frames of the stack of locations TABLE[IDS[0..N)] (leaf first), outermost first, into a
 * malloc'd string (NULL on ENOMEM). */
static char *fold(const struct profile_loc *table, const uint32_t *ids, uint32_t n, bool truncated,
		  bool lines)
{
	char *str = NULL;
	size_t len = 0, cap = 0;

	if (truncated) {
		struct cg_frame cut = {.function = "[truncated]"};
		if (put_frame(&str, &len, &cap, &cut, false) < 0)
			goto fail;
	}
	for (uint32_t k = n; k-- > 0;) {
		struct cg_frame fr[2];
		size_t m = cg_loc_frames(&table[ids[k]], fr);
		while (m-- > 0)
			if (put_frame(&str, &len, &cap, &fr[m], lines) < 0)
				goto fail;
	}
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
	size_t nstacks = p->nstacks ? p->nstacks : p->nlocs, m = 0;
	struct line *v = calloc(nstacks ? nstacks : 1, sizeof(*v));
	int ret = -ENOMEM;

	(void)rows;
	(void)n;
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < nstacks; i++) {
		/* Without stacks, each sampled address is a stack of itself. */
		uint32_t self = (uint32_t)i;

		if (p->nstacks) {
			const struct profile_stack *s = &p->stacks[i];
			v[m].text =
			    fold(p->locations, s->locs, s->n, s->truncated, o->folded_lines);
			v[m].period = s->period;
		} else {
			v[m].text = fold(p->locs, &self, 1, false, o->folded_lines);
			v[m].period = p->locs[i].period;
		}
		if (!v[m].text)
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
	return ret;
}
