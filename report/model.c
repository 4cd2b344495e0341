/* model.c - profile_load(): read each sample file into the builder; profile_free(). */
#include "model.h"

#include "builder.h"
#include "strpool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int load_one(struct builder *b, const char *path, char *err, size_t errlen)
{
	struct hwprof_reader *r = NULL;
	struct hwprof_record rec;
	const char *msg = NULL;
	enum hwprof_read_status st;
	int ret;

	ret = hwprof_reader_open(&r, path, err, errlen);
	if (ret < 0) {
		if (!err[0])
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	ret = builder_begin_input(b, path, hwprof_reader_header(r));
	while (ret == 0 && hwprof_reader_next(r, &rec) == 1)
		ret = builder_add(b, &rec);
	if (ret == 0) {
		st = hwprof_reader_status(r, &msg);
		ret = builder_end_input(b, hwprof_reader_trailer(r), st, msg);
	}
	if (ret < 0)
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
	hwprof_reader_close(r);
	return ret;
}

int profile_load(struct profile **out, const struct profile_options *opt, char *err, size_t errlen)
{
	struct builder *b = NULL;
	int ret;

	*out = NULL;
	err[0] = '\0';
	if (!opt->ninputs) {
		snprintf(err, errlen, "no input file given (use -i FILE)");
		return -EINVAL;
	}
	ret = builder_new(&b, opt, err, errlen);
	for (size_t i = 0; ret == 0 && i < opt->ninputs; i++)
		ret = load_one(b, opt->inputs[i], err, errlen);
	if (ret == 0)
		ret = builder_finish(b, out, err, errlen);
	builder_free(b);
	return ret;
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; i < p->header.argc; i++)
		free(p->header.argv[i]);
	free(p->header.argv);
	free(p->header.events);
	free(p->trailer.counts);
	for (size_t i = 0; i < p->nwarnings; i++)
		free(p->warnings[i]);
	free(p->warnings);
	free(p->locs);
	strpool_free(p->strings);
	free(p);
}
