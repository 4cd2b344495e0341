/* demangle.h - C++ (Itanium ABI) names through libiberty's cplus_demangle. */
#ifndef HWPROF_REPORT_DEMANGLE_H
#define HWPROF_REPORT_DEMANGLE_H

/* The demangled form of NAME with parameter types ("ns::Foo<int>::bar(int)"), malloc'd, or
 * NULL when NAME is not a mangled C++ name (use NAME as it is). */
char *demangle(const char *name);

#endif
