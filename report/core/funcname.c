/* funcname.c - matching what the user typed against function names (see funcname.h).
 *
 * Demangled C++ names carry a return type (templates), template arguments, a parameter list,
 * qualifiers and clone suffixes; users type the name as written in the source. The scanners
 * below work on the first N bytes of a name, track <> () {} nesting, and step over operator
 * names, whose symbols ("operator<<", "operator()") would upset the nesting.
 */
#include "funcname.h"

#include "demangle.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$';
}

/* When S[I..N) starts the keyword "operator", the index after the operator's symbol
 * ("operator()", "operator<<", "operator[]"); for "operator new" or a conversion ("operator
 * unsigned long") the index of its parameter list. Else I. */
static size_t skip_operator(const char *s, size_t i, size_t n)
{
	size_t j = i + 8;

	if (n - i < 8 || strncmp(s + i, "operator", 8) || (i && ident_char(s[i - 1])) ||
	    (j < n && ident_char(s[j])))
		return i;
	if (j + 1 < n && ((s[j] == '(' && s[j + 1] == ')') || (s[j] == '[' && s[j + 1] == ']')))
		return j + 2;
	if (j < n && s[j] == ' ') {
		while (j < n && s[j] != '(')
			j++;
		return j;
	}
	while (j < n && strchr("<>=!+-*/%^&|~,", s[j]))
		j++;
	/* "operator<< <char>(...)": the demangler parts the symbol from template arguments. */
	if (j + 1 < n && s[j] == ' ' && s[j + 1] == '<')
		j++;
	return j;
}

/* One step of a scan: advances *I over S[*I] (or an operator name) and keeps *DEPTH of <> ()
 * {} nesting. Returns the character stepped over at depth 0, or 0. */
static char scan_step(const char *s, size_t *i, size_t n, size_t *depth)
{
	size_t j = skip_operator(s, *i, n);
	char c = s[*i];

	if (j != *i) {
		*i = j;
		return 0;
	}
	(*i)++;
	if (!strncmp(s + *i - 1, "(anonymous namespace)", 21) && *i - 1 + 21 <= n) {
		*i += 20;
		return 0;
	}
	if (c == '<' || c == '(' || c == '{') {
		(*depth)++;
		return *depth == 1 ? c : 0;
	}
	if (c == '>' || c == ')' || c == '}') {
		if (*depth)
			(*depth)--;
		return 0;
	}
	return *depth ? 0 : c;
}

/* Length of NAME's first N bytes without a clone suffix: " [clone .cold]" (C++), ".constprop.0",
 * ".isra.0", ".part.1", ".cold" (C): copies of one function made by the optimiser. */
static size_t clone_len(const char *name, size_t n)
{
	const char *c = memmem(name, n, " [clone ", 8);
	size_t i = 0, depth = 0;

	if (c)
		return (size_t)(c - name);
	while (i < n) {
		size_t at = i;
		if (scan_step(name, &i, n, &depth) == '.' && at > 0)
			return at;
	}
	return n;
}

/* Index of the parameter list's '(' in NAME's first N bytes, or N. */
static size_t params_at(const char *name, size_t n)
{
	size_t i = 0, depth = 0;

	while (i < n) {
		size_t at = i;
		if (scan_step(name, &i, n, &depth) == '(')
			return at;
	}
	return n;
}

/* Index where the name starts after a return type ("long work<int>" -> 5), in N bytes. */
static size_t name_at(const char *name, size_t n)
{
	size_t i = 0, depth = 0, start = 0;

	while (i < n)
		if (scan_step(name, &i, n, &depth) == ' ')
			start = i;
	return start;
}

const char *fn_base_name(const char *name, char *buf, size_t len)
{
	size_t n = params_at(name, clone_len(name, strlen(name)));
	size_t i = name_at(name, n), depth = 0, o = 0;
	/* Rust's qualified self ("<c::Toucher as c::Touch>::touch") is part of the name: two
	 * impls of one trait method are two functions. */
	bool self = name[i] == '<';

	while (i < n) {
		size_t at = i, before = depth;
		scan_step(name, &i, n, &depth);
		/* Depth 0 characters and operator names; template arguments are left out. */
		if ((!before && !depth) || self)
			for (; at < i && o + 1 < len; at++)
				buf[o++] = name[at];
		self = self && depth;
	}
	while (o && buf[o - 1] == ' ')
		o--;
	/* Rust's generic arguments follow a "::" ("c::sum::<u8>"). */
	if (o >= 2 && buf[o - 1] == ':' && buf[o - 2] == ':')
		o -= 2;
	if (len)
		buf[o] = '\0';
	return buf;
}

void fn_query_init(struct fn_query *q, const char *text)
{
	q->text = text;
	q->demangled = demangle(text);
}

void fn_query_release(struct fn_query *q)
{
	free(q->demangled);
	q->demangled = NULL;
}

static bool span_is(const char *s, size_t n, const char *want)
{
	return want && strlen(want) == n && !memcmp(s, want, n);
}

enum fn_match fn_query_match(const struct fn_query *q, const char *name)
{
	size_t all, n, params, start, qlen, blen;
	char base[1024];

	if (!name || !q->text || !q->text[0])
		return FN_MATCH_NONE;
	all = strlen(name);
	n = clone_len(name, all);
	params = params_at(name, n);
	start = name_at(name, params);
	if (span_is(name, all, q->text) || span_is(name, n, q->text) ||
	    span_is(name, params, q->text) || span_is(name + start, params - start, q->text) ||
	    span_is(name + start, n - start, q->text) || span_is(name, all, q->demangled) ||
	    span_is(name, n, q->demangled))
		return FN_MATCH_FULL;
	fn_base_name(name, base, sizeof(base));
	qlen = strlen(q->text);
	blen = strlen(base);
	if (!strcmp(base, q->text) || (blen > qlen + 2 && !strcmp(base + blen - qlen, q->text) &&
				       !strncmp(base + blen - qlen - 2, "::", 2)))
		return FN_MATCH_BASE;
	return FN_MATCH_NONE;
}

int fn_pick(const struct fn_query *q, const char *const *names, size_t n, bool *pick, char *cands,
	    size_t len)
{
	enum fn_match best = FN_MATCH_NONE;
	const char *first = NULL;
	size_t first_len = 0, o = 0;
	int picked = 0;
	bool several = false;

	/* Each name is matched once (demangling and base names are not cheap). */
	unsigned char *level = malloc(n ? n : 1);

	if (!level)
		return -ENOMEM;
	if (len)
		cands[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		enum fn_match m = fn_query_match(q, names[i]);
		level[i] = (unsigned char)m;
		pick[i] = m != FN_MATCH_NONE;
		if (m > best)
			best = m;
	}
	for (size_t i = 0; i < n; i++) {
		if (!pick[i])
			continue;
		if (level[i] != best) {
			pick[i] = false;
			continue;
		}
		picked++;
		if (best == FN_MATCH_FULL)
			continue;
		/* By base name only: several different functions (clones aside) are a question. */
		size_t l = clone_len(names[i], strlen(names[i]));
		if (!first) {
			first = names[i];
			first_len = l;
		} else if (l != first_len || memcmp(first, names[i], l)) {
			several = true;
		}
	}
	if (!several) {
		free(level);
		return picked;
	}
	for (size_t i = 0; i < n; i++) {
		bool dup = false;
		size_t l;
		if (!pick[i])
			continue;
		pick[i] = false;
		l = clone_len(names[i], strlen(names[i]));
		for (size_t k = 0; k < i && !dup; k++)
			dup = names[k] && level[k] == best &&
			      clone_len(names[k], strlen(names[k])) == l &&
			      !memcmp(names[k], names[i], l);
		if (!dup && o < len)
			o += (size_t)snprintf(cands + o, len - o, "%s%.*s", o ? "; " : "", (int)l,
					      names[i]);
	}
	free(level);
	return -EINVAL;
}
