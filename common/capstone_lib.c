/* capstone_lib.c - Capstone loaded on first use; see capstone_lib.h. */
#include "capstone_lib.h"

#include "dynlib.h"

/* The soname of the Capstone whose header this is compiled with (4 -> libcapstone.so.4). */
#define STR_(x)	  #x
#define STR(x)	  STR_(x)
#define CS_SONAME "libcapstone.so." STR(CS_API_MAJOR)

static struct capstone_lib cs;

static const struct dynlib_sym syms[] = {
    {"cs_open", &cs.open},
    {"cs_option", &cs.option},
    {"cs_malloc", &cs.malloc},
    {"cs_disasm_iter", &cs.disasm_iter},
    {"cs_insn_group", &cs.insn_group},
    {"cs_free", &cs.free},
    {"cs_close", &cs.close},
};

static struct dynlib lib = {
    .soname = CS_SONAME,
    .package = "Capstone " STR(CS_API_MAJOR) ", Debian: libcapstone" STR(CS_API_MAJOR),
    .syms = syms,
    .nsyms = sizeof(syms) / sizeof(*syms),
    .lock = PTHREAD_MUTEX_INITIALIZER};

const struct capstone_lib *capstone_lib(char *err, size_t errlen)
{
	return dynlib_load(&lib, err, errlen) < 0 ? NULL : &cs;
}
