/* sys.c - the real kernel behind hwprof/sys.h. */
#include "hwprof/sys.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int k_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			     unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
	return fd < 0 ? -errno : (int)fd;
}

static int k_ioctl(int fd, unsigned long request, unsigned long arg)
{
	int r = ioctl(fd, request, arg);
	return r < 0 ? -errno : r;
}

static ssize_t k_read(int fd, void *buf, size_t len)
{
	ssize_t r;
	do
		r = read(fd, buf, len);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r;
}

static void *k_mmap(int fd, size_t len, int *err)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		*err = errno;
		return NULL;
	}
	return p;
}

static int k_munmap(void *addr, size_t len)
{
	return munmap(addr, len) < 0 ? -errno : 0;
}

static int k_close(int fd)
{
	return close(fd) < 0 ? -errno : 0;
}

const struct hwprof_sys hwprof_sys_kernel = {
    .perf_event_open = k_perf_event_open,
    .ioctl = k_ioctl,
    .read = k_read,
    .mmap = k_mmap,
    .munmap = k_munmap,
    .close = k_close,
};

static const struct hwprof_sys *current = &hwprof_sys_kernel;

const struct hwprof_sys *hwprof_sys(void)
{
	return current;
}

void hwprof_sys_set(const struct hwprof_sys *ops)
{
	current = ops ? ops : &hwprof_sys_kernel;
}
