/* funcname.h - function names: one matcher for report --function and annotate FUNCTION.
 *
 * A user types a function as written in the source ("work", "ns::work"); the profile holds
 * demangled names with return types, template arguments, parameter lists and compiler clone
 * suffixes, or linkage (mangled) names. These functions say whether, and how well, one
 * matches the other.
 */
#ifndef HWPROF_REPORT_FUNCNAME_H
#define HWPROF_REPORT_FUNCNAME_H

#include <stdbool.h>
#include <stddef.h>

/* How a function name answers what the user typed. */
enum fn_match {
	FN_MATCH_NONE,
	FN_MATCH_BASE, /* by its base name: "work" or "ns::work" for
			* "long ns::work<int>(std::map<int, long>&)" */
	FN_MATCH_FULL, /* the whole name, without its parameter list or return type, or the
			* linkage (mangled) name; compiler clones (".constprop.0",
			* " [clone .cold]") count as the function they copy */
};

/* What the user typed, and its demangled form when it is a mangled C++ or Rust name
 * (demangle.h). */
struct fn_query {
	const char *text; /* not copied */
	char *demangled;  /* malloc'd, or NULL */
};

/* Prepares Q for TEXT. Never fails (a name that does not demangle is kept as typed). */
void fn_query_init(struct fn_query *q, const char *text);
/* Frees what fn_query_init() allocated in Q (not Q itself). */
void fn_query_release(struct fn_query *q);

/* How Q matches the (demangled) function NAME. */
enum fn_match fn_query_match(const struct fn_query *q, const char *name);

/* The base name of NAME into BUF (LEN bytes): no return type, template arguments, parameter
 * list or clone suffix ("long ns::Box<int>::work(int) const" -> "ns::Box::work", Rust's
 * "c::sum::<u8>" -> "c::sum"); a Rust qualified self stays ("<c::T as c::Tr>::f"). */
const char *fn_base_name(const char *name, char *buf, size_t len);

/* Which of the function names NAMES[0..N) Q means: every FULL match; failing those, the BASE
 * matches when they are all one function. Sets PICK[i] (N entries) and returns the number
 * picked (0: none). When several different functions match by base name only, picks nothing,
 * writes them to CANDS ("a; b; c", LEN bytes) and returns -EINVAL; -ENOMEM when out of
 * memory. Duplicates in NAMES are allowed (one function in several DSOs). */
int fn_pick(const struct fn_query *q, const char *const *names, size_t n, bool *pick, char *cands,
	    size_t len);

#endif
