/* output_pprof.c - the profile as pprof's profile.proto, gzipped (-f pprof).
 *
 * The core's tables are already pprof's shape (profile.h), so this is a copy into the
 * generated messages (pprof/profile.proto, packed by libprotobuf-c) and one gzip stream
 * (zlib). What pprof's readers need, and why it is done so:
 *
 * - Ids: pprof's are 1-based and 0 means none. A location's id is its profile id + 1; a
 *   mapping's its place in the output + 1; the [unknown] mapping (addresses outside every
 *   mapped file) is no Mapping, its locations have mapping_id 0.
 * - Addresses are the core's: link-time (ELF vaddr) addresses of the DSO, the file offset
 *   when the file could not be read. Each Mapping spans the file's PT_LOAD segments (when it
 *   was read; else the addresses of its locations), and its file_offset is the file offset of
 * memory_start, so address - memory_start + file_offset is the file offset as pprof's symbolizers
 * expect (a location without symbols can be symbolized later, by build-id, as Parca does).
 * - Functions: pprof keeps a source file per Function, not per Line, and `-lines` prints the
 *   function's file beside each line's number; so a Function is a function of the profile
 *   in one file (the file of the lines that name it), which is its declaration file but for
 *   code #included into it.
 * - Samples: one per distinct stack (every inline frame of each location as a Line); a
 *   recording without stacks gives one per sampled address. The values are, per event, the
 *   samples and their summed period, rounded to integers (pprof's are int64): every
 *   sampling event's from the value vector (profile.h) when several have samples, else the
 *   shown event's.
 * - --sort data: one Sample per data sample group (profile.data), of the shown event alone:
 *   its leaf a Location of its own with no Mapping, whose one Line names a Function
 *   "[data:OBJ]" (the object touched, as the folded output names it), then the
 *   instruction's Location (data samples keep no callers); and a label data=OBJ. So `go tool
 *   pprof -top` lists the objects as functions, -traces shows each above its instruction's
 *   function, -lines the instruction's line, -tagfocus data=... picks one object.
 */
#include "functions.h"
#include "output.h"
#include "profile.pb-c.h"
#include "textfmt.h"

#include "hwprof/event.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cli.h"
#include "fnv.h"
#include "idindex.h"

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__ValueType pb_value_type;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Label pb_label;
typedef Perftools__Profiles__Mapping pb_mapping;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;

/* The string table: each distinct string once, by content; [0] is "". */
struct strtab {
	char **v; /* borrowed from the profile, or in OWNED */
	size_t n, cap;
	uint32_t *index; /* idindex.h: 1 + position in v, 0 empty */
	size_t icap;	 /* power of two */
	char **owned;
	size_t nowned, capowned;
};

static uint64_t str_hash(const char *s)
{
	return hwprof_fnv1a_str(HWPROF_FNV_BASIS, s);
}

/* The string a lookup in a strtab looks for. */
struct str_key {
	const struct strtab *t;
	const char *s;
};

static bool same_str(const void *ctx, uint32_t id)
{
	const struct str_key *k = ctx;

	return !strcmp(k->t->v[id], k->s);
}

static uint64_t entry_hash(const void *ctx, uint32_t id)
{
	return str_hash(((const struct strtab *)ctx)->v[id]);
}

/* The index of S (NULL: "") in T; S must live until T is written. */
static int64_t str_id(struct strtab *t, const char *s)
{
	struct str_key k = {t, s && *s ? s : ""};
	size_t i;

	if ((t->n + 1) * 2 > t->icap &&
	    hwprof_index_rebuild(&t->index, &t->icap, t->icap ? 2 * t->icap : 1024, t->n,
				 entry_hash, t) < 0)
		die("out of memory");
	i = hwprof_index_probe(t->index, t->icap, str_hash(k.s), same_str, &k);
	if (t->index[i])
		return t->index[i] - 1;
	xgrow(&t->v, &t->cap, t->n + 1, sizeof(*t->v));
	t->v[t->n] = (char *)k.s;
	t->index[i] = (uint32_t)++t->n;
	return (int64_t)t->n - 1;
}

/* The index of a printf-formatted string, which T then owns. */
static int64_t str_idf(struct strtab *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int64_t str_idf(struct strtab *t, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	xgrow(&t->owned, &t->capowned, t->nowned + 1, sizeof(*t->owned));
	t->owned[t->nowned++] = s;
	return str_id(t, s);
}

static void strtab_release(struct strtab *t)
{
	for (size_t i = 0; i < t->nowned; i++)
		free(t->owned[i]);
	free(t->owned);
	free(t->v);
	free(t->index);
}

/* What is being built: the messages point into these arrays. */
struct pprof {
	const struct profile *p;
	struct strtab s;
	pb_profile prof;
	pb_value_type *types; /* the sample types, then the period type */
	pb_value_type **type_ptrs;
	pb_sample *samples;
	pb_sample **sample_ptrs;
	uint64_t *ids; /* every sample's location ids, back to back */
	int64_t *vals; /* every sample's values, back to back */
	pb_label truncated, *truncated_ptr;
	pb_mapping *mappings;
	pb_mapping **mapping_ptrs;
	uint32_t *mapping_id; /* by profile mapping: its Mapping's id, 0: none */
	pb_location *locations;
	pb_location **location_ptrs;
	bool *used; /* by profile location: a sample names it */
	pb_line *lines;
	pb_line **line_ptrs;
	struct fn_table fns; /* the output's functions (a function in one file) */
	pb_function *functions;
	pb_function **function_ptrs;
	int64_t *comments;
	bool data;	    /* --sort data: samples of profile.data */
	uint64_t *data_loc; /* by string-table index: the object's pseudo-Location id, 0 */
	size_t ndata_loc;   /* room in DATA_LOC */
	pb_label *labels;   /* data: each sample's data=OBJ */
	pb_label **label_ptrs;
	pb_location *dlocations; /* data: the pseudo-Locations, one per object ... */
	pb_line *dlines;	 /* ... each with one Line ... */
	pb_line **dline_ptrs;
	pb_function *dfunctions; /* ... of its Function "[data:OBJ]" */
	pb_function **dfunction_ptrs;
	size_t nobjects;
};

/* The unit pprof reads for EV's period: what the event counts (hwprof_event_unit()),
 * spelled as pprof spells it. */
static const char *period_unit(const struct hwprof_file_event *ev)
{
	struct hwprof_event e = {.type = ev->type, .config = ev->config};
	const char *u = hwprof_event_unit(&e);

	return !strcmp(u, "ns") ? "nanoseconds" : u[0] ? u : "count";
}

/* The events of the sample types: every sampled one with the value vector, else (and for
 * --sort data, whose groups hold the shown event's samples) the shown one. */
static uint32_t ncolumns(const struct pprof *w)
{
	return w->p->nvalues && !w->data ? w->p->nvalues : 1;
}

static const struct hwprof_file_event *column_event(const struct pprof *w, uint32_t c)
{
	if (w->p->nvalues && !w->data)
		return &w->p->header.events[w->p->value_event[c]];
	return profile_sampling_event(w->p);
}

/* Sample types: per event, its samples and its period. With one event they are "samples" and
 * the event's name; with several, each event's samples are "EVENT-samples". */
static void add_types(struct pprof *w)
{
	const struct profile *p = w->p;
	const struct hwprof_file_event *shown = profile_sampling_event(p);
	uint32_t nc = ncolumns(w);
	pb_value_type *t;

	w->types = xcalloc(2 * nc + 1, sizeof(*w->types));
	w->type_ptrs = xcalloc(2 * nc, sizeof(*w->type_ptrs));
	for (uint32_t c = 0; c < nc; c++) {
		const struct hwprof_file_event *ev = column_event(w, c);
		const char *name = ev ? ev->name : "events";

		t = &w->types[2 * c];
		perftools__profiles__value_type__init(&t[0]);
		perftools__profiles__value_type__init(&t[1]);
		t[0].type = nc > 1 ? str_idf(&w->s, "%s-samples", name) : str_id(&w->s, "samples");
		t[0].unit = str_id(&w->s, "count");
		t[1].type = str_id(&w->s, name);
		t[1].unit = str_id(&w->s, ev ? period_unit(ev) : "count");
		w->type_ptrs[2 * c] = &t[0];
		w->type_ptrs[2 * c + 1] = &t[1];
		if (ev == shown)
			w->prof.default_sample_type = t[1].type;
	}
	w->prof.sample_type = w->type_ptrs;
	w->prof.n_sample_type = 2 * nc;
	/* The period: events between two samples; in frequency mode the kernel retunes it, and
	 * the mean is what one sample stands for. */
	t = &w->types[2 * nc];
	perftools__profiles__value_type__init(t);
	t->type = str_id(&w->s, shown ? shown->name : "events");
	t->unit = str_id(&w->s, shown ? period_unit(shown) : "count");
	w->prof.period_type = t;
	if (shown && !shown->freq)
		w->prof.period = (int64_t)shown->period_or_freq;
	else if (p->samples)
		w->prof.period = llround(p->period / (double)p->samples);
}

/* Sample I's stack (*N location ids, *TRUNCATED) and values into V (2 per column). */
static const uint32_t *sample_of(const struct profile *p, size_t i, uint32_t *n, bool *truncated,
				 int64_t *v)
{
	if (p->nvalues) {
		const struct profile_vsample *s = &p->vsamples[i];
		for (uint32_t c = 0; c < p->nvalues; c++) {
			v[2 * c] = (int64_t)s->values[c].samples;
			v[2 * c + 1] = llround(s->values[c].period);
		}
		*n = s->n;
		*truncated = s->truncated;
		return s->locs;
	}
	if (p->nstacks) {
		const struct profile_stack *s = &p->stacks[i];
		v[0] = (int64_t)s->samples;
		v[1] = llround(s->period);
		*n = s->n;
		*truncated = s->truncated;
		return s->locs;
	}
	v[0] = (int64_t)p->locs[i].samples;
	v[1] = llround(p->locs[i].period);
	*n = 1;
	*truncated = false;
	return &p->locs[i].id;
}

/* The pseudo-Location id of data object OBJ (pprof ids after the profile's locations). */
static uint64_t data_location(struct pprof *w, const char *obj)
{
	int64_t k = str_id(&w->s, obj ? obj : "[unknown]");

	if ((size_t)k >= w->ndata_loc) {
		size_t cap = (size_t)k * 2 + 16;
		w->data_loc = xrealloc(w->data_loc, cap * sizeof(*w->data_loc));
		memset(w->data_loc + w->ndata_loc, 0, (cap - w->ndata_loc) * sizeof(*w->data_loc));
		w->ndata_loc = cap;
	}
	if (!w->data_loc[k])
		w->data_loc[k] = w->p->nlocations + 1 + w->nobjects++;
	return w->data_loc[k];
}

/* --sort data: a sample per data group, [data:OBJ] then its instruction. */
static void add_data_samples(struct pprof *w)
{
	const struct profile *p = w->p;
	size_t n = p->ndata;

	w->samples = xcalloc(n ? n : 1, sizeof(*w->samples));
	w->sample_ptrs = xcalloc(n ? n : 1, sizeof(*w->sample_ptrs));
	w->ids = xcalloc(n ? 2 * n : 1, sizeof(*w->ids));
	w->vals = xcalloc(n ? 2 * n : 1, sizeof(*w->vals));
	w->labels = xcalloc(n ? n : 1, sizeof(*w->labels));
	w->label_ptrs = xcalloc(n ? n : 1, sizeof(*w->label_ptrs));
	w->used = xcalloc(p->nlocations ? p->nlocations : 1, sizeof(*w->used));
	for (size_t i = 0; i < n; i++) {
		const struct profile_data *d = &p->data[i];
		pb_sample *s = &w->samples[i];

		perftools__profiles__sample__init(s);
		w->ids[2 * i] = data_location(w, d->object);
		w->ids[2 * i + 1] = (uint64_t)d->loc + 1;
		w->used[d->loc] = true;
		s->location_id = w->ids + 2 * i;
		s->n_location_id = 2;
		w->vals[2 * i] = (int64_t)d->samples;
		w->vals[2 * i + 1] = llround(d->period);
		s->value = w->vals + 2 * i;
		s->n_value = 2;
		perftools__profiles__label__init(&w->labels[i]);
		w->labels[i].key = str_id(&w->s, "data");
		w->labels[i].str = str_id(&w->s, d->object ? d->object : "[unknown]");
		w->label_ptrs[i] = &w->labels[i];
		s->label = &w->label_ptrs[i];
		s->n_label = 1;
		w->sample_ptrs[i] = s;
	}
	w->prof.sample = w->sample_ptrs;
	w->prof.n_sample = n;
}

/* The samples: one per stack, or one per sampled address without stacks. */
static void add_samples(struct pprof *w)
{
	const struct profile *p = w->p;
	size_t n = p->nvalues ? p->nvsamples : p->nstacks ? p->nstacks : p->nlocs, nids = 0;
	uint32_t nv = 2 * ncolumns(w);

	if (w->data) {
		add_data_samples(w);
		return;
	}
	for (size_t i = 0; i < p->nvsamples && p->nvalues; i++)
		nids += p->vsamples[i].n;
	for (size_t i = 0; i < p->nstacks && !p->nvalues; i++)
		nids += p->stacks[i].n;
	if (!p->nvalues && !p->nstacks)
		nids = p->nlocs;
	w->samples = xcalloc(n ? n : 1, sizeof(*w->samples));
	w->sample_ptrs = xcalloc(n ? n : 1, sizeof(*w->sample_ptrs));
	w->ids = xcalloc(nids ? nids : 1, sizeof(*w->ids));
	w->vals = xcalloc(n ? nv * n : 1, sizeof(*w->vals));
	w->used = xcalloc(p->nlocations ? p->nlocations : 1, sizeof(*w->used));
	/* A stack cut short says so: its outermost callers are missing. */
	perftools__profiles__label__init(&w->truncated);
	w->truncated.key = str_id(&w->s, "truncated");
	w->truncated.str = str_id(&w->s, "true");
	w->truncated_ptr = &w->truncated;
	nids = 0;
	for (size_t i = 0; i < n; i++) {
		pb_sample *s = &w->samples[i];
		uint32_t nlocs;
		bool truncated;
		const uint32_t *locs = sample_of(p, i, &nlocs, &truncated, w->vals + nv * i);

		perftools__profiles__sample__init(s);
		s->location_id = w->ids + nids;
		s->n_location_id = nlocs;
		for (uint32_t k = 0; k < nlocs; k++) {
			w->ids[nids++] = (uint64_t)locs[k] + 1;
			w->used[locs[k]] = true;
		}
		s->value = w->vals + nv * i;
		s->n_value = nv;
		if (truncated) {
			s->label = &w->truncated_ptr;
			s->n_label = 1;
		}
		w->sample_ptrs[i] = s;
	}
	w->prof.sample = w->sample_ptrs;
	w->prof.n_sample = n;
}

/* The build-id as pprof's readers key it: lowercase hex. */
static int64_t build_id_str(struct strtab *s, const struct profile_mapping *m)
{
	char hex[2 * sizeof(m->build_id) + 1];

	if (!m->build_id_size)
		return 0;
	for (size_t i = 0; i < m->build_id_size && i < sizeof(m->build_id); i++)
		snprintf(hex + 2 * i, 3, "%02x", m->build_id[i]);
	return str_idf(s, "%s", hex);
}

/* Mapping M's place in the output: 0 the program's (its file's base name is PROGRAM's, when
 * known), 1 another file, 2 no file ([kernel], [vdso], ...). pprof takes the first Mapping
 * for the main binary. */
static int mapping_rank(const struct profile_mapping *m, const char *program)
{
	if (program && m->file && !strcmp(path_base(m->file), path_base(program)))
		return 0;
	return m->file && m->file[0] == '[' ? 2 : 1;
}

/* The Mappings of the mapped files the samples name, the program's first. */
static void add_mappings(struct pprof *w)
{
	const struct profile *p = w->p;
	const char *program = profile_program(p);
	uint64_t *lo = xcalloc(p->nmappings + 1, sizeof(*lo));
	uint64_t *hi = xcalloc(p->nmappings + 1, sizeof(*hi));
	bool *funcs = xcalloc(p->nmappings + 1, sizeof(*funcs));
	bool *files = xcalloc(p->nmappings + 1, sizeof(*files));
	size_t n = 0;

	w->mapping_id = xcalloc(p->nmappings + 1, sizeof(*w->mapping_id));
	for (size_t i = 0; i < p->nlocations; i++) {
		const struct profile_loc *l = &p->locations[i];
		if (!w->used[i] || l->mapping >= p->nmappings)
			continue;
		if (!w->mapping_id[l->mapping] || l->addr < lo[l->mapping])
			lo[l->mapping] = l->addr;
		if (!w->mapping_id[l->mapping] || l->addr >= hi[l->mapping])
			hi[l->mapping] = l->addr + 1;
		w->mapping_id[l->mapping] = 1;
		funcs[l->mapping] |= l->function != NULL;
		files[l->mapping] |= l->file != NULL;
	}
	w->mappings = xcalloc(p->nmappings + 1, sizeof(*w->mappings));
	w->mapping_ptrs = xcalloc(p->nmappings + 1, sizeof(*w->mapping_ptrs));
	/* Three times over the mappings: the program's, the other files, those without one. */
	for (int pass = 0; pass < 3; pass++)
		for (size_t i = 1; i < p->nmappings; i++) {
			const struct profile_mapping *m = &p->mappings[i];
			pb_mapping *o = &w->mappings[n];
			if (w->mapping_id[i] != 1 || mapping_rank(m, program) != pass)
				continue;
			perftools__profiles__mapping__init(o);
			o->id = ++n;
			/* The file's whole image when it was read: the same range for the same
			 * build in every profile, which pprof's merge keys mappings by. */
			if (m->limit > m->start && m->start <= lo[i] && hi[i] <= m->limit)
				lo[i] = m->start, hi[i] = m->limit;
			o->memory_start = lo[i];
			o->memory_limit = hi[i];
			/* The kernel's addresses are its own (profile.h): no file offset. */
			if (strcmp(m->file, "[kernel]"))
				o->file_offset = lo[i] - (uint64_t)(m->bias_known ? m->bias : 0);
			o->filename = str_id(&w->s, m->file);
			o->build_id = build_id_str(&w->s, m);
			o->has_functions = funcs[i];
			o->has_filenames = o->has_line_numbers = o->has_inline_frames = files[i];
			w->mapping_ptrs[n - 1] = o;
			w->mapping_id[i] = (uint32_t)n + 1;
		}
	/* mapping_id held 1 + the id while assigning. */
	for (size_t i = 0; i < p->nmappings; i++)
		w->mapping_id[i] = w->mapping_id[i] > 1 ? w->mapping_id[i] - 1 : 0;
	w->prof.mapping = w->mapping_ptrs;
	w->prof.n_mapping = n;
	free(lo);
	free(hi);
	free(funcs);
	free(files);
}

/* --sort data: each object's pseudo-Location (after the NLOC Locations) and its Function
 * "[data:OBJ]" (after the NFN Functions). */
static void add_data_locations(struct pprof *w, size_t nloc, size_t nfn)
{
	size_t j = 0;

	w->dlocations = xcalloc(w->nobjects + 1, sizeof(*w->dlocations));
	w->dlines = xcalloc(w->nobjects + 1, sizeof(*w->dlines));
	w->dline_ptrs = xcalloc(w->nobjects + 1, sizeof(*w->dline_ptrs));
	w->dfunctions = xcalloc(w->nobjects + 1, sizeof(*w->dfunctions));
	for (size_t k = 0; k < w->ndata_loc; k++) {
		pb_location *o = &w->dlocations[j];
		pb_function *f = &w->dfunctions[j];

		if (!w->data_loc[k])
			continue;
		perftools__profiles__function__init(f);
		f->id = nfn + j + 1;
		f->name = f->system_name = str_idf(&w->s, "[data:%s]", w->s.v[k]);
		perftools__profiles__line__init(&w->dlines[j]);
		w->dlines[j].function_id = f->id;
		w->dline_ptrs[j] = &w->dlines[j];
		perftools__profiles__location__init(o);
		o->id = w->data_loc[k];
		o->line = &w->dline_ptrs[j];
		o->n_line = 1;
		w->location_ptrs[nloc + j] = o;
		w->function_ptrs[nfn + j] = f;
		j++;
	}
}

/* The Locations the samples name, each with its whole inline chain as Lines; the Functions
 * they name. */
static void add_locations(struct pprof *w)
{
	const struct profile *p = w->p;
	size_t n = 0, nl = 0;

	if (fn_table_init(&w->fns) < 0)
		die("out of memory");
	w->locations = xcalloc(p->nlocations + 1, sizeof(*w->locations));
	w->location_ptrs = xcalloc(p->nlocations + 1 + w->nobjects, sizeof(*w->location_ptrs));
	w->lines = xcalloc(p->nlines + 1, sizeof(*w->lines));
	w->line_ptrs = xcalloc(p->nlines + 1, sizeof(*w->line_ptrs));
	for (size_t i = 0; i < p->nlocations; i++) {
		const struct profile_loc *l = &p->locations[i];
		const struct profile_line *chain;
		pb_location *o = &w->locations[n];
		uint32_t nchain;

		if (!w->used[i])
			continue;
		perftools__profiles__location__init(o);
		o->id = (uint64_t)i + 1;
		o->mapping_id = l->mapping < p->nmappings ? w->mapping_id[l->mapping] : 0;
		o->address = l->addr;
		chain = profile_loc_lines(p, l, &nchain);
		o->line = w->line_ptrs + nl;
		o->n_line = nchain;
		for (uint32_t k = 0; k < nchain; k++) {
			const struct profile_function *f = &p->functions[chain[k].function];
			struct profile_function key = *f;
			pb_line *line = &w->lines[nl];
			uint32_t id;

			if (chain[k].file)
				key.file = chain[k].file;
			if (fn_table_intern(&w->fns, &key, &id) < 0)
				die("out of memory");
			perftools__profiles__line__init(line);
			line->function_id = id;
			line->line = chain[k].line;
			w->line_ptrs[nl++] = line;
		}
		w->location_ptrs[n++] = o;
	}
	/* fns.v[0] is the unknown function: a Line of it names Function 0, none. */
	w->functions = xcalloc(w->fns.n, sizeof(*w->functions));
	w->function_ptrs = xcalloc(w->fns.n + w->nobjects, sizeof(*w->function_ptrs));
	for (size_t i = 1; i < w->fns.n; i++) {
		const struct profile_function *f = &w->fns.v[i];
		pb_function *o = &w->functions[i - 1];

		perftools__profiles__function__init(o);
		o->id = i;
		o->name = str_id(&w->s, f->name ? f->name : f->system_name ? f->system_name : "??");
		o->system_name = str_id(&w->s, f->system_name ? f->system_name : f->name);
		o->filename = str_id(&w->s, f->file);
		o->start_line = f->start_line;
		w->function_ptrs[i - 1] = o;
	}
	add_data_locations(w, n, w->fns.n - 1);
	w->prof.location = w->location_ptrs;
	w->prof.n_location = n + w->nobjects;
	w->prof.function = w->function_ptrs;
	w->prof.n_function = w->fns.n - 1 + w->nobjects;
}

/* Comments: lines for people, as the text report's header says them. */
static void add_comments(struct pprof *w)
{
	const struct profile *p = w->p;
	const struct hwprof_file_header *h = &p->header;
	int64_t v[64];
	size_t n = 0;
	char evs[4096], num[64];

	if (h->hostname[0] || h->cpu_model[0] || h->kernel[0])
		v[n++] = str_idf(&w->s, "host: %s, %s, %u CPUs, Linux %s", h->hostname,
				 h->cpu_model, h->ncpus, h->kernel);
	if (h->argc) {
		char *cmd = hwprof_argv_line(h->argv, h->argc);
		if (!cmd)
			die("out of memory");
		v[n++] = str_idf(&w->s, "command: %s", cmd);
		free(cmd);
	}
	if (profile_events_label(p, evs, sizeof(evs)))
		v[n++] = str_idf(&w->s, "events: %s", evs);
	v[n++] = str_idf(&w->s, "samples: %" PRIu64 "%s", p->samples,
			 p->samples != p->samples_read ? " (filtered)" : "");
	for (uint32_t i = 0; i < p->trailer.ncounts && n < sizeof(v) / sizeof(v[0]); i++) {
		const struct hwprof_file_count *c = &p->trailer.counts[i];
		struct hwprof_count k = profile_count_read(c);

		if (profile_count_partial(p, i) || !k.counted)
			v[n++] = str_idf(&w->s, "counted: %s not counted%s", c->event,
					 k.counted ? " in every input" : "");
		else
			v[n++] = str_idf(&w->s, "counted: %s %s%s%s (%.1f%% of the time)", c->event,
					 hwprof_count_text(k.scaled, c->unit, num, sizeof(num)),
					 c->unit[0] ? " " : "", c->unit, k.ratio * 100);
	}
	w->comments = xcalloc(n, sizeof(*w->comments));
	memcpy(w->comments, v, n * sizeof(*v));
	w->prof.comment = w->comments;
	w->prof.n_comment = n;
}

/* Gzips the N bytes at BUF to F. Returns 0 or -errno. */
static int write_gzip(FILE *f, const uint8_t *buf, size_t n)
{
	z_stream z = {0};
	uint8_t out[65536];
	int ret = 0, zr;

	/* 16 + the window bits: a gzip header and trailer, as pprof's readers expect. */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return -ENOMEM;
	z.next_in = (uint8_t *)buf;
	z.avail_in = (uInt)n;
	do {
		z.next_out = out;
		z.avail_out = sizeof(out);
		zr = deflate(&z, Z_FINISH);
		if (zr == Z_STREAM_ERROR) {
			ret = -EIO;
			break;
		}
		fwrite(out, 1, sizeof(out) - z.avail_out, f);
	} while (zr != Z_STREAM_END);
	deflateEnd(&z);
	return ret ? ret : ferror(f) ? -EIO : 0;
}

int output_pprof(FILE *f, const struct profile *p, const struct profile_row *rows, size_t n,
		 const struct output_opts *o)
{
	struct pprof w = {.p = p, .data = output_has_key(o, PROFILE_KEY_DATA)};
	uint8_t *buf;
	size_t len;
	int ret;

	(void)rows;
	(void)n;
	perftools__profiles__profile__init(&w.prof);
	str_id(&w.s, "");
	add_types(&w);
	add_samples(&w);
	add_mappings(&w);
	add_locations(&w);
	add_comments(&w);
	w.prof.time_nanos = (int64_t)p->header.start_time_ns;
	if (p->have_trailer)
		w.prof.duration_nanos = (int64_t)p->trailer.duration_ns;
	w.prof.string_table = w.s.v;
	w.prof.n_string_table = w.s.n;
	len = perftools__profiles__profile__get_packed_size(&w.prof);
	buf = xmalloc(len ? len : 1);
	perftools__profiles__profile__pack(&w.prof, buf);
	ret = write_gzip(f, buf, len);
	free(buf);
	strtab_release(&w.s);
	fn_table_release(&w.fns);
	free(w.types);
	free(w.type_ptrs);
	free(w.samples);
	free(w.sample_ptrs);
	free(w.ids);
	free(w.vals);
	free(w.used);
	free(w.mappings);
	free(w.mapping_ptrs);
	free(w.mapping_id);
	free(w.locations);
	free(w.location_ptrs);
	free(w.lines);
	free(w.line_ptrs);
	free(w.functions);
	free(w.function_ptrs);
	free(w.comments);
	free(w.data_loc);
	free(w.labels);
	free(w.label_ptrs);
	free(w.dlocations);
	free(w.dlines);
	free(w.dline_ptrs);
	free(w.dfunctions);
	return ret;
}
