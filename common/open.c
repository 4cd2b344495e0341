/* open.c - perf_event_open(2) with the precise_ip step-down; see hwprof/event.h. */
#include "hwprof/event.h"
#include "hwprof/sys.h"
#include "task.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>

int hwprof_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		      unsigned long flags, int *obtained)
{
	const struct hwprof_sys *sys = hwprof_sys();
	/* The kernel may write into attr (size on E2BIG): every try starts from the original. */
	struct perf_event_attr want = *attr;
	int requested = (int)want.precise_ip;
	int first_err = -EINVAL;

	for (int level = requested; level >= 0; level--) {
		*attr = want;
		attr->precise_ip = (unsigned)level;
		int fd = sys->perf_event_open(attr, pid, cpu, group_fd, flags);
		if (fd >= 0) {
			if (obtained)
				*obtained = level;
			return fd;
		}
		if (level == requested)
			first_err = fd;
	}
	*attr = want;
	/* A thread that ended meanwhile: its member events fail with ENODEV or EINVAL, which
	 * would read as an event the kernel lacks. */
	if (pid > 0 && first_err != -ESRCH && hwprof_task_gone(pid))
		return -ESRCH;
	return first_err;
}

bool hwprof_host_has_pmu(void)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	int fd = hwprof_sys()->perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return false;
	hwprof_sys()->close(fd);
	return true;
}
