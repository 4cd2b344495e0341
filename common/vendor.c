/* vendor.c - vendor event names through libpfm4; see vendor.h.
 *
 * libpfm4 resolves a name against every PMU it finds active, its own "perf" PMU of the
 * kernel's generic events included. hwprof knows those names itself (event.c tries them
 * first), so an answer from an OS-generic PMU is treated as "not a vendor event": a typo of a
 * generic name stays an unknown event with hwprof's own "did you mean".
 *
 * The privilege level and precise_ip stay hwprof's: libpfm4 is asked for the event words
 * only (type, config, config1, config2), and the attributes it would map to other
 * perf_event_attr fields are refused, so that one spelling (hwprof's :u :k :p, -c, -F) sets
 * each field.
 */
#include "vendor.h"

#include "pfm_lib.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const struct pfm_lib *pfm;
static char why[512];

/* Loads libpfm4 (pfm_lib.h) and initializes it, or says why not in WHY. */
static void init(void)
{
	int r;

	pfm = pfm_lib(why, sizeof(why));
	if (!pfm)
		return;
	r = pfm->initialize();
	if (r != PFM_SUCCESS) {
		snprintf(why, sizeof(why), "libpfm4 does not initialize: %s", pfm->strerror(r));
		pfm = NULL;
	}
}

static int ready(void)
{
	pthread_once(&once, init);
	return pfm ? 0 : -ENODEV;
}

int vendor_status(char *buf, size_t len)
{
	if (ready() < 0) {
		snprintf(buf, len, "%s", why);
		return -ENODEV;
	}
	if (len)
		buf[0] = '\0';
	return 0;
}

static bool hardware_pmu(pfm_pmu_t pmu, pfm_pmu_info_t *pi)
{
	memset(pi, 0, sizeof(*pi));
	pi->size = sizeof(*pi);
	return pfm->get_pmu_info(pmu, pi) == PFM_SUCCESS && pi->is_present &&
	       (pi->type == PFM_PMU_TYPE_CORE || pi->type == PFM_PMU_TYPE_UNCORE);
}

/* The attributes libpfm4 maps to perf_event_attr fields hwprof sets by its own spelling. */
static const char *const perf_attrs[] = {
    "u",  "k",	"h",   "precise", "period",  "freq",	     "excl",
    "mg", "mh", "cpu", "pinned",  "hw_smpl", "exclude_guest"};

/* Whether ATTRS names one of perf_attrs; its name into BAD. */
static bool perf_attr_in(const char *attrs, char *bad, size_t len)
{
	const char *p = attrs;

	while (*p) {
		size_t n = strcspn(p, ":"), k = strcspn(p, ":=");
		for (size_t i = 0; i < sizeof(perf_attrs) / sizeof(*perf_attrs); i++) {
			if (strlen(perf_attrs[i]) == k && !strncasecmp(p, perf_attrs[i], k)) {
				snprintf(bad, len, "%.*s", (int)n, p);
				return true;
			}
		}
		p += n;
		if (*p == ':')
			p++;
	}
	return false;
}

/* Whether the umasks named in FULL (libpfm4's "pmu::EVENT:UMASK:attr=v...") of event IDX can
 * all be sampled precisely; the event's own flag when it has none. */
static bool precise_of(int idx, const pfm_event_info_t *info, const char *full)
{
	const char *p = strstr(full, "::");
	bool any = false;

	p = p ? p + 2 : full;
	p += strcspn(p, ":");
	while (*p == ':') {
		size_t n;

		p++;
		n = strcspn(p, ":");
		if (!memchr(p, '=', n)) {
			for (int a = 0; a < info->nattrs; a++) {
				pfm_event_attr_info_t ai = {.size = sizeof(ai)};
				if (pfm->get_event_attr_info(idx, a, PFM_OS_PERF_EVENT_EXT, &ai) !=
					PFM_SUCCESS ||
				    ai.type != PFM_ATTR_UMASK || strlen(ai.name) != n ||
				    strncasecmp(ai.name, p, n))
					continue;
				if (!ai.is_precise)
					return false;
				any = true;
			}
		}
		p += n;
	}
	return any || info->is_precise;
}

/* libpfm4's encoding of SPEC into OUT. 0, -ENOENT (no such hardware event), or a PFM_ERR_*
 * (< -1000 - code) for the caller's message. */
static int encode(const char *spec, struct vendor_event *out)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	pfm_event_info_t info = {.size = sizeof(info)};
	pfm_pmu_info_t pi;
	char *full = NULL;
	int r;

	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	arg.fstr = &full;
	r = pfm->get_os_event_encoding(spec, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (r != PFM_SUCCESS) {
		free(full);
		return r == PFM_ERR_NOTFOUND ? -ENOENT : -1000 + r;
	}
	if (pfm->get_event_info(arg.idx, PFM_OS_PERF_EVENT_EXT, &info) != PFM_SUCCESS ||
	    !hardware_pmu(info.pmu, &pi)) {
		free(full);
		return -ENOENT;
	}
	memset(out, 0, sizeof(*out));
	out->type = attr.type;
	out->config = attr.config;
	out->config1 = attr.config1;
	out->config2 = attr.config2;
	out->core = pi.type == PFM_PMU_TYPE_CORE;
	out->precise = full && precise_of(arg.idx, &info, full);
	snprintf(out->pmu, sizeof(out->pmu), "%s", pi.name);
	snprintf(out->full, sizeof(out->full), "%s", full ? full : spec);
	free(full);
	return 0;
}

int vendor_encode(const char *name, const char *attrs, struct vendor_event *out, char *err,
		  size_t errlen)
{
	char spec[512], bad[64];
	int r;

	if (ready() < 0)
		return -ENODEV;
	if (attrs && *attrs && perf_attr_in(attrs, bad, sizeof(bad))) {
		snprintf(err, errlen,
			 "'%s:%s': ':%s' is libpfm4's spelling of a perf_event_attr field (use "
			 "hwprof's :u :k :h :p modifiers, and -c or -F for the period)",
			 name, attrs, bad);
		return -EINVAL;
	}
	if (snprintf(spec, sizeof(spec), "%s%s%s", name, attrs && *attrs ? ":" : "",
		     attrs ? attrs : "") >= (int)sizeof(spec)) {
		snprintf(err, errlen, "'%.64s...': too long for libpfm4", name);
		return -EINVAL;
	}
	r = encode(spec, out);
	if (r >= 0 || r == -ENOENT)
		return r;
	/* The name is an event of some active PMU (else NOTFOUND): a umask or attribute is
	 * wrong. */
	snprintf(err, errlen,
		 "'%s': libpfm4 refuses it: %s (its umasks and attributes are listed under "
		 "%.*s)",
		 spec, pfm->strerror(r + 1000), (int)strcspn(name, ".:"), name);
	return -EINVAL;
}

int vendor_active_pmus(char *buf, size_t len)
{
	pfm_pmu_info_t pi;
	size_t at = 0;
	int n = 0, pmu;

	if (len)
		buf[0] = '\0';
	if (ready() < 0)
		return -ENODEV;
	pfm_for_all_pmus(pmu)
	{
		if (!hardware_pmu((pfm_pmu_t)pmu, &pi))
			continue;
		if (at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", n ? " " : "", pi.name);
		n++;
	}
	return n;
}

/* Fills L's encoding from libpfm4's spelling SPEC. */
static void list_encode(const char *spec, struct vendor_listing *l)
{
	struct vendor_event v;

	l->encoded = encode(spec, &v) == 0;
	if (!l->encoded)
		return;
	l->type = v.type;
	l->config = v.config;
	l->config1 = v.config1;
	l->precise = v.precise;
}

static int each_event(const pfm_pmu_info_t *pi, int idx, const char *pattern,
		      int (*fn)(void *, const struct vendor_listing *), void *arg)
{
	pfm_event_info_t info = {.size = sizeof(info)};
	struct vendor_listing l = {.pmu = pi->name};
	char spec[512];
	int umasks = 0, r;

	if (pfm->get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &info) != PFM_SUCCESS)
		return 0;
	for (int a = 0; a < info.nattrs; a++) {
		pfm_event_attr_info_t ai = {.size = sizeof(ai)};

		if (pfm->get_event_attr_info(idx, a, PFM_OS_PERF_EVENT_EXT, &ai) != PFM_SUCCESS ||
		    ai.type != PFM_ATTR_UMASK)
			continue;
		umasks++;
		snprintf(l.name, sizeof(l.name), "%s.%s", info.name, ai.name);
		if (pattern && *pattern && !strcasestr(l.name, pattern))
			continue;
		l.desc = ai.desc ? ai.desc : info.desc;
		snprintf(spec, sizeof(spec), "%s::%s:%s", pi->name, info.name, ai.name);
		list_encode(spec, &l);
		r = fn(arg, &l);
		if (r)
			return r;
	}
	if (umasks)
		return 0;
	snprintf(l.name, sizeof(l.name), "%s", info.name);
	if (pattern && *pattern && !strcasestr(l.name, pattern))
		return 0;
	l.desc = info.desc;
	snprintf(spec, sizeof(spec), "%s::%s", pi->name, info.name);
	list_encode(spec, &l);
	return fn(arg, &l);
}

int vendor_each(const char *pattern, int (*fn)(void *arg, const struct vendor_listing *l),
		void *arg)
{
	pfm_pmu_info_t pi;
	int pmu;

	if (ready() < 0)
		return -ENODEV;
	pfm_for_all_pmus(pmu)
	{
		if (!hardware_pmu((pfm_pmu_t)pmu, &pi))
			continue;
		for (int idx = pi.first_event; idx != -1; idx = pfm->get_event_next(idx)) {
			int r = each_event(&pi, idx, pattern, fn, arg);
			if (r)
				return r;
		}
	}
	return 0;
}
