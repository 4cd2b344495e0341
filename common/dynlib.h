/* dynlib.h - a shared library loaded on first use (dlopen(3) by soname), for the big
 * optional ones: Capstone and libpfm4 are needed by a few commands only, and a library linked
 * at build time costs every command its relocations and page faults at start-up (together
 * about 16 ms of CPU and 660 page faults here, more than a cached report's own work).
 *
 * Meson still checks the library and its headers at build time; the headers give the types,
 * and the functions are called through the pointers a loader fills. One loader per library
 * (capstone_lib.h, pfm_lib.h) declares a static struct dynlib and calls dynlib_load().
 * Internal: not installed.
 */
#ifndef HWPROF_DYNLIB_H
#define HWPROF_DYNLIB_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/* One function of the library: its name and where its address goes (a function pointer's
 * address, cast to void *). */
struct dynlib_sym {
	const char *name;
	void *slot;
};

/* A library to load once. The loader sets soname, package, syms and nsyms (and lock to
 * PTHREAD_MUTEX_INITIALIZER); the rest is dynlib_load()'s. */
struct dynlib {
	const char *soname;  /* "libcapstone.so.4" */
	const char *package; /* what to install: "Capstone (Debian: libcapstone4)" */
	const struct dynlib_sym *syms;
	size_t nsyms;
	pthread_mutex_t lock;
	bool tried;	 /* dynlib_load() ran */
	int status;	 /* its result */
	void *handle;	 /* dlopen's, kept until exit */
	char error[512]; /* the one-line message when status < 0 */
};

/* Loads LIB the first time it is called (thread-safe; later calls return the first result):
 * dlopen(LIB->soname, RTLD_NOW | RTLD_LOCAL), then every symbol of LIB->syms into its slot.
 * Returns 0; -ENOENT when the library cannot be opened or lacks a symbol, with one line in
 * LIB->error and in ERR (ERRLEN bytes; ERR may be NULL) naming the library, the reason
 * dlerror() gives and the package to install ("cannot load libcapstone.so.4: cannot open
 * shared object file: No such file or directory (install Capstone 4, Debian:
 * libcapstone4)"). A caller uses no slot unless 0 was returned. */
int dynlib_load(struct dynlib *lib, char *err, size_t errlen);

#endif
