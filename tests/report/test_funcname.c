/* test_funcname.c - report/core/funcname.c: C++ and Rust function names against what a user
 * types (base names, full names, linkage names). */
#include <criterion/criterion.h>

#include "funcname.h"

#include <stdlib.h>
#include <string.h>

Test(funcname, cxx_base_names_and_matching)
{
	static const char full[] = "long hw::work<int, long>(std::map<int, long, std::less<int>, "
				   "std::allocator<std::pair<int const, long> > >&)";
	static const struct {
		const char *name, *base;
	} cases[] = {
	    {full, "hw::work"},
	    {"ns::Box<int>::get(int) const", "ns::Box::get"},
	    {"touch_pages.constprop.0", "touch_pages"},
	    {"ns::f(int) [clone .cold]", "ns::f"},
	    {"std::ostream& operator<< <char>(std::ostream&, Foo const&)", "operator<<"},
	    {"Foo::operator()(int) const", "Foo::operator()"},
	    {"Foo::operator unsigned long() const", "Foo::operator unsigned long"},
	    {"(anonymous namespace)::helper(char const*, ...)", "(anonymous namespace)::helper"},
	    {"main", "main"},
	    {"<c::Toucher as c::Touch>::touch", "<c::Toucher as c::Touch>::touch"},
	    {"<alloc::vec::Vec<u8> as core::ops::Drop>::drop",
	     "<alloc::vec::Vec<u8> as core::ops::Drop>::drop"},
	    {"c::sum::<u8>", "c::sum"},
	};
	char buf[256];
	struct fn_query q;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_str_eq(fn_base_name(cases[i].name, buf, sizeof(buf)), cases[i].base);
	fn_query_init(&q, "work");
	cr_expect_eq(fn_query_match(&q, full), FN_MATCH_BASE);
	cr_expect_eq(fn_query_match(&q, "hw::network(int)"), FN_MATCH_NONE);
	fn_query_release(&q);
	fn_query_init(&q, "touch");
	cr_expect_eq(fn_query_match(&q, "<c::Toucher as c::Touch>::touch"), FN_MATCH_BASE);
	fn_query_release(&q);
	fn_query_init(&q, "hw::work<int, long>");
	cr_expect_eq(fn_query_match(&q, full), FN_MATCH_FULL);
	fn_query_release(&q);
	fn_query_init(&q, "_ZN2hw4workIilEElRSt3mapIT_T0_St4lessIS2_ESaISt4pairIKS2_S3_EEE");
	cr_expect_eq(fn_query_match(&q, full), FN_MATCH_FULL, "linkage name: %s", q.demangled);
	fn_query_release(&q);
}
