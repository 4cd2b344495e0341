/* dynlib.c - a shared library loaded on first use; see dynlib.h. */
#include "dynlib.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* LIB->error from WHY (dlerror()'s, which the next dl call may free: used before it). */
static int fail(struct dynlib *lib, const char *why)
{
	size_t n = strlen(lib->soname);

	if (!why)
		why = "a symbol is NULL";
	/* dlerror() starts with the file's name, already said. */
	if (!strncmp(why, lib->soname, n) && why[n] == ':')
		why += n + 1 + (why[n + 1] == ' ');
	snprintf(lib->error, sizeof(lib->error), "cannot load %s: %s (install %s)", lib->soname,
		 why, lib->package);
	return -ENOENT;
}

static int load(struct dynlib *lib)
{
	lib->handle = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
	if (!lib->handle)
		return fail(lib, dlerror());
	for (size_t i = 0; i < lib->nsyms; i++) {
		void *addr;
		const char *why;

		dlerror();
		addr = dlsym(lib->handle, lib->syms[i].name);
		why = dlerror();
		if (why || !addr) {
			int r = fail(lib, why);
			dlclose(lib->handle);
			lib->handle = NULL;
			return r;
		}
		/* POSIX dlsym(3): a function's address comes as a void *. */
		memcpy(lib->syms[i].slot, &addr, sizeof(addr));
	}
	return 0;
}

int dynlib_load(struct dynlib *lib, char *err, size_t errlen)
{
	pthread_mutex_lock(&lib->lock);
	if (!lib->tried) {
		lib->status = load(lib);
		lib->tried = true;
	}
	pthread_mutex_unlock(&lib->lock);
	if (lib->status < 0 && err)
		snprintf(err, errlen, "%s", lib->error);
	return lib->status;
}
