/* symbolize.c - libdwfl per DSO: symbol table names, line table rows, inline frames. */
#include "symbolize.h"

#include "demangle.h"
#include "dso.h"
#include "dwarf_index.h"
#include "fnv.h"
#include "grow.h"
#include "idindex.h"
#include "inflate.h"
#include "strpool.h"
#include "symtab.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* dso_sym.dwarf when memory ran out reading it (read_dwarf()). */
#define DWARF_NOMEM (-2)

struct dso_sym {
	Dwfl_Callbacks cb;    /* libdwfl keeps a pointer: lives as long as the Dwfl */
	char *debuginfo_path; /* libdwfl's search list, see libdwfl.h */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct inflated inflated; /* the debug file's sections inflated (inflate.h) */
	bool build_id_only;	  /* debug info looked for by build-id only */
	const struct dso *dso;	  /* what was opened (dso_sym_open()'s D) */
	int debug_fd;		  /* a debug file given to libdwfl as it is (an inflated
				   * copy, reopen_inflated()), or -1 */
	char *debug_name;	  /* the name that copy stands for */
	dev_t rejected_dev;	  /* a debug file found damaged, left out of the search */
	ino_t rejected_ino;	  /* (0 0: none) */
	char *damaged_seen;	  /* that file's damage, said when no other file was found */
	char skipped[4096];	  /* a candidate debug file not opened (not regular), or "" */
	struct symtab symtab;	  /* built at open */
	struct dwarf_index index; /* built when the DWARF is read (read_dwarf()) */
	int dwarf;		  /* 0: not looked for yet, 1: read, -1: none found, DWARF_NOMEM */
	const char **dirs;	  /* the caller's --debug-dir list (not copied) */
	size_t ndirs;
	struct scoped_name *scoped; /* qualified names made by scoped_name(), by DIE offset */
	size_t nscoped, capscoped;
	struct fn_info *fns; /* function DIEs' names (fn_info()), found by DIE through FNS_INDEX */
	size_t nfns, capfns;
	uint32_t *fns_index; /* idindex.h slots, or NULL before the first */
	size_t fns_icap;
	struct path_memo *paths; /* source_path()'s answers (joined_path()), through PATHS_INDEX */
	size_t npaths, cappaths;
	uint32_t *paths_index; /* idindex.h slots, or NULL before the first */
	size_t paths_icap;
};

/* source_path(DIR, FILE) kept: libdw's strings (a line table's file names, DW_AT_comp_dir)
 * stay put while the Dwarf lives, so their pointers are the key, and the join and fold of the
 * same few paths was a sixth of a report's time. */
struct path_memo {
	const char *dir, *file;
	const struct strpool *pool;
	const char *path;
};

/* A function DIE's names and declaration, kept: most addresses share their functions, and a
 * name is a demangling and perhaps a walk of the CU (scoped_name). */
struct fn_info {
	uintptr_t die; /* Dwarf_Die.addr (unique, see scoped_name) */
	const char *function, *linkage, *decl_file;
	int decl_line;
};

/* A name qualified through the DIE tree, kept: finding a DIE's scopes walks its CU. */
struct scoped_name {
	uintptr_t die;	  /* the declaration's DIE data (Dwarf_Die.addr): unique across the main
			   * file, a .dwo and a dwz file, where offsets repeat */
	const char *name; /* NULL: the declaration has no enclosing scope */
};

void dso_sym_free(struct dso_sym *s)
{
	if (!s)
		return;
	free(s->scoped);
	free(s->fns);
	free(s->fns_index);
	free(s->paths);
	free(s->paths_index);
	if (s->dwfl)
		dwfl_end(s->dwfl);
	inflated_free(&s->inflated);
	if (s->debug_fd >= 0)
		close(s->debug_fd);
	free(s->debug_name);
	free(s->damaged_seen);
	symtab_release(&s->symtab);
	dwarf_index_release(&s->index);
	free(s->debuginfo_path);
	free(s);
}

/* The --debug-dir directories first (the user's word wins), then libdwfl's defaults: the
 * file's own directory, its .debug subdirectory, /usr/lib/debug. */
static char *search_path(const char **dirs, size_t ndirs)
{
	static const char defaults[] = ":.debug:/usr/lib/debug";
	size_t len = sizeof(defaults);
	char *p;

	for (size_t i = 0; i < ndirs; i++)
		len += strlen(dirs[i]) + 1;
	p = malloc(len);
	if (!p)
		return NULL;
	p[0] = '\0';
	for (size_t i = 0; i < ndirs; i++) {
		strcat(p, dirs[i]);
		strcat(p, ":");
	}
	/* Without user dirs the list starts with the empty entry (the file's directory). */
	strcat(p, ndirs ? defaults + 1 : defaults);
	if (ndirs)
		strcat(p, ":");
	return p;
}

/* Whether PATH is there as something other than a regular file (a FIFO, a device, a
 * directory): libdwfl opens a candidate debug file to read it, and the open of a FIFO waits
 * for a writer forever. */
static bool not_regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

/* A debug file's name under a directory of the search path for build-id HEX (40 hex digits
 * at most): ".build-id/xx/rest.debug", into BUF (room for 64 bytes). */
static void build_id_name(const char *hex, char *buf)
{
	snprintf(buf, 64, ".build-id/%.2s/%.38s.debug", hex, hex + 2);
}

/* The names libdwfl's search looks for one module by: its build-id in hex ("" none), its
 * main file's directory, the debug link name (.gnu_debuglink, else the file's name +
 * ".debug"), and the file's own name when there is no .gnu_debuglink (else NULL). */
struct debug_names {
	char hex[41];
	char filedir[4096];
	char link[1024];
	const char *base;
	dev_t rejected_dev; /* a file found damaged (dso_sym's), also left out */
	ino_t rejected_ino;
};

/* Whether DIR/SUB/NAME ("" parts left out) is there and is not a regular file, or is the
 * damaged file N rejects; the path goes into BAD (LEN bytes). A path over LEN names no file
 * libdwfl could open. */
static bool candidate_unsafe(const struct debug_names *n, const char *dir, int dirlen,
			     const char *sub, const char *name, char *bad, size_t len)
{
	int r = snprintf(bad, len, "%.*s%s%s/%s", dirlen, dir, *sub ? "/" : "", sub, name);
	struct stat st;

	if (r <= 0 || (size_t)r >= len || stat(bad, &st) != 0)
		return false;
	return !S_ISREG(st.st_mode) ||
	       (n->rejected_ino && st.st_dev == n->rejected_dev && st.st_ino == n->rejected_ino);
}

/* Whether the search-path entry DIR (LEN bytes) would have libdwfl 0.188 open a path that is
 * not a regular file for the module named by N. Found by watching its opens: an absolute
 * entry, its .build-id file, then the link name (and the file's name) under DIR + each tail
 * of the file's directory down to DIR itself; a relative one, under FILEDIR/DIR, then in
 * FILEDIR; the empty one, in FILEDIR. BAD (BADLEN bytes) gets the path. */
static bool entry_unsafe(const char *dir, size_t len, const struct debug_names *n, char *bad,
			 size_t badlen)
{
	int dl = (int)len;

	if (!len)
		return candidate_unsafe(n, n->filedir, (int)strlen(n->filedir), "", n->link, bad,
					badlen);
	if (dir[0] != '/') {
		char sub[4096];

		snprintf(sub, sizeof(sub), "%.*s", dl, dir);
		return candidate_unsafe(n, n->filedir, (int)strlen(n->filedir), sub, n->link, bad,
					badlen) ||
		       (n->base && candidate_unsafe(n, n->filedir, (int)strlen(n->filedir), sub,
						    n->base, bad, badlen)) ||
		       candidate_unsafe(n, n->filedir, (int)strlen(n->filedir), "", n->link, bad,
					badlen);
	}
	if (n->hex[0]) {
		char id[64];

		build_id_name(n->hex, id);
		if (candidate_unsafe(n, dir, dl, "", id, bad, badlen))
			return true;
	}
	for (const char *sub = n->filedir + (n->filedir[0] == '/');;) {
		const char *next = strchr(sub, '/');

		if (candidate_unsafe(n, dir, dl, sub, n->link, bad, badlen) ||
		    (n->base && candidate_unsafe(n, dir, dl, sub, n->base, bad, badlen)))
			return true;
		if (!*sub)
			return false;
		sub = next ? next + 1 : "";
	}
}

/* S's search path without the entries that would have libdwfl open a FIFO or another file
 * that is not regular (entry_unsafe()) for MOD, whose main file is FILE and debug link LINK
 * (NULL: none). The first such path goes into S->skipped. Returns whether an entry is left. */
static bool drop_unsafe_entries(struct dso_sym *s, Dwfl_Module *mod, const char *file,
				const char *link)
{
	struct debug_names n = {.hex = ""};
	const char *slash = file ? strrchr(file, '/') : NULL, *e = s->debuginfo_path;
	const unsigned char *id;
	GElf_Addr vaddr;
	char *out = s->debuginfo_path, bad[sizeof(s->skipped)];
	int len = dwfl_module_build_id(mod, &id, &vaddr);

	if (!slash || !out)
		return true;
	if (len >= 2 && len <= 20)
		dso_build_id_hex(id, (size_t)len, n.hex);
	snprintf(n.filedir, sizeof(n.filedir), "%.*s", (int)(slash - file), file);
	snprintf(n.link, sizeof(n.link), "%s%s", link ? link : slash + 1, link ? "" : ".debug");
	n.base = link ? NULL : slash + 1;
	n.rejected_dev = s->rejected_dev;
	n.rejected_ino = s->rejected_ino;
	for (;;) {
		size_t l = strcspn(e, ":");
		bool last = !e[l];

		if (entry_unsafe(e, l, &n, bad, sizeof(bad))) {
			if (!s->skipped[0] && not_regular(bad))
				snprintf(s->skipped, sizeof(s->skipped), "%s", bad);
		} else {
			memmove(out, e, l);
			out += l;
			*out++ = ':';
		}
		if (last)
			break;
		e += l + 1;
	}
	if (out == s->debuginfo_path)
		return false;
	out[-1] = '\0';
	return true;
}

/* libdwfl's standard search for separate debug info (by build-id only for the vDSO,
 * by_build_id_only()), after drop_unsafe_entries(). USERDATA holds the module's dso_sym. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, GElf_Addr base,
			  const char *file, const char *debuglink, GElf_Word crc,
			  char **debuginfo_file)
{
	struct dso_sym *s = *userdata;

	if (s->debug_fd >= 0) {
		int fd = s->debug_fd;

		*debuginfo_file = strdup(s->debug_name);
		s->debug_fd = -1;
		return fd;
	}
	/* An empty path would be libdwfl's "the file's directory": search none. */
	if (!drop_unsafe_entries(s, mod, file, debuglink)) {
		errno = 0;
		return -1;
	}
	return (s->build_id_only ? dwfl_build_id_find_debuginfo : dwfl_standard_find_debuginfo)(
	    mod, userdata, modname, base, file, debuglink, crc, debuginfo_file);
}

/* Whether S's debug file had compressed DWARF that does not inflate; WHY names the file
 * and the sections. */
static bool dso_sym_dwarf_damaged_why(struct dso_sym *s, char *why, size_t whylen)
{
	const char *debugfile = NULL, *mainfile = NULL;

	if (!s->inflated.damaged[0])
		return false;
	dwfl_module_info(s->mod, NULL, NULL, NULL, NULL, NULL, &mainfile, &debugfile);
	snprintf(why, whylen,
		 "%s: its compressed DWARF (%s) does not inflate: damaged or cut short",
		 debugfile  ? debugfile
		 : mainfile ? mainfile
			    : "?",
		 s->inflated.damaged);
	return true;
}

/* Why libdwfl found no DWARF: a build-id debug file that exists but was refused (not ELF, no
 * DWARF, another build's) is worth naming; else where it looked. */
static void explain_no_dwarf(struct dso_sym *s, const char **dirs, size_t ndirs, char *why,
			     size_t whylen)
{
	const unsigned char *id;
	GElf_Addr vaddr;
	char hex[41], name[64], path[4096];
	const char *debugfile = NULL;
	int n = dwfl_module_build_id(s->mod, &id, &vaddr);

	size_t off = (size_t)snprintf(why, whylen, "looked in");
	for (size_t i = 0; i < ndirs && off < whylen; i++)
		off += (size_t)snprintf(why + off, whylen - off, " %s,", dirs[i]);
	if (off < whylen)
		snprintf(why + off, whylen - off,
			 " the file's directory, its .debug/, /usr/lib/debug%s",
			 getenv("DEBUGINFOD_URLS") ? " and debuginfod" : "");
	if (dso_sym_dwarf_damaged_why(s, why, whylen))
		return;
	if (s->damaged_seen) {
		snprintf(why, whylen, "%s", s->damaged_seen);
		return;
	}
	dwfl_module_info(s->mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
	if (debugfile && inflate_has_zstd(debugfile)) {
		snprintf(why, whylen,
			 "%s: its DWARF is zstd-compressed, which libdw cannot read, and no "
			 "inflated copy of it could be made (damaged, or memory ran out); "
			 "decompress it: objcopy --decompress-debug-sections",
			 debugfile);
		return;
	}
	if (s->skipped[0]) {
		snprintf(why, whylen, "%s is not a regular file: not opened", s->skipped);
		return;
	}
	if (n < 2 || n > 20)
		return;
	dso_build_id_hex(id, (size_t)n, hex);
	build_id_name(hex, name);
	for (size_t i = 0; i <= ndirs; i++) {
		const char *dir = i < ndirs ? dirs[i] : "/usr/lib/debug";
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		if (access(path, F_OK) == 0) {
			snprintf(why, whylen,
				 "%s exists but was refused: unreadable, not ELF, "
				 "without DWARF, or from another build",
				 path);
			return;
		}
	}
}

/* Whether libdw, libelf or zlib ran out of memory since errno was cleared: they answer "no
 * line" or "no DWARF" then, and such an answer, cached, would outlive the shortage. malloc's
 * ENOMEM in errno is what tells. */
static bool ran_out(void)
{
	return errno == ENOMEM;
}

/* Whether a DWARF section of DW's file is still compressed: libdw reads on without a section
 * that libelf could not inflate (dwarf_begin_elf.c, check_section), so libc's debug file
 * whose .debug_info found no memory gives lines without functions, and no error. Inflating it
 * again tells why: ENOMEM. (A damaged section fails the same way every time and is left as
 * it is: the file's own fault, as stable as its build-id.) */
static bool inflate_ran_out(Dwarf *dw)
{
	Elf *elf = dwarf_getelf(dw);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx) < 0)
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_COMPRESSED) ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) || strncmp(name, ".debug_", 7))
			continue;
		errno = 0;
		if (elf_compress(scn, 0, 0) >= 0 || ran_out())
			return true; /* inflated now: memory was short when libdw asked */
	}
	return false;
}

/* MOD's main file as libdwfl holds it: libdw reads the DWARF from it when it has its own. */
static Elf *main_elf(Dwfl_Module *mod)
{
	GElf_Addr bias;

	return dwfl_module_getelf(mod, &bias);
}

/* The separate debug file of MOD that its symbol table was read from, as libdwfl holds it,
 * or NULL (the symbols are the main file's, or there are none). libdw's DWARF of MOD is read
 * from that same handle, so its sections inflated there ahead are read as they are. */
static Elf *symbols_elf(Dwfl_Module *mod)
{
	Elf *main = main_elf(mod);
	int n = dwfl_module_getsymtab(mod);

	for (int i = 1; i < n; i++) {
		GElf_Addr addr, sbias;
		GElf_Word shndx;
		GElf_Sym sym;
		Elf *elf = NULL;

		if (dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, &elf, &sbias) && elf)
			return elf != main ? elf : NULL;
	}
	return NULL;
}

static int begin_dwfl(struct dso_sym *s);

/* The Dwfl, symbol table and inflated buffers of OLD, a dso_sym that S replaced. */
/* Whether S's new module has OLD's build-id: a file replaced at its path since the first
 * open is another build, not to be read. */
static bool same_build(const struct dso_sym *s, const struct dso_sym *old)
{
	const unsigned char *a, *b;
	GElf_Addr va, vb;
	int na = dwfl_module_build_id(s->mod, &a, &va),
	    nb = dwfl_module_build_id(old->mod, &b, &vb);

	return na == nb && (na <= 0 || !memcmp(a, b, (size_t)na));
}

static void release_replaced(struct dso_sym *s, struct dso_sym *old)
{
	if (old->debug_name != s->debug_name)
		free(old->debug_name);
	dwfl_end(old->dwfl);
	symtab_release(&old->symtab);
	inflated_free(&old->inflated);
	/* The buffers went with the old Dwfl's Elf; what they told stays. */
	s->inflated = (struct inflated){.nomem = old->inflated.nomem};
	memcpy(s->inflated.damaged, old->inflated.damaged, sizeof(s->inflated.damaged));
}

/* S made as it was before begin_dwfl() changed it (OLD), the new Dwfl ended. */
static void restore(struct dso_sym *s, struct dso_sym *old)
{
	if (s->dwfl)
		dwfl_end(s->dwfl);
	symtab_release(&s->symtab);
	if (s->debug_fd >= 0 && s->debug_fd != old->debug_fd)
		close(s->debug_fd);
	if (s->debug_name != old->debug_name)
		free(s->debug_name);
	*s = *old;
}

/* S's Dwfl made again (the symbol table too: its names live in its Dwfl), libdwfl given FD
 * (when >= 0) as the debug file named NAME (taken). The old Dwfl stays until the new one is
 * made. Returns 0, or -1 with S as it was. */
static int reopen(struct dso_sym *s, int fd, char *name)
{
	struct dso_sym old = *s;

	s->debug_fd = fd;
	s->debug_name = name;
	if (begin_dwfl(s) < 0 || !same_build(s, &old)) {
		restore(s, &old);
		return -1;
	}
	release_replaced(s, &old);
	return 0;
}

/* When libdwfl found S's separate debug file but libdw could read no DWARF in it because its
 * sections are zstd-compressed (the debug file's Elf was not reachable to inflate ahead, as
 * the symbols are the main file's), S's Dwfl again with an inflated copy of that file
 * (inflate_copy()). Returns 0, or -1 (nothing changed). */
static int reopen_inflated(struct dso_sym *s)
{
	const char *debugfile = NULL;
	char *name;
	int fd;

	dwfl_module_info(s->mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
	if (s->debug_name || !debugfile || !inflate_has_zstd(debugfile) ||
	    !(name = strdup(debugfile)))
		return -1;
	fd = inflate_copy(name);
	if (fd < 0) {
		free(name);
		return -1;
	}
	return reopen(s, fd, name);
}

/* When the separate debug file S's symbols came from has damaged compressed DWARF
 * (inflate_debug_sections()), S's Dwfl again with that file left out of the search, kept
 * when another debug file is found (another directory may hold a good copy); else S as it
 * was, the damaged file still giving its symbols. The damage is kept to be said
 * (S->damaged_seen). Returns 0 (S has another file to read), or -1. */
static int reopen_without_damaged(struct dso_sym *s)
{
	const char *debugfile = NULL;
	struct dso_sym old;
	struct stat st;
	char why[512];

	dwfl_module_info(s->mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
	if (!s->inflated.damaged[0] || !debugfile || stat(debugfile, &st) != 0 ||
	    (st.st_ino == s->rejected_ino && st.st_dev == s->rejected_dev))
		return -1;
	if (!s->damaged_seen && dso_sym_dwarf_damaged_why(s, why, sizeof(why)))
		s->damaged_seen = strdup(why);
	old = *s;
	s->rejected_dev = st.st_dev;
	s->rejected_ino = st.st_ino;
	if (begin_dwfl(s) < 0 || !same_build(s, &old) || !symbols_elf(s->mod)) {
		restore(s, &old);
		return -1;
	}
	release_replaced(s, &old);
	/* The damage said is the left-out file's, not a reason against the new one. */
	s->inflated.damaged[0] = '\0';
	return 0;
}

/* S's DWARF (its file's or separate debug info) and the index of its functions, read once:
 * opening libc's compressed debug file inflates all its sections, which a lookup by symbol
 * only (a focused profile, profile.h) never needs. Returns 1 (S has DWARF), 0 (none found) or
 * -ENOMEM (memory ran out reading it, then and at every later call). */
static int read_dwarf(struct dso_sym *s)
{
	Dwarf_Addr bias;
	Dwarf *dw;

	if (!s->dwarf) {
		/* A damaged debug file is left out, as many times as the search finds one. */
		for (size_t tries = 0;; tries++) {
			Elf *sym = symbols_elf(s->mod);

			inflate_debug_sections(sym, &s->inflated);
			if (!sym || tries > s->ndirs + 3 || reopen_without_damaged(s) < 0)
				break;
		}
		inflate_debug_sections(main_elf(s->mod), &s->inflated);
		errno = 0;
		dw = dwfl_module_getdwarf(s->mod, &bias);
		if (!dw && !ran_out() && reopen_inflated(s) == 0) {
			inflate_debug_sections(main_elf(s->mod), &s->inflated);
			errno = 0;
			dw = dwfl_module_getdwarf(s->mod, &bias);
		}
		s->dwarf = dw ? 1 : -1;
		if (s->inflated.nomem || ran_out() || (dw && inflate_ran_out(dw)))
			s->dwarf = DWARF_NOMEM;
		errno = 0;
		dwarf_index_init(&s->index, s->mod);
		if (ran_out())
			s->dwarf = DWARF_NOMEM;
	}
	return s->dwarf == DWARF_NOMEM ? -ENOMEM : s->dwarf > 0;
}

/* Whether D's separate debug info is looked for by build-id only: the vDSO's, with no
 * debuginfod server named. It has no file name or .gnu_debuglink to search the paths by, and
 * libdwfl's standard search, finding nothing, asks debuginfod: libdw dlopens libdebuginfod
 * and its thirty libraries (curl, GnuTLS, ...) for that: 25-45 ms of a dlopen alone on this
 * 2-CPU guest, in every cold report with a vDSO sample. */
static bool by_build_id_only(const struct dso *d)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	return !strcmp(d->path, "[vdso]") && (!urls || !urls[0]);
}

/* S's Dwfl with S->dso reported in it, and its symbol table. Returns 0, -ENOMEM, or -1
 * (libdwfl refused the file: dwfl_errmsg(-1) says why). */
static int begin_dwfl(struct dso_sym *s)
{
	const char *base = strrchr(s->dso->path, '/');
	void **userdata;

	/* Nothing of a Dwfl this replaces is left here for restore() to release. */
	s->mod = NULL;
	memset(&s->symtab, 0, sizeof(s->symtab));
	s->dwfl = dwfl_begin(&s->cb);
	if (!s->dwfl)
		return -1;
	dwfl_report_begin(s->dwfl);
	/* Base 0 with add_p_vaddr: module addresses are the link-time p_vaddr space. */
	s->mod =
	    dwfl_report_elf(s->dwfl, base ? base + 1 : s->dso->path, dso_file(s->dso), -1, 0, true);
	if (dwfl_report_end(s->dwfl, NULL, NULL) != 0 || !s->mod)
		return -1;
	dwfl_module_info(s->mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = s;
	return symtab_build(&s->symtab, s->mod) < 0 ? -ENOMEM : 0;
}

int dso_sym_open(struct dso *d, const char **dirs, size_t ndirs, bool *has_dwarf, char *why,
		 size_t whylen)
{
	struct dso_sym *s = calloc(1, sizeof(*s));
	int r;

	if (has_dwarf)
		*has_dwarf = false;
	if (!s)
		goto nomem;
	s->debug_fd = -1;
	s->debuginfo_path = search_path(dirs, ndirs);
	s->build_id_only = by_build_id_only(d);
	if (!s->debuginfo_path)
		goto nomem;
	s->cb = (Dwfl_Callbacks){
	    .find_elf = dwfl_build_id_find_elf,
	    .find_debuginfo = find_debuginfo,
	    .section_address = dwfl_offline_section_address,
	    .debuginfo_path = &s->debuginfo_path,
	};
	s->dso = d;
	s->dirs = dirs;
	s->ndirs = ndirs;
	r = begin_dwfl(s);
	if (r == -ENOMEM)
		goto nomem;
	if (r < 0)
		goto fail;
	d->sym = s;
	if (has_dwarf) {
		r = read_dwarf(s);
		if (r < 0) {
			d->sym = NULL;
			goto nomem;
		}
		*has_dwarf = r;
		if (!*has_dwarf)
			explain_no_dwarf(s, dirs, ndirs, why, whylen);
	}
	return 0;
nomem:
	dso_sym_free(s);
	snprintf(why, whylen, "%s: out of memory", d->path);
	return -ENOMEM;
fail:
	snprintf(why, whylen, "%s: libdwfl cannot read it: %s", d->path, dwfl_errmsg(-1));
	dso_sym_free(s);
	return -1;
}

/* DIR/FILE with "." and ".." folded away lexically (the sources need not exist here), as
 * people and annotate's source lookup want it. */
static const char *source_path(const char *dir, const char *file, struct strpool *pool)
{
	char *buf, *out, *seg, *save = NULL;
	const char *r;
	size_t len;
	bool absolute;

	if (!file)
		return NULL;
	/* A relative comp_dir (a -fdebug-prefix-map build) is already the line table's
	 * directory 0, which libdw put in front: joining it again would double it. */
	if (file[0] == '/' || !dir || dir[0] != '/')
		dir = NULL;
	if (!dir && !strstr(file, "./"))
		return strpool_intern(pool, file);
	len = (dir ? strlen(dir) : 0) + strlen(file) + 3;
	buf = malloc(len);
	out = malloc(len);
	if (!buf || !out) {
		free(buf);
		free(out);
		return strpool_intern(pool, file);
	}
	snprintf(buf, len, "%s%s%s", dir ? dir : "", dir ? "/" : "", file);
	absolute = buf[0] == '/';
	out[0] = '\0';
	len = 0;
	for (seg = strtok_r(buf, "/", &save); seg; seg = strtok_r(NULL, "/", &save)) {
		if (!strcmp(seg, "."))
			continue;
		if (!strcmp(seg, "..") && len) {
			char *slash = strrchr(out, '/');
			*slash = '\0';
			len = (size_t)(slash - out);
			continue;
		}
		len += (size_t)sprintf(out + len, "/%s", seg);
	}
	/* A relative path stays relative (its leading ".." kept above when nothing precedes). */
	r = strpool_intern(pool, absolute ? (len ? out : "/") : out + (len ? 1 : 0));
	free(buf);
	free(out);
	return r;
}

static uint64_t path_hash(const char *dir, const char *file, const struct strpool *pool)
{
	uint64_t h = hwprof_fnv1a_word(HWPROF_FNV_BASIS, (uintptr_t)file);

	return hwprof_hash_fold(
	    hwprof_fnv1a_word(hwprof_fnv1a_word(h, (uintptr_t)dir), (uintptr_t)pool));
}

static uint64_t path_entry_hash(const void *ctx, uint32_t id)
{
	const struct path_memo *m = &((const struct dso_sym *)ctx)->paths[id];

	return path_hash(m->dir, m->file, m->pool);
}

struct path_key {
	const struct dso_sym *s;
	struct path_memo want;
};

static bool same_path(const void *ctx, uint32_t id)
{
	const struct path_key *k = ctx;
	const struct path_memo *m = &k->s->paths[id];

	return m->file == k->want.file && m->dir == k->want.dir && m->pool == k->want.pool;
}

/* source_path() through S's memo (best effort: out of memory only skips the keeping). */
static const char *joined_path(struct dso_sym *s, const char *dir, const char *file,
			       struct strpool *pool)
{
	struct path_key k = {s, {dir, file, pool, NULL}};
	const char *r;
	size_t i;

	if (!file)
		return NULL;
	if (!s->paths_icap &&
	    hwprof_index_rebuild(&s->paths_index, &s->paths_icap, 256, 0, path_entry_hash, s) < 0)
		return source_path(dir, file, pool);
	i = hwprof_index_probe(s->paths_index, s->paths_icap, path_hash(dir, file, pool), same_path,
			       &k);
	if (s->paths_index[i])
		return s->paths[s->paths_index[i] - 1].path;
	r = source_path(dir, file, pool);
	if (r && s->npaths + 1 < UINT32_MAX &&
	    hwprof_grow((void **)&s->paths, &s->cappaths, s->npaths + 1, sizeof(*s->paths)) == 0) {
		s->paths[s->npaths] = (struct path_memo){dir, file, pool, r};
		s->paths_index[i] = (uint32_t)++s->npaths;
		if (s->npaths * 2 > s->paths_icap &&
		    hwprof_index_rebuild(&s->paths_index, &s->paths_icap, 2 * s->paths_icap,
					 s->npaths, path_entry_hash, s) < 0) {
			s->paths_index[i] = 0;
			s->npaths--;
		}
	}
	return r;
}

/* The declaration an inline or concrete DIE stands for: its DW_AT_abstract_origin, then
 * that one's DW_AT_specification (an out-of-class definition names the member declared in
 * the class). */
static Dwarf_Die *declaration(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	*out = *die;
	for (int i = 0; i < 4; i++) {
		if (!dwarf_attr(out, DW_AT_abstract_origin, &a) &&
		    !dwarf_attr(out, DW_AT_specification, &a))
			break;
		if (!dwarf_formref_die(&a, out))
			return NULL;
	}
	return out;
}

/* NAME (DW_AT_name of DIE, a C++ function without a linkage name: a lambda's operator() or a
 * member of a local class) qualified by the scopes around its declaration, as the demangler
 * writes an out-of-line one: "main::<lambda(int)>::operator()". NULL when nothing encloses
 * it or on ENOMEM. */
static const char *scoped_name(struct dso_sym *s, Dwarf_Die *die, const char *name,
			       struct strpool *pool)
{
	Dwarf_Die decl, *scopes = NULL;
	struct scoped_name *v;
	uintptr_t off;
	size_t lo = 0, hi = s->nscoped, len = 0;
	const char *r = NULL;
	char buf[1024];
	int n;

	if (!declaration(die, &decl))
		return NULL;
	off = (uintptr_t)decl.addr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->scoped[mid].die == off)
			return s->scoped[mid].name;
		if (s->scoped[mid].die < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	n = dwarf_getscopes_die(&decl, &scopes);
	/* scopes[0] is DECL, the last the CU: the named ones between, outermost first, spelled
	 * as the demangler spells an out-of-line function's. */
	for (int i = n - 2; i >= 1 && len < sizeof(buf); i--) {
		int tag = dwarf_tag(&scopes[i]), line = 0;
		const char *part = dwarf_diename(&scopes[i]), *file, *slash;

		if (part && (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
			     tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
			     tag == DW_TAG_subprogram)) {
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s::", part);
		} else if (tag == DW_TAG_namespace) {
			len += (size_t)snprintf(buf + len, sizeof(buf) - len,
						"(anonymous namespace)::");
		} else if (tag == DW_TAG_class_type || tag == DW_TAG_structure_type) {
			/* g++ leaves a lambda's closure type (a structure) unnamed: where it is
			 * written tells two lambdas of one function apart, as clang's names do.
			 * (A member function of an unnamed struct is named so too.) */
			file = dwarf_decl_file(&scopes[i]);
			slash = file ? strrchr(file, '/') : NULL;
			dwarf_decl_line(&scopes[i], &line);
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "{lambda at %s:%d}::",
						slash  ? slash + 1
						: file ? file
						       : "?",
						line);
		}
	}
	free(scopes);
	if (len && len < sizeof(buf)) {
		snprintf(buf + len, sizeof(buf) - len, "%s", name);
		r = strpool_intern(pool, buf);
	}
	/* Kept whatever the answer: a function at file scope (main in a C++ file) has no
	 * scope, and asking again walks the CU for every one of its addresses. */
	if (hwprof_grow((void **)&s->scoped, &s->capscoped, s->nscoped + 1, sizeof(*v)) == 0) {
		v = s->scoped;
		memmove(v + lo + 1, v + lo, (s->nscoped - lo) * sizeof(*v));
		v[lo] = (struct scoped_name){off, r};
		s->nscoped++;
	}
	return r;
}

/* Whether DIE's own unit is C++: with split DWARF that is the split unit in the .dwo, the
 * skeleton has no DW_AT_language. */
static bool is_cxx(Dwarf_Die *die)
{
	Dwarf_Die unit;
	int lang = dwarf_diecu(die, &unit, NULL, NULL) ? dwarf_srclang(&unit) : -1;

	return lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
	       lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14;
}

/* A DIE's name for people: the linkage name demangled when there is one (C++ member
 * functions and templates carry the class and arguments only there), else DW_AT_name,
 * qualified by its scopes in C++ (scoped_name). Both followed through DW_AT_abstract_origin
 * / DW_AT_specification. */
static const char *die_name(struct dso_sym *s, Dwarf_Die *die, struct strpool *pool)
{
	Dwarf_Attribute a;
	const char *n = NULL, *r;
	char *dem;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		n = dwarf_formstring(&a);
	if (!n && dwarf_attr_integrate(die, DW_AT_name, &a)) {
		n = dwarf_formstring(&a);
		if (n && is_cxx(die) && (r = scoped_name(s, die, n, pool)))
			return r;
	}
	if (!n)
		return NULL;
	dem = demangle(n);
	r = strpool_intern(pool, dem ? dem : n);
	free(dem);
	return r;
}

/* The call site (DW_AT_call_file / DW_AT_call_line) of an inlined_subroutine DIE. */
static void call_site(struct dso_sym *s, Dwarf_Die *inl, Dwarf_Die *cu, struct strpool *pool,
		      const char **file, int *line)
{
	Dwarf_Attribute a, dir;
	Dwarf_Word idx, ln;
	Dwarf_Files *files;
	size_t nfiles;

	*file = NULL;
	*line = 0;
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &a), &ln) == 0)
		*line = (int)ln;
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &a), &idx) == 0 &&
	    dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && idx < nfiles)
		*file = joined_path(s, dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &dir)),
				    dwarf_filesrc(files, idx, NULL, NULL), pool);
}

/* The file DIE is declared in (DW_AT_decl_file), or NULL. The index is into the file list of
 * the unit holding the attribute, which for an abstract origin may not be CU (the unit the
 * lookup found). Not dwarf_decl_file(): libdw 0.188 asserts on a split unit's DIE. */
static const char *decl_file(struct dso_sym *s, Dwarf_Die *die, Dwarf_Die *cu, struct strpool *pool)
{
	Dwarf_Attribute a, dir;
	Dwarf_Word idx;
	Dwarf_Files *files;
	Dwarf_Die unit, *u = cu;
	size_t nfiles;

	if (!dwarf_attr_integrate(die, DW_AT_decl_file, &a) || dwarf_formudata(&a, &idx) != 0)
		return NULL;
	if (!cu || a.cu != cu->cu) {
		if (!dwarf_cu_die(a.cu, &unit, NULL, NULL, NULL, NULL, NULL, NULL))
			return NULL;
		u = &unit;
	}
	if (dwarf_getsrcfiles(u, &files, &nfiles) != 0 || idx >= nfiles)
		return NULL;
	return joined_path(s, dwarf_formstring(dwarf_attr(u, DW_AT_comp_dir, &dir)),
			   dwarf_filesrc(files, idx, NULL, NULL), pool);
}

static uint64_t fn_entry_hash(const void *ctx, uint32_t id)
{
	return hwprof_hash_word(((const struct dso_sym *)ctx)->fns[id].die);
}

struct fn_key {
	const struct dso_sym *s;
	uintptr_t die;
};

static bool same_fn(const void *ctx, uint32_t id)
{
	const struct fn_key *k = ctx;

	return k->s->fns[id].die == k->die;
}

/* DIE's names and declaration (interned) into *OUT, from S's cache or made and kept there
 * (best effort: out of memory only skips the keeping). CU: the unit the lookup found. */
static void fn_info(struct dso_sym *s, Dwarf_Die *die, Dwarf_Die *cu, struct strpool *pool,
		    struct fn_info *out)
{
	uintptr_t key = (uintptr_t)die->addr;
	struct fn_key k = {s, key};
	Dwarf_Attribute a;
	size_t i = 0;
	int line = 0;
	bool keep = s->fns_icap || hwprof_index_rebuild(&s->fns_index, &s->fns_icap, 256, 0,
							fn_entry_hash, s) == 0;

	if (keep) {
		i = hwprof_index_probe(s->fns_index, s->fns_icap, hwprof_hash_word(key), same_fn,
				       &k);
		if (s->fns_index[i]) {
			*out = s->fns[s->fns_index[i] - 1];
			return;
		}
	}
	*out = (struct fn_info){.die = key, .function = die_name(s, die, pool)};
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		out->linkage = strpool_intern(pool, dwarf_formstring(&a));
	out->decl_file = decl_file(s, die, cu, pool);
	if (dwarf_decl_line(die, &line) == 0)
		out->decl_line = line;
	if (!keep || s->nfns + 1 >= UINT32_MAX ||
	    hwprof_grow((void **)&s->fns, &s->capfns, s->nfns + 1, sizeof(*s->fns)) < 0)
		return;
	s->fns[s->nfns] = *out;
	s->fns_index[i] = (uint32_t)++s->nfns;
	if (s->nfns * 2 > s->fns_icap &&
	    hwprof_index_rebuild(&s->fns_index, &s->fns_icap, 2 * s->fns_icap, s->nfns,
				 fn_entry_hash, s) < 0) {
		s->fns_index[i] = 0;
		s->nfns--;
	}
}

/* R's inline chain (see struct sym_result) from the N function FRAMES at the address, the
 * line table's ROW_FILE:ROW_LINE there, and the symbol table's OUTER (RAW its own name). */
static void fill_chain(struct dso_sym *s, Dwarf_Die *frames, int n, Dwarf_Die *cu,
		       const char *row_file, int row_line, const char *outer, const char *raw,
		       struct strpool *pool, struct sym_result *r)
{
	struct fn_info fi;

	r->nchain = 0;
	if (n == 0 && !outer && !row_file)
		return;
	for (int i = 0; i < n && i < SYM_MAX_FRAMES; i++) {
		struct sym_frame *f = &r->chain[i];
		fn_info(s, &frames[i], cu, pool, &fi);
		*f = (struct sym_frame){.function = fi.function,
					.linkage = fi.linkage,
					.decl_file = fi.decl_file,
					.decl_line = fi.decl_line};
		if (i == 0) {
			f->file = row_file;
			f->line = row_line;
		} else {
			call_site(s, &frames[i - 1], cu, pool, &f->file, &f->line);
		}
	}
	r->nchain = n ? (n < SYM_MAX_FRAMES ? n : SYM_MAX_FRAMES) : 1;
	if (!n)
		r->chain[0] = (struct sym_frame){.file = row_file, .line = row_line};
	/* The real function is the one the symbol table names, as in the flat view. */
	if (outer) {
		r->chain[r->nchain - 1].function = outer;
		if (raw)
			r->chain[r->nchain - 1].linkage = raw;
	}
}

int dso_sym_lookup(struct dso *d, uint64_t addr, enum inline_mode mode, struct strpool *pool,
		   struct sym_result *r)
{
	struct dso_sym *s = d->sym;
	Dwarf_Die frames[SYM_MAX_FRAMES], *cu = NULL;
	Dwarf_Addr bias = 0;
	Dwarf_Line *dl;
	Dwarf_Attribute a;
	const char *outer, *dwo, *raw = NULL, *row_file = NULL;
	int n, line = 0, row_line = 0;

	/* Not the chain: fill_chain() writes the frames it gives (1.5 KB a call otherwise). */
	memset(r, 0, offsetof(struct sym_result, chain));
	r->nchain = 0;
	if (!s)
		return 0;
	if (read_dwarf(s) < 0)
		return -ENOMEM;
	errno = 0;
	outer = symtab_find(&s->symtab, addr, pool, &raw);
	n = dwarf_index_frames(&s->index, addr, frames, SYM_MAX_FRAMES, &cu, &bias, &r->shadowed,
			       &dwo);
	if (dwo)
		r->missing_dwo =
		    source_path(dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a)), dwo, pool);
	if (cu && !r->shadowed) {
		dl = dwarf_getsrc_die(cu, addr - bias);
		const char *f = dl ? dwarf_linesrc(dl, NULL, NULL) : NULL;
		if (f && dwarf_lineno(dl, &line) == 0) {
			row_file = joined_path(
			    s, dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a)), f, pool);
			row_line = line;
		}
	}
	/* No CU: no line. (libdwfl's own dwfl_module_getsrc would ask the same .debug_aranges
	 * that dwarf_index_frames has already found wanting.) Without the split unit, whether
	 * ADDR was inlined is unknown: its line is right for the callee view, a call site is
	 * not known for the caller view. */
	if (!(dwo && mode == INLINE_CALLER)) {
		r->file = row_file;
		r->line = row_line;
	}
	fill_chain(s, frames, n, cu, row_file, row_line, outer, raw, pool, r);
	if (ran_out())
		return -ENOMEM;
	/* No symbol (a static function of a file whose symbols are gone while its DWARF is
	 * not): the DWARF subprogram's name (the chain's last frame then). */
	if (!outer && n > 0)
		outer = r->chain[r->nchain - 1].function;
	r->function = outer;
	if (n < 2)
		return 0;
	/* frames[0] is the innermost inline frame, frames[n - 2] the outermost one, whose call
	 * site lies in the real function frames[n - 1]: the chain's last line. */
	r->call_file = r->chain[r->nchain - 1].file;
	r->call_line = r->chain[r->nchain - 1].line;
	if (mode == INLINE_CALLER) {
		r->file = r->call_file;
		r->line = r->call_line;
		return 0;
	}
	r->function = r->chain[0].function;
	if (!r->function)
		r->function = outer;
	/* The real function, not an intermediate inline frame: the one the symbol table and
	 * the call site (call_file:call_line) belong to. */
	r->inlined_into = outer;
	return 0;
}

void dso_sym_lookup_symbol(struct dso *d, uint64_t addr, struct strpool *pool, struct sym_result *r)
{
	const char *raw = NULL;

	memset(r, 0, offsetof(struct sym_result, chain));
	r->nchain = 0;
	if (!d->sym)
		return;
	r->function = symtab_find(&d->sym->symtab, addr, pool, &raw);
	if (!r->function)
		return;
	r->chain[0] = (struct sym_frame){.function = r->function, .linkage = raw};
	r->nchain = 1;
}

bool dso_sym_dwarf_damaged(struct dso *d, char *why, size_t whylen)
{
	return d->sym && dso_sym_dwarf_damaged_why(d->sym, why, whylen);
}

bool dso_sym_dwarf_missing(struct dso *d, char *why, size_t whylen)
{
	struct dso_sym *s = d->sym;

	if (!s || s->dwarf >= 0)
		return false;
	explain_no_dwarf(s, s->dirs, s->ndirs, why, whylen);
	return true;
}

bool dso_sym_dwarf_origin(struct dso *d, const char **debugfile)
{
	struct dso_sym *s = d->sym;
	const char *mainfile = NULL, *dbg = NULL, *alt;
	const void *altid;
	Dwarf_Addr bias;
	Dwarf *dw;

	*debugfile = NULL;
	if (!s || s->dwarf <= 0 || s->index.split || !(dw = dwfl_module_getdwarf(s->mod, &bias)) ||
	    dwelf_dwarf_gnu_debugaltlink(dw, &alt, &altid) != 0)
		return false;
	dwfl_module_info(s->mod, NULL, NULL, NULL, NULL, NULL, &mainfile, &dbg);
	if (dbg && (!mainfile || strcmp(dbg, mainfile)))
		*debugfile = dbg;
	return true;
}

bool dso_sym_symbol(struct dso *d, uint64_t addr, struct strpool *pool, const char **name,
		    uint64_t *start, uint64_t *size)
{
	struct fsym *f = d->sym ? symtab_at(&d->sym->symtab, addr) : NULL;

	if (!f)
		return false;
	*name = symtab_name(f, pool, NULL);
	*start = f->addr;
	*size = f->size;
	return *name != NULL;
}

Elf *dso_sym_elf(struct dso *d, uint64_t *bias)
{
	Dwarf_Addr b = 0;
	Elf *e;

	/* read_dwarf() may make the Dwfl again (reopen()): before any handle is given out. */
	if (d->sym)
		read_dwarf(d->sym);
	e = d->sym ? dwfl_module_getelf(d->sym->mod, &b) : NULL;
	*bias = b;
	return e;
}

Dwfl_Module *dso_sym_module(struct dso *d)
{
	if (d->sym)
		read_dwarf(d->sym);
	return d->sym ? d->sym->mod : NULL;
}
