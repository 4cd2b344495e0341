/* syswide.c - the CPUs of -a / -C and the processes running when system-wide recording starts. */
#include "syswide.h"
#include "host.h"
#include "hwprof/event.h"
#include "sampler.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void syswide_cpus_text(const int *cpus, int n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && used < len; i++) {
		int j = i;

		while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
			j++;
		used += (size_t)snprintf(buf + used, len - used, "%s%d", i ? "," : "", cpus[i]);
		if (j > i && used < len)
			used += (size_t)snprintf(buf + used, len - used, "-%d", cpus[j]);
		i = j;
	}
	if (used >= len && len > 4)
		memcpy(buf + len - 4, "...", 4); /* cut: say so, not a shorter list */
}

static int cmp_int(const void *a, const void *b)
{
	return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

int syswide_cpus(const char *list, int **out, char *err, size_t errlen)
{
	int *online = NULL, *cpus = NULL, nonline, n;
	char have[128];

	*out = NULL;
	nonline = sampler_online_cpus(&online);
	if (nonline < 0)
		return nonline;
	if (!list) {
		*out = online;
		return nonline;
	}
	syswide_cpus_text(online, nonline, have, sizeof(have));
	n = hwprof_cpulist_parse(list, &cpus);
	if (n == -ENOMEM) {
		free(online);
		return n;
	}
	if (n < 0) {
		snprintf(err, errlen,
			 "-C %s: not a CPU list (write CPUs and ranges as '0-3,8', each once; the "
			 "online CPUs are %s)",
			 list, have);
		free(online);
		return -EINVAL;
	}
	for (int i = 0; i < n; i++) {
		bool found = false;

		for (int j = 0; j < nonline && !found; j++)
			found = online[j] == cpus[i];
		if (!found) {
			snprintf(err, errlen,
				 "-C %s: CPU %d is not online (the online CPUs are %s)", list,
				 cpus[i], have);
			free(online);
			free(cpus);
			return -ENODEV;
		}
	}
	free(online);
	qsort(cpus, (size_t)n, sizeof(*cpus), cmp_int);
	*out = cpus;
	return n;
}

/* FN and its argument, with FN's own failure kept apart from /proc's. */
struct synth_call {
	attach_record_fn fn;
	void *arg;
	int failed;
};

static int synth_one(struct hwprof_record *rec, void *arg)
{
	struct synth_call *call = arg;
	int ret = call->fn(rec, call->arg);

	if (ret)
		call->failed = ret;
	return ret;
}

/* Counts PID as skipped for ERR. */
static void skip(struct syswide_skipped *s, pid_t pid, int err)
{
	if (!s->n++) {
		s->first = pid;
		s->err = err;
	}
}

int syswide_synthesize(uint64_t time, attach_record_fn fn, void *arg,
		       struct syswide_skipped *skipped)
{
	struct synth_call call = {.fn = fn, .arg = arg};
	struct syswide_skipped none;
	DIR *d = opendir("/proc");
	struct dirent *de;
	int nread = 0, ret = 0;

	if (!skipped)
		skipped = &none;
	memset(skipped, 0, sizeof(*skipped));
	if (!d)
		return -errno;
	while (!call.failed && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		pid_t *tids = NULL;
		int n;

		if (pid <= 0 || *end)
			continue;
		n = attach_threads((pid_t)pid, &tids);
		if (n == -ENOMEM) {
			ret = n;
			break;
		}
		if (n < 0) {
			if (n != -ESRCH) /* one that ended meanwhile is not a loss */
				skip(skipped, (pid_t)pid, n);
			continue;
		}
		ret = attach_synthesize((pid_t)pid, tids, (size_t)n, time, synth_one, &call);
		free(tids);
		if (call.failed)
			break;
		if (ret < 0) {
			/* Ended meanwhile (ENOENT, ESRCH), or its maps are not ours to read. */
			if (ret != -ENOENT && ret != -ESRCH)
				skip(skipped, (pid_t)pid, ret);
			ret = 0;
			continue;
		}
		nread++;
	}
	closedir(d);
	if (call.failed)
		return call.failed > 0 ? -call.failed : call.failed;
	return ret < 0 ? ret : nread;
}

const char *syswide_denied(const char *opt, char *buf, size_t len)
{
	snprintf(buf, len,
		 "needs perf_event_paranoid <= 0 (perf_event_paranoid is %d here) or "
		 "CAP_PERFMON (run as root, sudo sysctl kernel.perf_event_paranoid=0, or drop %s)",
		 hwprof_paranoid(), opt);
	return buf;
}
