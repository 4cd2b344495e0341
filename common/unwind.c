/* unwind.c - unwinding copied user stacks with libdwfl (see unwind.h).
 *
 * One Dwfl per process, built when its first sample comes and grown as MMAP records add
 * files (dwfl_report_begin_add keeps the modules reported before, with the CFI they parsed).
 * A mapping over an older one (a file unmapped and another mapped there: the kernel sends no
 * munmap record) or an exec makes the Dwfl stale; the next sample builds a new one.
 *
 * A module's bias comes from the file's program headers: the MMAP record says which file
 * offset (pgoff) is at which address, and the PT_LOAD holding that offset says which p_vaddr
 * it is. `start - pgoff` alone would be wrong for files whose p_vaddr differs from p_offset
 * (ld.lld's). libdwfl's dwfl_report_elf() with add_p_vaddr takes that bias as BASE.
 *
 * The thread callbacks hand libdwfl the sample's registers (set_initial_registers) and its
 * stack copy (memory_read; an address outside the copy fails, which ends the unwinding
 * there). Separate debug files are not looked for (find_debuginfo finds none): .eh_frame is
 * in every file gcc and clang build by default, and a debuginfod lookup must not stall the
 * recorder. A file's own .debug_frame is still used.
 */
#include "unwind.h"
#include "grow.h"

#include <errno.h>
#include <elfutils/libdwfl.h>
#include <linux/perf_event.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The queued copy (unwind_pack): this head, then u64 kernel[nr_kernel], then the registers
 * (nregs u64), then the stack bytes. */
struct blob_head {
	uint32_t nr_kernel;
	uint32_t nregs;
	uint64_t abi;
	uint64_t mask;
	uint64_t stack_size;
};

struct umod {
	char *path;
	uint64_t start, end; /* the executable mapping */
	uint64_t bias;	     /* load address - p_vaddr */
};

struct uproc {
	uint32_t pid;
	struct umod *mods;
	size_t nmods, cap;
	Dwfl *dwfl;	  /* NULL: none built yet, or stale */
	size_t nreported; /* mods[0, nreported) went to DWFL */
	bool attached;	  /* dwfl_attach_state() done on DWFL */
	/* The sample being unwound. */
	const uint64_t *dwarf;
	const unsigned char *stack;
	uint64_t sp, stack_size;
	bool read_outside; /* memory_read was asked for an address outside the copy */
};

struct nocfi {
	char *path;
	uint64_t stacks;
};

struct unwind {
	struct uproc **procs;
	size_t nprocs, cap;
	struct uproc *last; /* the last one looked up */
	Dwfl_Callbacks callbacks;
	struct unwind_stats stats;
	struct nocfi *nocfi;
	size_t nnocfi, capnocfi;
};

/* ---- the queued copy ---------------------------------------------------------------------- */

int unwind_pack(const struct callchain_stack *kernel, const struct unwind_ustack *u, void **out,
		size_t *len)
{
	struct blob_head h = {
	    .nr_kernel = kernel ? kernel->nr_kernel : 0,
	    .nregs = u->nregs,
	    .abi = u->abi,
	    .mask = u->mask,
	    .stack_size = u->stack ? u->size : 0,
	};
	size_t n = sizeof(h) + (size_t)h.nr_kernel * 8 + (size_t)h.nregs * 8 + h.stack_size;
	unsigned char *p = malloc(n);

	if (!p)
		return -ENOMEM;
	*out = p;
	*len = n;
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	if (h.nr_kernel)
		memcpy(p, kernel->ips, (size_t)h.nr_kernel * 8);
	p += (size_t)h.nr_kernel * 8;
	if (h.nregs)
		memcpy(p, u->regs, (size_t)h.nregs * 8);
	p += (size_t)h.nregs * 8;
	if (h.stack_size)
		memcpy(p, u->stack, h.stack_size);
	return 0;
}

/* ---- processes and their mappings --------------------------------------------------------- */

static struct uproc *find_proc(struct unwind *u, uint32_t pid)
{
	if (u->last && u->last->pid == pid)
		return u->last;
	for (size_t i = 0; i < u->nprocs; i++)
		if (u->procs[i]->pid == pid)
			return u->last = u->procs[i];
	return NULL;
}

static struct uproc *add_proc(struct unwind *u, uint32_t pid)
{
	struct uproc *p = find_proc(u, pid);

	if (p)
		return p;
	if (hwprof_grow((void **)&u->procs, &u->cap, u->nprocs + 1, sizeof(*u->procs)) < 0)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	u->procs[u->nprocs++] = p;
	return u->last = p;
}

static void drop_dwfl(struct uproc *p)
{
	dwfl_end(p->dwfl);
	p->dwfl = NULL;
	p->nreported = 0;
	p->attached = false;
}

static void clear_mods(struct uproc *p)
{
	for (size_t i = 0; i < p->nmods; i++)
		free(p->mods[i].path);
	p->nmods = 0;
	drop_dwfl(p);
}

static void free_proc(struct unwind *u, uint32_t pid)
{
	for (size_t i = 0; i < u->nprocs; i++) {
		struct uproc *p = u->procs[i];

		if (p->pid != pid)
			continue;
		clear_mods(p);
		free(p->mods);
		free(p);
		u->procs[i] = u->procs[--u->nprocs];
		u->last = NULL;
		return;
	}
}

/* The bias of PATH mapped with file offset PGOFF at START: the PT_LOAD that holds PGOFF
 * says which p_vaddr sits at START (see the top of the file). Returns 0, or -1 when the file
 * cannot be read or no PT_LOAD holds PGOFF. */
static int file_bias(const char *path, uint64_t start, uint64_t pgoff, uint64_t *bias)
{
	/* Not blocking: a name from a perf.data file may be a FIFO's. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), ret = -1;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n;
	struct stat st;
	GElf_Ehdr eh;
	Elf *elf;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || !gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &n) < 0)
		goto out;
	if (eh.e_type == ET_EXEC) {
		*bias = 0;
		ret = 0;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (pgoff >= (ph.p_offset & ~(uint64_t)(page - 1)) &&
		    pgoff < ph.p_offset + ph.p_filesz) {
			*bias = start - pgoff + ph.p_offset - ph.p_vaddr;
			ret = 0;
			break;
		}
	}
out:
	elf_end(elf);
	close(fd);
	return ret;
}

static int add_mapping(struct unwind *u, const struct hwprof_rec_mmap *m)
{
	uint64_t end = m->start + m->len, bias;
	struct uproc *p;
	size_t i;

	if (m->filename[0] != '/' || !m->len)
		return 0; /* [vdso], anonymous code: no file to read CFI from */
	if (!(m->prot & PROT_EXEC))
		return 0; /* a data mapping (record --data): no code */
	p = add_proc(u, m->pid);
	if (!p)
		return -ENOMEM;
	if (file_bias(m->filename, m->start, m->pgoff, &bias) < 0)
		return 0; /* unreadable: its frames end the unwinding (cut_map) */
	for (i = 0; i < p->nmods; i++) {
		struct umod *o = &p->mods[i];

		if (o->bias == bias && !strcmp(o->path, m->filename))
			return 0; /* another executable mapping of the same module */
		if (m->start < o->end && o->start < end)
			break;
	}
	if (i < p->nmods) {
		/* Over an older mapping: that one is gone. */
		for (size_t j = i; j < p->nmods; j++) {
			struct umod *o = &p->mods[j];
			if (m->start < o->end && o->start < end) {
				free(o->path);
				p->mods[j--] = p->mods[--p->nmods];
			}
		}
		drop_dwfl(p);
	}
	if (hwprof_grow((void **)&p->mods, &p->cap, p->nmods + 1, sizeof(*p->mods)) < 0)
		return -ENOMEM;
	p->mods[p->nmods] = (struct umod){strdup(m->filename), m->start, end, bias};
	if (!p->mods[p->nmods].path)
		return -ENOMEM;
	p->nmods++;
	return 0;
}

/* A new process starts with a copy of its parent's address space. */
static int fork_proc(struct unwind *u, uint32_t pid, uint32_t ppid)
{
	struct uproc *parent, *p;

	free_proc(u, pid); /* a pid reused after a lost EXIT */
	parent = find_proc(u, ppid);
	if (!parent || !parent->nmods)
		return 0;
	p = add_proc(u, pid);
	if (!p)
		return -ENOMEM;
	p->mods = calloc(parent->nmods, sizeof(*p->mods));
	if (!p->mods)
		return -ENOMEM;
	p->cap = parent->nmods;
	for (size_t i = 0; i < parent->nmods; i++) {
		p->mods[i] = parent->mods[i];
		p->mods[i].path = strdup(parent->mods[i].path);
		if (!p->mods[i].path)
			return -ENOMEM;
		p->nmods++;
	}
	return 0;
}

int unwind_track(struct unwind *u, const struct hwprof_record *rec)
{
	struct uproc *p;

	switch (rec->type) {
	case HWPROF_REC_MMAP:
		return add_mapping(u, &rec->mmap);
	case HWPROF_REC_FORK:
		if (rec->task.pid == rec->task.ppid)
			return 0; /* a thread: same address space */
		return fork_proc(u, rec->task.pid, rec->task.ppid);
	case HWPROF_REC_COMM:
		/* The exec's MMAP records come after its COMM (the new image is mapped after
		 * the comm is set, fs/exec.c). */
		if (rec->comm.exec && (p = find_proc(u, rec->comm.pid)))
			clear_mods(p);
		return 0;
	case HWPROF_REC_EXIT:
		if (rec->task.pid == rec->task.tid)
			free_proc(u, rec->task.pid);
		return 0;
	default:
		return 0;
	}
}

/* ---- libdwfl ------------------------------------------------------------------------------ */

static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	(void)mod;
	(void)userdata;
	(void)modname;
	(void)base;
	(void)file_name;
	(void)debuglink_file;
	(void)debuglink_crc;
	(void)debuginfo_file_name;
	return -1;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
	(void)dwfl;
	(void)arg;
	(void)thread_arg;
	return 0; /* no enumeration: dwfl_getthread_frames() names the thread */
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_arg)
{
	(void)dwfl;
	(void)tid;
	*thread_arg = arg;
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct uproc *p = arg;
	uint64_t v;

	(void)dwfl;
	if (!unwind_stack_word(p->stack, p->sp, p->stack_size, addr, &v)) {
		p->read_outside = true;
		return false;
	}
	*result = v;
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct uproc *p = arg;
	Dwarf_Word regs[UNWIND_DWARF_REGS];

	for (int i = 0; i < UNWIND_DWARF_REGS; i++)
		regs[i] = p->dwarf[i];
	return dwfl_thread_state_registers(thread, 0, UNWIND_DWARF_REGS, regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
    .next_thread = next_thread,
    .get_thread = get_thread,
    .memory_read = memory_read,
    .set_initial_registers = set_initial_registers,
};

/* Makes P's Dwfl hold every mapping of P. Returns false when none could be built. */
static bool ready(struct unwind *u, struct uproc *p)
{
	if (!p->dwfl) {
		p->dwfl = dwfl_begin(&u->callbacks);
		if (!p->dwfl)
			return false;
	}
	if (p->nreported < p->nmods) {
		dwfl_report_begin_add(p->dwfl);
		for (; p->nreported < p->nmods; p->nreported++) {
			const struct umod *m = &p->mods[p->nreported];
			const char *base = strrchr(m->path, '/');
			/* A file that cannot be opened any more stays out: its frames end the
			 * unwinding as unmapped ones do. */
			dwfl_report_elf(p->dwfl, base + 1, m->path, -1, m->bias, true);
		}
		dwfl_report_end(p->dwfl, NULL, NULL);
	}
	if (!p->attached)
		p->attached = dwfl_attach_state(p->dwfl, NULL, (pid_t)p->pid, &thread_callbacks, p);
	return p->attached;
}

/* ---- one sample --------------------------------------------------------------------------- */

struct walk {
	uint64_t *ips;
	uint32_t nr, max;
	unsigned frames;
	bool skip_first; /* frame 0 is the sample's own ip */
	bool full;
	uint64_t last_pc; /* inside the instruction of the last frame reached */
};

static int on_frame(Dwfl_Frame *state, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	/* A return address is the instruction after the call: the call is at pc - 1. */
	w->last_pc = activation ? pc : pc - 1;
	if (w->frames++ == 0 && w->skip_first)
		return DWARF_CB_OK;
	if (w->nr == w->max) {
		w->full = true;
		return DWARF_CB_ABORT;
	}
	/* Callers are stored as return addresses (report looks up the instruction before).
	 * Frame 0 of a kernel sample is where the task entered the kernel: the instruction
	 * after the syscall, as a return address is. A frame interrupted by a signal holds
	 * the exact pc: one more makes "the instruction before" that pc. */
	w->ips[w->nr++] = activation && w->frames > 1 ? pc + 1 : pc;
	return DWARF_CB_OK;
}

static void count_no_cfi(struct unwind *u, const char *path)
{
	size_t i;

	for (i = 0; i < u->nnocfi; i++)
		if (!strcmp(u->nocfi[i].path, path))
			break;
	if (i == u->nnocfi) {
		char *s = strdup(path);
		if (!s || hwprof_grow((void **)&u->nocfi, &u->capnocfi, u->nnocfi + 1,
				      sizeof(*u->nocfi)) < 0) {
			free(s);
			return;
		}
		u->nocfi[u->nnocfi++] = (struct nocfi){s, 0};
	}
	u->nocfi[i].stacks++;
}

/* Whether PC, the return address of an outermost frame in MOD, is in the file's entry point:
 * the stack begins there. glibc's _start (crt1.o) marks its return address undefined in its
 * CFI, which ends the unwinding cleanly; ld.so's _start does not. */
static bool at_entry_point(Dwfl_Module *mod, uint64_t pc)
{
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	GElf_Ehdr eh;

	if (!elf || !gelf_getehdr(elf, &eh) || !eh.e_entry)
		return false;
	return pc >= eh.e_entry + bias && pc - (eh.e_entry + bias) < 32;
}

/* Whether the CFI of MOD (.eh_frame, else .debug_frame) describes the code at PC. A file
 * built without CFI still has the .eh_frame of its C runtime start files. */
static bool has_cfi(Dwfl_Module *mod, uint64_t pc)
{
	Dwarf_CFI *cfi[2];
	Dwarf_Addr bias[2];

	cfi[0] = dwfl_module_eh_cfi(mod, &bias[0]);
	cfi[1] = dwfl_module_dwarf_cfi(mod, &bias[1]);
	for (int i = 0; i < 2; i++) {
		Dwarf_Frame *frame;
		if (cfi[i] && dwarf_cfi_addrframe(cfi[i], pc - bias[i], &frame) == 0) {
			free(frame);
			return true;
		}
	}
	return false;
}

/* Why the unwinding of P stopped at PC (an address inside the instruction of the last frame
 * reached), into the stats and OUT. */
static void count_cut(struct unwind *u, struct uproc *p, uint64_t pc, struct callchain_stack *out)
{
	Dwfl_Module *mod = p->dwfl ? dwfl_addrmodule(p->dwfl, pc) : NULL;

	if (mod && at_entry_point(mod, pc))
		return;
	out->truncated = true;
	u->stats.truncated++;
	/* Code without CFI first: libdwfl then tries frame pointers, whose reads of a garbage
	 * rbp fail outside the copy too. */
	if (mod && !has_cfi(mod, pc)) {
		const char *path = NULL;
		dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &path, NULL);
		u->stats.cut_cfi++;
		count_no_cfi(u, path ? path : "?");
	} else if (p->read_outside) {
		u->stats.cut_copy++;
	} else if (!mod) {
		u->stats.cut_map++;
	} else {
		u->stats.cut_other++;
	}
}

/* OUT ends here, for the reason counted in *WHY. Returns 0. */
static int cut(struct unwind *u, struct callchain_stack *out, uint64_t *why)
{
	out->truncated = true;
	u->stats.truncated++;
	(*why)++;
	return 0;
}

/* The callers of S from US, after the NR_KERNEL kernel entries KIPS (u64 each, unaligned),
 * into OUT (see unwind_sample()). Returns 0. */
static int unwind_state(struct unwind *u, const struct hwprof_rec_sample *s,
			const unsigned char *kips, uint32_t nr_kernel,
			const struct unwind_ustack *us, uint32_t max_callers,
			struct callchain_stack *out)
{
	uint64_t dwarf[UNWIND_DWARF_REGS];
	struct uproc *p;
	struct walk w;
	int ret;

	if (max_callers > HWPROF_STACK_MAX)
		max_callers = HWPROF_STACK_MAX;
	u->stats.samples++;
	out->nr = out->nr_kernel = nr_kernel < max_callers ? nr_kernel : max_callers;
	if (out->nr)
		memcpy(out->ips, kips, (size_t)out->nr * 8);
	out->truncated = false;
	if (nr_kernel > max_callers)
		return cut(u, out, &u->stats.cut_depth);
	if (us->abi == PERF_SAMPLE_REGS_ABI_NONE && s->kernel)
		return 0; /* a kernel thread: no user part, the stack is whole */
	p = find_proc(u, s->pid);
	if (!p || !p->nmods)
		return cut(u, out, &u->stats.cut_map);
	if (us->abi == PERF_SAMPLE_REGS_ABI_NONE ||
	    unwind_regs_to_dwarf(us->regs, us->nregs, us->mask, dwarf) < 0 || !ready(u, p))
		return cut(u, out, &u->stats.cut_other);
	p->dwarf = dwarf;
	p->stack = us->stack;
	p->stack_size = us->stack ? us->size : 0;
	p->sp = unwind_dwarf_sp(dwarf);
	p->read_outside = false;
	w = (struct walk){
	    .ips = out->ips + out->nr, .max = max_callers - out->nr, .skip_first = !s->kernel};
	ret = dwfl_getthread_frames(p->dwfl, (pid_t)s->tid, on_frame, &w);
	out->nr += w.nr;
	if (w.full)
		cut(u, out, &u->stats.cut_depth);
	else if (ret != 0 || p->read_outside)
		/* libdwfl ends as at the outermost frame (0) when a read fails: the caller's
		 * return address lay outside the copy. */
		count_cut(u, p, w.frames ? w.last_pc : unwind_dwarf_pc(dwarf), out);
	p->dwarf = NULL;
	p->stack = NULL;
	return 0;
}

int unwind_sample(struct unwind *u, const struct hwprof_rec_sample *s, const void *blob, size_t len,
		  uint32_t max_callers, struct callchain_stack *out)
{
	const unsigned char *b = blob;
	struct unwind_ustack us;
	struct blob_head h;

	if (len < sizeof(h))
		return -EINVAL;
	memcpy(&h, b, sizeof(h));
	if (h.nr_kernel > HWPROF_STACK_MAX || h.nregs > 64 ||
	    len != sizeof(h) + (size_t)h.nr_kernel * 8 + (size_t)h.nregs * 8 + h.stack_size)
		return -EINVAL;
	us = (struct unwind_ustack){
	    .abi = h.abi,
	    .mask = h.mask,
	    .nregs = h.nregs,
	    .regs = b + sizeof(h) + (size_t)h.nr_kernel * 8,
	    .stack = b + sizeof(h) + (size_t)h.nr_kernel * 8 + (size_t)h.nregs * 8,
	    .size = h.stack_size,
	};
	return unwind_state(u, s, b + sizeof(h), h.nr_kernel, &us, max_callers, out);
}

int unwind_sample_state(struct unwind *u, const struct hwprof_rec_sample *s,
			const struct callchain_stack *kernel, const struct unwind_ustack *us,
			uint32_t max_callers, struct callchain_stack *out)
{
	uint32_t nk = kernel ? kernel->nr_kernel : 0;

	return unwind_state(u, s, nk ? (const unsigned char *)kernel->ips : NULL, nk, us,
			    max_callers, out);
}

/* ---- the rest ----------------------------------------------------------------------------- */

int unwind_new(struct unwind **out)
{
	struct unwind *u;

	if (!unwind_supported())
		return -ENOTSUP;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	elf_version(EV_CURRENT);
	u->callbacks = (Dwfl_Callbacks){
	    .find_elf = dwfl_linux_proc_find_elf,
	    .find_debuginfo = no_debuginfo,
	};
	*out = u;
	return 0;
}

void unwind_free(struct unwind *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nprocs; i++) {
		clear_mods(u->procs[i]);
		free(u->procs[i]->mods);
		free(u->procs[i]);
	}
	for (size_t i = 0; i < u->nnocfi; i++)
		free(u->nocfi[i].path);
	free(u->nocfi);
	free(u->procs);
	free(u);
}

const struct unwind_stats *unwind_stats(const struct unwind *u)
{
	return &u->stats;
}

/* Appends "N WHAT" to BUF[LEN] (at *AT) when N > 0. */
static void cause(char *buf, size_t len, size_t *at, uint64_t n, const char *what)
{
	int w;

	if (!n || *at >= len)
		return;
	w = snprintf(buf + *at, len - *at, "%s%" PRIu64 " %s", *at ? "; " : "", n, what);
	if (w > 0)
		*at += (size_t)w;
}

void unwind_cut_causes(const struct unwind *u, uint32_t stack_user, char *buf, size_t len)
{
	const struct unwind_stats *s = &u->stats;
	char copy[96];
	size_t at = 0;

	if (len)
		buf[0] = '\0';
	if (stack_user < 65528)
		snprintf(copy, sizeof(copy), "stack copy too small (try --call-graph dwarf,%u)",
			 stack_user * 2 <= 65528 ? stack_user * 2 : 65528);
	else
		snprintf(copy, sizeof(copy), "stack deeper than the largest copy, 65528 bytes");
	cause(buf, len, &at, s->cut_copy, copy);
	cause(buf, len, &at, s->cut_cfi, "in code without CFI");
	cause(buf, len, &at, s->cut_map, "at an address in no mapped file");
	cause(buf, len, &at, s->cut_depth, "deeper than --max-stack");
	cause(buf, len, &at, s->cut_other, "other unwinding errors");
}

static int by_stacks(const void *a, const void *b)
{
	const struct nocfi *x = a, *y = b;

	return x->stacks < y->stacks ? 1 : x->stacks > y->stacks ? -1 : strcmp(x->path, y->path);
}

void unwind_each_file_without_cfi(struct unwind *u,
				  void (*fn)(const char *path, uint64_t stacks, void *arg),
				  void *arg)
{
	if (u->nnocfi)
		qsort(u->nocfi, u->nnocfi, sizeof(*u->nocfi), by_stacks);
	for (size_t i = 0; i < u->nnocfi; i++)
		if (u->nocfi[i].stacks * 100 >= u->stats.samples)
			fn(u->nocfi[i].path, u->nocfi[i].stacks, arg);
}
