/* test_plt.c - plt_slots() names every PLT slot that objdump names (binutils synthesises
 * "name@plt" labels from the same relocations), at the same address: ld.bfd's .plt and
 * .plt.got, .plt.sec with IBT, ld.lld's .plt, and the system's libc and libstdc++. */
#include "hot.h"
#include "plt.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct label {
	unsigned long long addr;
	char name[256];
};

/* objdump's NAME@plt labels of PATH's PLT sections into V (room for MAX); returns how many.
 * Slots of IRELATIVE relocations ("*ABS*+0x9f550@plt") and the header ("...@plt-0x10") have
 * no function name and are left out. */
static size_t objdump_labels(const char *path, struct label *v, size_t max)
{
	char cmd[4200], line[512];
	size_t n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "objdump -d -j .plt -j .plt.sec -j .plt.got '%s' 2>/dev/null",
		 path);
	f = popen(cmd, "r");
	cr_assert(f, "cannot run %s", cmd);
	while (fgets(line, sizeof(line), f) && n < max) {
		char *at = strstr(line, "@plt>:\n");
		if (!at || sscanf(line, "%llx <", &v[n].addr) != 1 || strstr(line, "<*ABS*"))
			continue;
		*at = '\0';
		snprintf(v[n].name, sizeof(v[n].name), "%s", strchr(line, '<') + 1);
		n++;
	}
	pclose(f);
	return n;
}

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

/* PATH's slots agree with objdump's labels, both ways; at least MIN of them. */
static void check_file(const char *path, size_t min)
{
	static struct label want[4096];
	size_t nwant = objdump_labels(path, want, sizeof(want) / sizeof(want[0]));
	Dwfl *dwfl = dwfl_begin(&callbacks);
	struct plt_slot *got = NULL;
	Dwfl_Module *mod;
	ssize_t n;

	cr_assert(dwfl);
	dwfl_report_begin(dwfl);
	mod = dwfl_report_elf(dwfl, "m", path, -1, 0, true);
	cr_assert(dwfl_report_end(dwfl, NULL, NULL) == 0 && mod, "%s: %s", path, dwfl_errmsg(-1));
	n = plt_slots(mod, &got);
	cr_assert(n >= 0);
	cr_expect((size_t)n == nwant && nwant >= min, "%s: %zd slots named, objdump names %zu",
		  path, n, nwant);
	for (size_t i = 0; i < nwant; i++) {
		bool found = false;
		for (ssize_t k = 0; k < n && !found; k++)
			found = got[k].addr == want[i].addr && !strcmp(got[k].name, want[i].name);
		cr_expect(found, "%s: no slot %s@plt at %#llx", path, want[i].name, want[i].addr);
	}
	free(got);
	dwfl_end(dwfl);
}

/* plt_id, strtoul (main's argument) and __cxa_finalize (.plt.got) at least. */
Test(plt, ld_bfd)
{
	check_file(need_env("RPT_PLT"), 3);
}

Test(plt, ld_bfd_ibt_plt_sec)
{
	check_file(need_env("RPT_PLT_IBT"), 3);
}

Test(plt, ld_lld)
{
	check_file(need_env("RPT_PLT_LLD"), 3);
}

Test(plt, system_libraries)
{
	static const char *const libs[] = {"/lib/x86_64-linux-gnu/libc.so.6",
					   "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"};

	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		if (access(libs[i], R_OK) != 0) {
			cr_log_info("%s: not here, skipped", libs[i]);
			continue;
		}
		check_file(libs[i], 10);
	}
}
