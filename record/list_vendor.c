/* list_vendor.c - `hwprof list vendor [PATTERN]`; see list_vendor.h. */
#include "list_vendor.h"

#include "textfmt.h"
#include "vendor.h"

#include "hwprof/event.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

struct walk {
	struct hwprof_jw *jw;
	bool one_line;
	size_t n;
};

static int one(void *arg, const struct vendor_listing *l)
{
	struct walk *w = arg;
	char code[96] = "-";

	w->n++;
	if (w->one_line)
		return 0;
	if (l->encoded)
		hwprof_event_code(l->type, l->config, l->config1, 0, code, sizeof(code));
	if (w->jw) {
		hwprof_jw_object(w->jw, NULL);
		hwprof_jw_str(w->jw, "name", l->name);
		hwprof_jw_str(w->jw, "pmu", l->pmu);
		if (l->encoded) {
			char hex[24];

			hwprof_jw_uint(w->jw, "type", l->type);
			/* As the other lists write encodings: hex strings. */
			snprintf(hex, sizeof(hex), "0x%" PRIx64, l->config);
			hwprof_jw_str(w->jw, "config", hex);
			snprintf(hex, sizeof(hex), "0x%" PRIx64, l->config1);
			hwprof_jw_str(w->jw, "config1", hex);
		} else {
			hwprof_jw_null(w->jw, "type");
			hwprof_jw_null(w->jw, "config");
			hwprof_jw_null(w->jw, "config1");
		}
		hwprof_jw_bool(w->jw, "precise", l->precise);
		hwprof_jw_str(w->jw, "description", l->desc);
		hwprof_jw_end(w->jw);
		return 0;
	}
	printf("  %-48s %-22s %-9s ", l->name, code, l->precise ? "[precise]" : "");
	hwprof_text_put(stdout, l->desc ? l->desc : "");
	putchar('\n');
	return 0;
}

void list_vendor(struct hwprof_jw *jw, const char *pattern, bool one_line)
{
	char pmus[512];
	int n = vendor_active_pmus(pmus, sizeof(pmus));
	struct walk w = {.jw = jw, .one_line = one_line};

	if (jw) {
		hwprof_jw_object(jw, "vendor");
		hwprof_jw_array(jw, "pmus");
		for (char *save = NULL, *t = strtok_r(pmus, " ", &save); t;
		     t = strtok_r(NULL, " ", &save))
			hwprof_jw_str(jw, NULL, t);
		hwprof_jw_end(jw);
		hwprof_jw_array(jw, "events");
		if (n > 0 && !one_line)
			vendor_each(pattern, one, &w);
		hwprof_jw_end(jw);
		hwprof_jw_end(jw);
		return;
	}
	if (n < 0) {
		char why[512];
		vendor_status(why, sizeof(why));
		printf("\nvendor events: none can be named: %s; generic and software events "
		       "work\n",
		       why);
		return;
	}
	if (n == 0) {
		printf("\nvendor events: libpfm4 finds no active CPU PMU on this host "
		       "(virtualized?), so none can be named; generic and software events work\n");
		return;
	}
	if (one_line) {
		vendor_each(pattern, one, &w);
		printf("\nvendor events: %zu for %s, spelled EVENT.UMASK (hwprof list vendor "
		       "[PATTERN])\n",
		       w.n, pmus);
		return;
	}
	printf("\nvendor events of %s (libpfm4), spelled EVENT.UMASK[:c=N:e:i] (Intel's "
	       "load-latency events also :ldlat=N):\n",
	       pmus);
	vendor_each(pattern, one, &w);
	if (!w.n)
		printf("  none%s%s\n", pattern ? " matching " : "", pattern ? pattern : "");
}
