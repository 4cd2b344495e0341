/* Libraries loaded on first use (dynlib.h) and the two loaders on it (capstone_lib.h,
 * pfm_lib.h): the one-line error when a library or a symbol is missing, the functions when
 * they are there. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "capstone_lib.h"
#include "dynlib.h"
#include "pfm_lib.h"

static double (*my_cos)(double);

static const struct dynlib_sym cos_sym[] = {{"cos", &my_cos}};

/* A library to load: SONAME, whose package is PACKAGE, with the N symbols SYMS. */
static struct dynlib lib_of(const char *soname, const char *package, const struct dynlib_sym *syms,
			    size_t n)
{
	return (struct dynlib){.soname = soname,
			       .package = package,
			       .syms = syms,
			       .nsyms = n,
			       .lock = PTHREAD_MUTEX_INITIALIZER};
}

Test(dynlib, missing_library_names_it_and_the_package)
{
	struct dynlib lib =
	    lib_of("libhwprof-no-such.so.0", "Nothing, Debian: nothing0", cos_sym, 1);
	char err[512] = "", err2[512] = "";

	cr_assert_eq(dynlib_load(&lib, err, sizeof(err)), -ENOENT);
	cr_assert_str_eq(err, "cannot load libhwprof-no-such.so.0: cannot open shared object "
			      "file: No such file or directory (install Nothing, Debian: "
			      "nothing0)");
	/* The first answer stands, and is said again. */
	cr_assert_eq(dynlib_load(&lib, err2, sizeof(err2)), -ENOENT);
	cr_assert_str_eq(err2, err);
}

Test(dynlib, missing_symbol_names_it)
{
	static void (*nothing)(void);
	static const struct dynlib_sym syms[] = {{"cos", &my_cos},
						 {"hwprof_no_such_function", &nothing}};
	struct dynlib lib = lib_of("libm.so.6", "libm", syms, 2);

	cr_assert_eq(dynlib_load(&lib, NULL, 0), -ENOENT);
	cr_assert(strstr(lib.error, "cannot load libm.so.6: ") == lib.error, "%s", lib.error);
	cr_assert_not_null(strstr(lib.error, "undefined symbol: hwprof_no_such_function"), "%s",
			   lib.error);
	cr_assert_not_null(strstr(lib.error, "(install libm)"), "%s", lib.error);
	cr_assert_null(lib.handle);
}

Test(dynlib, loads_the_functions)
{
	struct dynlib lib = lib_of("libm.so.6", "libm", cos_sym, 1);

	my_cos = NULL;
	cr_assert_eq(dynlib_load(&lib, NULL, 0), 0, "%s", lib.error);
	cr_assert_not_null(my_cos);
	cr_assert_eq(my_cos(0.0), 1.0);
	cr_assert_eq(dynlib_load(&lib, NULL, 0), 0);
}

Test(dynlib, capstone_disassembles_through_its_table)
{
	static const uint8_t ret[] = {0xc3};
	char err[512] = "";
	const struct capstone_lib *cs = capstone_lib(err, sizeof(err));
	const uint8_t *code = ret;
	size_t len = sizeof(ret);
	uint64_t addr = 0x1000;
	cs_insn *ci;
	csh h;

	cr_assert_not_null(cs, "%s", err);
	cr_assert_eq(cs->open(CS_ARCH_X86, CS_MODE_64, &h), CS_ERR_OK);
	ci = cs->malloc(h);
	cr_assert(cs->disasm_iter(h, &code, &len, &addr, ci));
	cr_assert_str_eq(ci->mnemonic, "ret");
	cs->free(ci, 1);
	cs->close(&h);
}

Test(dynlib, libpfm_initializes_through_its_table)
{
	char err[512] = "";
	const struct pfm_lib *pfm = pfm_lib(err, sizeof(err));

	cr_assert_not_null(pfm, "%s", err);
	cr_assert_eq(pfm->initialize(), PFM_SUCCESS);
	cr_assert_str_eq(pfm->strerror(PFM_ERR_NOTFOUND), "event not found");
}
