/* hwprof/sys.h - the injectable system-call layer under every perf_event_open(2) user.
 *
 * Everything in libhwprof that talks to the kernel's perf interface goes through the table
 * returned by hwprof_sys(). Tests install a fake kernel (tests/fake/fake_kernel.h) that
 * answers ENOENT / EINVAL / EOPNOTSUPP / EACCES the way a real kernel does, so the hardware
 * code paths are exercised on hosts without a PMU. The product itself always uses the real
 * kernel: nothing here fakes a count.
 */
#ifndef HWPROF_SYS_H
#define HWPROF_SYS_H

#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct perf_event_attr;

/* The calls, each returning the kernel's answer with errors as -errno (never setting errno). */
struct hwprof_sys {
	/* perf_event_open(2): returns a new fd or -errno. ATTR may be modified by the kernel
	 * (it writes attr->size back on E2BIG). */
	int (*perf_event_open)(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			       unsigned long flags);
	/* ioctl(2) on a perf fd (PERF_EVENT_IOC_*): returns >= 0 or -errno. */
	int (*ioctl)(int fd, unsigned long request, unsigned long arg);
	/* read(2): returns bytes read or -errno. */
	ssize_t (*read)(int fd, void *buf, size_t len);
	/* mmap(2) of LEN bytes of a perf fd, PROT_READ|PROT_WRITE, MAP_SHARED at offset 0:
	 * returns the address, or NULL with *err set to the errno. */
	void *(*mmap)(int fd, size_t len, int *err);
	/* munmap(2): 0 or -errno. */
	int (*munmap)(void *addr, size_t len);
	/* close(2): 0 or -errno. */
	int (*close)(int fd);
};

/* Returns the table in use: the real kernel unless a test installed another. Never NULL. */
const struct hwprof_sys *hwprof_sys(void);

/* Installs OPS (not copied; must outlive its use) for the whole process; NULL restores the
 * real kernel. Not thread-safe: tests call it before opening anything. */
void hwprof_sys_set(const struct hwprof_sys *ops);

/* The real kernel's table. */
extern const struct hwprof_sys hwprof_sys_kernel;

#ifdef __cplusplus
}
#endif

#endif
