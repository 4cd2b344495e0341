/* symcache.c - the symbolization cache's files: read whole, checked, written by rename.
 *
 * A file is a header, the entries sorted by address, their inline frames, a string table and
 * a checksum:
 *
 *   header (struct file_header, 128 bytes) | entries (48 bytes each) | frames (24 bytes each)
 *   | strings (NUL-terminated, offset 0 is "", padded with NULs to 8 bytes) | checksum (u64)
 *
 * Native byte order and layout (a cache is this machine's); the magic's version byte changes
 * with the layout, and the hwprof build-id in the header with any change to the code that
 * makes the answers. A string offset 0 stands for NULL: dso_sym_lookup() never gives "". The
 * checksum is FNV-1a (fnv.h) word by word over everything before it. Every offset and count
 * is checked when the file is read, so a lookup never reads out of it.
 */
#include "symcache.h"

#include "buildid.h"
#include "dso.h"
#include "fnv.h"
#include "grow.h"
#include "strpool.h"
#include "symbolize.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC	    "HWPSYMC\001"
#define MAX_ENTRIES (1u << 22)

/* A file's identity: what a rebuild or a replacement changes. */
struct file_id {
	uint64_t size, mtime_ns, ino;
};

struct file_header {
	char magic[8];
	uint32_t mode;	  /* enum inline_mode */
	uint8_t self_len; /* hwprof's build-id */
	uint8_t dso_len;  /* the DSO's recorded build-id */
	uint8_t pad[2];
	uint8_t self_id[20];
	uint8_t dso_id[20];
	uint64_t dirs_hash;	  /* the --debug-dir list and DEBUGINFOD_URLS */
	struct file_id main_file; /* the DSO's file */
	struct file_id debug;	  /* the separate debug file, when DEBUG_PATH */
	uint32_t debug_path;	  /* string offset; 0: the DWARF is the DSO file's own */
	uint32_t nents, nframes, nstrings;
};

struct file_ent {
	uint64_t addr;
	uint32_t function, inlined_into, file, call_file, missing_dwo;
	int32_t line, call_line;
	uint32_t shadowed;
	uint32_t first_frame, nchain;
};

struct file_frame {
	uint32_t function, linkage, decl_file, file;
	int32_t decl_line, line;
};

_Static_assert(sizeof(struct file_header) == 128, "file header layout");
_Static_assert(sizeof(struct file_ent) == 48, "entry layout");
_Static_assert(sizeof(struct file_frame) == 24, "frame layout");

/* An answer made by this report, before it is written. */
struct new_ent {
	uint64_t addr;
	const char *function, *inlined_into, *file, *call_file, *missing_dwo;
	int line, call_line;
	bool shadowed;
	size_t first_frame, nchain; /* into symcache.frames */
};

struct symcache {
	char *path; /* the cache file */
	struct file_header want;
	/* The file read, when valid. */
	char *buf;
	const struct file_ent *ents;
	const struct file_frame *frames;
	const char *strings;
	size_t nents, nframes, nstrings;
	/* New answers. */
	struct new_ent *adds;
	size_t nadds, capadds;
	struct sym_frame *fv;
	size_t nfv, capfv;
};

/* ---- keys --------------------------------------------------------------------------------*/

static struct {
	pthread_once_t once;
	uint8_t id[20];
	size_t n;
} self = {.once = PTHREAD_ONCE_INIT};

/* hwprof's own build-id, read the one way the tree reads them (buildid.h); none when it was
 * linked without one: then nothing is cached. */
static void find_self(void)
{
	int n = buildid_read("/proc/self/exe", self.id);

	self.n = n > 0 ? (size_t)n : 0;
}

static bool file_id_of(const char *path, struct file_id *id)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return false;
	*id = (struct file_id){(uint64_t)st.st_size,
			       (uint64_t)st.st_mtim.tv_sec * 1000000000ull +
				   (uint64_t)st.st_mtim.tv_nsec,
			       (uint64_t)st.st_ino};
	return true;
}

/* $XDG_CACHE_HOME/hwprof (an absolute XDG_CACHE_HOME only, as the XDG spec says), else
 * $HOME/.cache/hwprof, made when missing; NULL when neither can be. Malloc'd. */
static char *cache_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char base[4096], *dir;

	if (xdg && xdg[0] == '/')
		snprintf(base, sizeof(base), "%s", xdg);
	else if (home && home[0] == '/')
		snprintf(base, sizeof(base), "%s/.cache", home);
	else
		return NULL;
	if (mkdir(base, 0700) < 0 && errno != EEXIST)
		return NULL;
	if (asprintf(&dir, "%s/hwprof", base) < 0)
		return NULL;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		free(dir);
		return NULL;
	}
	return dir;
}

static uint64_t hash_words(uint64_t h, const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t w;

	for (; len >= 8; b += 8, len -= 8) {
		memcpy(&w, b, 8);
		h = hwprof_fnv1a_word(h, w);
	}
	for (; len; b++, len--)
		h = hwprof_fnv1a_byte(h, *b);
	return h;
}

/* ---- reading -----------------------------------------------------------------------------*/

static bool str_ok(const struct symcache *c, uint32_t off)
{
	return off < c->nstrings;
}

/* Whether the file in C->buf (LEN bytes) is one C can trust: its keys C->want's, its debug
 * file unchanged, its checksum right, every offset inside it. Sets C's views when so. */
static bool check_file(struct symcache *c, size_t len)
{
	struct file_header h;
	uint64_t sum, need;
	struct file_id now;

	if (len < sizeof(h) + 8)
		return false;
	memcpy(&h, c->buf, sizeof(h));
	if (memcmp(h.magic, c->want.magic, sizeof(h.magic)) || h.mode != c->want.mode ||
	    h.self_len != c->want.self_len || memcmp(h.self_id, c->want.self_id, h.self_len) ||
	    h.dso_len != c->want.dso_len || memcmp(h.dso_id, c->want.dso_id, h.dso_len) ||
	    h.dirs_hash != c->want.dirs_hash ||
	    memcmp(&h.main_file, &c->want.main_file, sizeof(h.main_file)))
		return false;
	need = sizeof(h) + (uint64_t)h.nents * sizeof(struct file_ent) +
	       (uint64_t)h.nframes * sizeof(struct file_frame) + h.nstrings + 8;
	if (need != len || h.nstrings == 0 || h.nstrings % 8 || h.nents > MAX_ENTRIES)
		return false;
	memcpy(&sum, c->buf + len - 8, 8);
	if (hash_words(HWPROF_FNV_BASIS, c->buf, len - 8) != sum)
		return false;
	c->ents = (const struct file_ent *)(c->buf + sizeof(h));
	c->frames = (const struct file_frame *)(c->ents + h.nents);
	c->strings = (const char *)(c->frames + h.nframes);
	c->nents = h.nents;
	c->nframes = h.nframes;
	c->nstrings = h.nstrings;
	if (c->strings[0] || c->strings[c->nstrings - 1] || !str_ok(c, h.debug_path))
		return false;
	for (size_t i = 0; i < c->nents; i++) {
		const struct file_ent *e = &c->ents[i];
		if ((i && e->addr <= c->ents[i - 1].addr) || e->nchain > SYM_MAX_FRAMES ||
		    e->first_frame > c->nframes || e->nchain > c->nframes - e->first_frame ||
		    !str_ok(c, e->function) || !str_ok(c, e->inlined_into) || !str_ok(c, e->file) ||
		    !str_ok(c, e->call_file) || !str_ok(c, e->missing_dwo))
			return false;
	}
	for (size_t i = 0; i < c->nframes; i++) {
		const struct file_frame *f = &c->frames[i];
		if (!str_ok(c, f->function) || !str_ok(c, f->linkage) || !str_ok(c, f->decl_file) ||
		    !str_ok(c, f->file))
			return false;
	}
	/* The debug file it was made from must be the one libdwfl would read now. */
	if (h.debug_path &&
	    (!file_id_of(c->strings + h.debug_path, &now) || memcmp(&now, &h.debug, sizeof(now))))
		return false;
	return true;
}

static void read_file(struct symcache *c)
{
	struct stat st;
	size_t got = 0;
	int fd = open(c->path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof(struct file_header) ||
	    (uint64_t)st.st_size > (uint64_t)MAX_ENTRIES * 1024 ||
	    !(c->buf = malloc((size_t)st.st_size)))
		goto out;
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, c->buf + got, (size_t)st.st_size - got);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (got != (size_t)st.st_size || !check_file(c, got)) {
		free(c->buf);
		c->buf = NULL;
		c->nents = c->nframes = c->nstrings = 0;
	}
out:
	close(fd);
}

struct symcache *symcache_open(const struct dso *d, enum inline_mode mode, const char **dirs,
			       size_t ndirs)
{
	struct symcache *c;
	char hex[41], *dir;
	uint64_t key;

	pthread_once(&self.once, find_self);
	if (!self.n || !d->build_id_size)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	memcpy(c->want.magic, MAGIC, sizeof(c->want.magic));
	c->want.mode = (uint32_t)mode;
	c->want.self_len = (uint8_t)self.n;
	memcpy(c->want.self_id, self.id, self.n);
	c->want.dso_len = d->build_id_size;
	memcpy(c->want.dso_id, d->build_id, d->build_id_size);
	/* Where libdwfl looks: the --debug-dir list, and debuginfod when DEBUGINFOD_URLS is
	 * set (a debug file it downloaded is not found without it). */
	c->want.dirs_hash = HWPROF_FNV_BASIS;
	for (size_t i = 0; i < ndirs; i++)
		c->want.dirs_hash =
		    hwprof_fnv1a_byte(hwprof_fnv1a_str(c->want.dirs_hash, dirs[i]), 0);
	if (getenv("DEBUGINFOD_URLS"))
		c->want.dirs_hash = hwprof_fnv1a_byte(
		    hwprof_fnv1a_str(c->want.dirs_hash, getenv("DEBUGINFOD_URLS")), 1);
	if (!file_id_of(dso_file(d), &c->want.main_file) || !(dir = cache_dir())) {
		free(c);
		return NULL;
	}
	key = hash_words(HWPROF_FNV_BASIS, &c->want, offsetof(struct file_header, dso_id));
	key = hwprof_fnv1a_word(key, c->want.dirs_hash);
	dso_build_id_hex(d->build_id, d->build_id_size, hex);
	if (asprintf(&c->path, "%s/%s-%016llx.sym", dir, hex, (unsigned long long)key) < 0)
		c->path = NULL;
	free(dir);
	if (!c->path) {
		free(c);
		return NULL;
	}
	read_file(c);
	return c;
}

static const struct file_ent *find(const struct symcache *c, uint64_t addr)
{
	size_t lo = 0, hi = c->nents;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->ents[mid].addr == addr)
			return &c->ents[mid];
		if (c->ents[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

bool symcache_has(const struct symcache *c, uint64_t addr)
{
	return find(c, addr) != NULL;
}

/* The pool's copy of the string at OFF (0: NULL) into *OUT; false on ENOMEM. */
static bool intern(const struct symcache *c, uint32_t off, struct strpool *pool, const char **out)
{
	*out = off ? strpool_intern(pool, c->strings + off) : NULL;
	return !off || *out;
}

bool symcache_get(struct symcache *c, uint64_t addr, struct strpool *pool, struct sym_result *r)
{
	const struct file_ent *e = c ? find(c, addr) : NULL;
	bool ok;

	if (!e)
		return false;
	memset(r, 0, offsetof(struct sym_result, chain));
	ok = intern(c, e->function, pool, &r->function) &&
	     intern(c, e->inlined_into, pool, &r->inlined_into) &&
	     intern(c, e->file, pool, &r->file) && intern(c, e->call_file, pool, &r->call_file) &&
	     intern(c, e->missing_dwo, pool, &r->missing_dwo);
	r->line = e->line;
	r->call_line = e->call_line;
	r->shadowed = e->shadowed != 0;
	r->nchain = (int)e->nchain;
	for (uint32_t i = 0; ok && i < e->nchain; i++) {
		const struct file_frame *f = &c->frames[e->first_frame + i];
		struct sym_frame *o = &r->chain[i];
		ok = intern(c, f->function, pool, &o->function) &&
		     intern(c, f->linkage, pool, &o->linkage) &&
		     intern(c, f->decl_file, pool, &o->decl_file) &&
		     intern(c, f->file, pool, &o->file);
		o->decl_line = f->decl_line;
		o->line = f->line;
	}
	return ok;
}

int symcache_put(struct symcache *c, uint64_t addr, const struct sym_result *r)
{
	size_t n = r->nchain > 0 ? (size_t)r->nchain : 0;

	if (hwprof_grow((void **)&c->adds, &c->capadds, c->nadds + 1, sizeof(*c->adds)) < 0 ||
	    hwprof_grow((void **)&c->fv, &c->capfv, c->nfv + n, sizeof(*c->fv)) < 0)
		return -ENOMEM;
	if (n) /* no frames (no symbol there): c->fv may still be NULL */
		memcpy(c->fv + c->nfv, r->chain, n * sizeof(*r->chain));
	c->adds[c->nadds++] = (struct new_ent){addr,
					       r->function,
					       r->inlined_into,
					       r->file,
					       r->call_file,
					       r->missing_dwo,
					       r->line,
					       r->call_line,
					       r->shadowed,
					       c->nfv,
					       n};
	c->nfv += n;
	return 0;
}

/* ---- writing -----------------------------------------------------------------------------*/

/* The string table being written: each distinct string once. */
struct strtab {
	char *v;
	size_t n, cap;
	uint32_t *slots; /* offsets into V; 0 empty */
	size_t scap;	 /* a power of two */
	size_t nslots;
	bool failed;
};

static bool strtab_grow_slots(struct strtab *t)
{
	size_t cap = t->scap ? t->scap * 2 : 1024;
	uint32_t *s = calloc(cap, sizeof(*s));

	if (!s)
		return false;
	for (size_t i = 0; i < t->scap; i++) {
		if (!t->slots[i])
			continue;
		size_t j = hwprof_fnv1a_str(HWPROF_FNV_BASIS, t->v + t->slots[i]) & (cap - 1);
		while (s[j])
			j = (j + 1) & (cap - 1);
		s[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = s;
	t->scap = cap;
	return true;
}

/* S's offset in T (0 for NULL); adds it when new. Sets T->failed on ENOMEM or overflow. */
static uint32_t strtab_add(struct strtab *t, const char *s)
{
	size_t len, i;

	if (!s || t->failed)
		return 0;
	if ((t->nslots + 1) * 2 > t->scap && !strtab_grow_slots(t)) {
		t->failed = true;
		return 0;
	}
	for (i = hwprof_fnv1a_str(HWPROF_FNV_BASIS, s) & (t->scap - 1); t->slots[i];
	     i = (i + 1) & (t->scap - 1))
		if (!strcmp(t->v + t->slots[i], s))
			return t->slots[i];
	len = strlen(s) + 1;
	if (t->n + len + 8 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 65536;
		while (cap < t->n + len + 8)
			cap *= 2;
		char *v = cap < UINT32_MAX ? realloc(t->v, cap) : NULL;
		if (!v) {
			t->failed = true;
			return 0;
		}
		t->v = v;
		t->cap = cap;
	}
	memcpy(t->v + t->n, s, len);
	t->slots[i] = (uint32_t)t->n;
	t->nslots++;
	t->n += len;
	return t->slots[i];
}

static int by_addr(const void *a, const void *b)
{
	const struct new_ent *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The old file's string at OFF (NULL for 0). */
static const char *old_str(const struct symcache *c, uint32_t off)
{
	return off ? c->strings + off : NULL;
}

static void put_old(struct symcache *c, struct strtab *t, const struct file_ent *e,
		    struct file_ent *out, struct file_frame *frames, size_t *nframes)
{
	*out = (struct file_ent){e->addr,
				 strtab_add(t, old_str(c, e->function)),
				 strtab_add(t, old_str(c, e->inlined_into)),
				 strtab_add(t, old_str(c, e->file)),
				 strtab_add(t, old_str(c, e->call_file)),
				 strtab_add(t, old_str(c, e->missing_dwo)),
				 e->line,
				 e->call_line,
				 e->shadowed,
				 (uint32_t)*nframes,
				 e->nchain};
	for (uint32_t i = 0; i < e->nchain; i++) {
		const struct file_frame *f = &c->frames[e->first_frame + i];
		frames[(*nframes)++] = (struct file_frame){strtab_add(t, old_str(c, f->function)),
							   strtab_add(t, old_str(c, f->linkage)),
							   strtab_add(t, old_str(c, f->decl_file)),
							   strtab_add(t, old_str(c, f->file)),
							   f->decl_line,
							   f->line};
	}
}

static void put_new(struct symcache *c, struct strtab *t, const struct new_ent *e,
		    struct file_ent *out, struct file_frame *frames, size_t *nframes)
{
	*out = (struct file_ent){e->addr,
				 strtab_add(t, e->function),
				 strtab_add(t, e->inlined_into),
				 strtab_add(t, e->file),
				 strtab_add(t, e->call_file),
				 strtab_add(t, e->missing_dwo),
				 e->line,
				 e->call_line,
				 e->shadowed,
				 (uint32_t)*nframes,
				 (uint32_t)e->nchain};
	for (size_t i = 0; i < e->nchain; i++) {
		const struct sym_frame *f = &c->fv[e->first_frame + i];
		frames[(*nframes)++] = (struct file_frame){strtab_add(t, f->function),
							   strtab_add(t, f->linkage),
							   strtab_add(t, f->decl_file),
							   strtab_add(t, f->file),
							   f->decl_line,
							   f->line};
	}
}

static bool write_all(int fd, const void *p, size_t len)
{
	const char *b = p;

	while (len) {
		ssize_t w = write(fd, b, len);
		if (w <= 0)
			return false;
		b += w;
		len -= (size_t)w;
	}
	return true;
}

struct cache_file {
	char *name;
	uint64_t size;
	struct timespec mtime;
};

static int by_mtime(const void *a, const void *b)
{
	const struct cache_file *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : x->mtime.tv_nsec > y->mtime.tv_nsec;
}

/* Keeps the cache files of DIR under the bound, the least recently used removed first, never
 * KEEP (the file just written). */
static void evict(const char *dir, const char *keep)
{
	const char *env = getenv("HWPROF_CACHE_MAX_BYTES");
	uint64_t max = env && *env ? strtoull(env, NULL, 10) : SYMCACHE_MAX_BYTES, total = 0;
	struct cache_file *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *dp = opendir(dir);
	int dfd;

	if (!dp)
		return;
	dfd = dirfd(dp);
	while ((de = readdir(dp))) {
		size_t len = strlen(de->d_name);
		struct stat st;
		if (len < 5 || strcmp(de->d_name + len - 4, ".sym") ||
		    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
			continue;
		total += (uint64_t)st.st_size;
		if (!strcmp(de->d_name, keep))
			continue;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct cache_file *nv = realloc(v, ncap * sizeof(*nv));
			if (!nv)
				break;
			v = nv;
			cap = ncap;
		}
		v[n].name = strdup(de->d_name);
		if (!v[n].name)
			break;
		v[n].size = (uint64_t)st.st_size;
		v[n].mtime = st.st_mtim;
		n++;
	}
	if (total > max && n) {
		qsort(v, n, sizeof(*v), by_mtime);
		for (size_t i = 0; i < n && total > max; i++)
			if (unlinkat(dfd, v[i].name, 0) == 0)
				total -= v[i].size;
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	closedir(dp);
}

/* Merges C's old entries and its new ones (sorted by address) into ENTS and FRAMES
 * (*NFRAMES of them), their strings into T. Returns the number of entries. */
static size_t merge_entries(struct symcache *c, struct strtab *t, struct file_ent *ents,
			    struct file_frame *frames, size_t *nframes)
{
	size_t n = 0, i = 0, k = 0;

	while (i < c->nents || k < c->nadds) {
		bool take_new =
		    k < c->nadds && (i >= c->nents || c->adds[k].addr <= c->ents[i].addr);

		if (!take_new) {
			put_old(c, t, &c->ents[i++], &ents[n++], frames, nframes);
			continue;
		}
		/* An old answer for the address (not expected: it was looked up because it
		 * was missing) gives way to the new one; two lookups of one address give one
		 * entry. */
		if (i < c->nents && c->ents[i].addr == c->adds[k].addr)
			i++;
		if (!n || ents[n - 1].addr != c->adds[k].addr)
			put_new(c, t, &c->adds[k], &ents[n++], frames, nframes);
		k++;
	}
	return n;
}

/* Writes H, the N ENTS, the NFRAMES FRAMES, T's strings and their checksum into a new file
 * beside c->path, renamed over it; then evicts the directory's oldest files. What fails
 * leaves no file behind. */
static void write_out(struct symcache *c, const struct file_header *h, const struct file_ent *ents,
		      size_t n, const struct file_frame *frames, size_t nframes,
		      const struct strtab *t)
{
	const char *slash = strrchr(c->path, '/');
	char *tmp = NULL;
	uint64_t sum;
	int fd;

	if (asprintf(&tmp, "%.*s/.tmp-XXXXXX", (int)(slash - c->path), c->path) < 0)
		return;
	fd = mkstemp(tmp);
	if (fd < 0) {
		free(tmp);
		return;
	}
	sum = hash_words(HWPROF_FNV_BASIS, h, sizeof(*h));
	sum = hash_words(sum, ents, n * sizeof(*ents));
	sum = hash_words(sum, frames, nframes * sizeof(*frames));
	sum = hash_words(sum, t->v, t->n);
	if (write_all(fd, h, sizeof(*h)) && write_all(fd, ents, n * sizeof(*ents)) &&
	    write_all(fd, frames, nframes * sizeof(*frames)) && write_all(fd, t->v, t->n) &&
	    write_all(fd, &sum, sizeof(sum)) && close(fd) == 0) {
		fd = -1;
		if (rename(tmp, c->path) == 0) {
			char *dir = strndup(c->path, (size_t)(slash - c->path));
			if (dir)
				evict(dir, slash + 1);
			free(dir);
		} else
			unlink(tmp);
	} else {
		unlink(tmp);
	}
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	free(tmp);
}

/* C's old entries and its new ones, merged by address, into a new file renamed over C's. */
static void write_file(struct symcache *c, struct dso *d)
{
	struct file_header h = c->want;
	struct strtab t = {0};
	struct file_ent *ents = NULL;
	struct file_frame *frames = NULL;
	const char *debugfile = NULL;
	size_t n, nframes = 0, nall = c->nents + c->nadds;

	if (!dso_sym_dwarf_origin(d, &debugfile) || nall > MAX_ENTRIES)
		return;
	if (debugfile && !file_id_of(debugfile, &h.debug))
		return;
	qsort(c->adds, c->nadds, sizeof(*c->adds), by_addr);
	ents = malloc((nall ? nall : 1) * sizeof(*ents));
	frames = malloc((c->nframes + c->nfv + 1) * sizeof(*frames));
	if (!ents || !frames)
		goto out;
	/* Offset 0: the empty string, which stands for NULL. */
	t.v = malloc(t.cap = 65536);
	if (!t.v)
		goto out;
	t.v[t.n++] = '\0';
	h.debug_path = strtab_add(&t, debugfile);
	n = merge_entries(c, &t, ents, frames, &nframes);
	while (t.n % 8 && !t.failed)
		t.v[t.n++] = '\0'; /* strtab_add() keeps 8 bytes of room */
	if (t.failed)
		goto out;
	h.nents = (uint32_t)n;
	h.nframes = (uint32_t)nframes;
	h.nstrings = (uint32_t)t.n;
	write_out(c, &h, ents, n, frames, nframes, &t);
out:
	free(ents);
	free(frames);
	free(t.v);
	free(t.slots);
}

void symcache_close(struct symcache *c, struct dso *d)
{
	if (!c)
		return;
	if (c->nadds && d)
		write_file(c, d);
	else if (c->nents)
		utimensat(AT_FDCWD, c->path, NULL, 0); /* used: last to be evicted */
	free(c->path);
	free(c->buf);
	free(c->adds);
	free(c->fv);
	free(c);
}
