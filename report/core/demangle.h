/* demangle.h - C++ (Itanium ABI) and Rust (legacy and v0) names through libiberty's
 * cplus_demangle. */
#ifndef HWPROF_REPORT_DEMANGLE_H
#define HWPROF_REPORT_DEMANGLE_H

/* The demangled form of NAME, malloc'd: C++ with parameter types ("ns::Foo<int>::bar(int)"),
 * Rust without the crate disambiguator and hash, as perf prints it
 * ("<c::Toucher as c::Touch>::touch"). NULL when NAME is not a mangled name of either ("_Z..."
 * or "_R..."; use NAME as it is). */
char *demangle(const char *name);

#endif
