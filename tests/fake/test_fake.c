/* test_fake.c - the fake kernel answers as fake_kernel.h promises (others build on it). */
#include "fake_kernel.h"

#include "hwprof/sys.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

static struct perf_event_attr attr_of(uint32_t type, uint64_t config)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return a;
}

static void teardown(void)
{
	fake_kernel_uninstall();
}

TestSuite(fake, .fini = teardown);

Test(fake, no_pmu_enoent_software_works)
{
	struct fake_kernel_config cfg = fake_kernel_defaults();
	cfg.has_pmu = false;
	fake_kernel_install(&cfg);
	const struct hwprof_sys *s = hwprof_sys();
	struct perf_event_attr a = attr_of(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	cr_assert_eq(s->perf_event_open(&a, 0, -1, -1, 0), -ENOENT);
	a = attr_of(PERF_TYPE_RAW, 0x1a8);
	cr_assert_eq(s->perf_event_open(&a, 0, -1, -1, 0), -ENOENT);
	a = attr_of(20, 0x1);
	cr_assert_eq(s->perf_event_open(&a, 0, -1, -1, 0), -ENOENT);
	a = attr_of(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	a.precise_ip = 3;
	int fd = s->perf_event_open(&a, 0, -1, -1, 0);
	cr_assert_geq(fd, 0);
	cr_assert_eq(fake_kernel_nopens(), 4);
	cr_assert_eq(fake_kernel_open_log(3)->result, fd);
	cr_assert_eq(fake_kernel_open_log(0)->attr.config, PERF_COUNT_HW_CPU_CYCLES);
	cr_assert_eq(s->close(fd), 0);
	cr_assert_eq(fake_kernel_nfds_open(), 0);
}

Test(fake, precise_and_paranoid)
{
	struct fake_kernel_config cfg = fake_kernel_defaults();
	cfg.max_precise = 1;
	cfg.precise_errno = EINVAL;
	fake_kernel_install(&cfg);
	const struct hwprof_sys *s = hwprof_sys();
	struct perf_event_attr a = attr_of(PERF_TYPE_HARDWARE, 0);
	a.precise_ip = 2;
	cr_assert_eq(s->perf_event_open(&a, 0, -1, -1, 0), -EINVAL);
	a.precise_ip = 1;
	cr_assert_geq(s->perf_event_open(&a, 0, -1, -1, 0), 0);
	/* paranoid 2: kernel counting refused, CPU-wide refused at >= 1. */
	a.exclude_kernel = 0;
	cr_assert_eq(s->perf_event_open(&a, 0, -1, -1, 0), -EACCES);
	a.exclude_kernel = 1;
	cr_assert_eq(s->perf_event_open(&a, -1, 0, -1, 0), -EACCES);
	cr_assert_eq(s->perf_event_open(&a, -1, -1, -1, 0), -EINVAL);

	cfg.paranoid = 3;
	fake_kernel_install(&cfg);
	cr_assert_eq(s->perf_event_open(&a, 0, -1, -1, 0), -EACCES);
	cfg.privileged = true;
	fake_kernel_install(&cfg);
	a.exclude_kernel = 0;
	cr_assert_geq(s->perf_event_open(&a, -1, 0, -1, 0), 0);
	cfg.privileged = false;
	cfg.paranoid = -1;
	fake_kernel_install(&cfg);
	cr_assert_geq(s->perf_event_open(&a, -1, 0, -1, 0), 0);
}

Test(fake, group_read_format_and_ioctls)
{
	struct fake_kernel_config cfg = fake_kernel_defaults();
	fake_kernel_install(&cfg);
	fake_kernel_set_count(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 3000);
	fake_kernel_set_count(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 2000);
	const struct hwprof_sys *s = hwprof_sys();
	uint64_t rf = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
		      PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
	struct perf_event_attr a = attr_of(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	a.read_format = rf;
	a.disabled = 1;
	int lead = s->perf_event_open(&a, 0, -1, -1, 0);
	a = attr_of(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	a.read_format = rf;
	int mem = s->perf_event_open(&a, 0, -1, lead, 0);
	cr_assert_geq(lead, 0);
	cr_assert_geq(mem, 0);

	uint64_t buf[16];
	/* Before ENABLE: zero counts and times. */
	cr_assert_eq(s->read(lead, buf, sizeof(buf)), 7 * 8);
	cr_assert_eq(buf[0], 2);
	cr_assert_eq(buf[1], 0);
	cr_assert_eq(buf[3], 0);

	cr_assert_eq(s->ioctl(lead, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP), 0);
	cr_assert_eq(fake_kernel_is_enabled(mem), 1);
	cr_assert_eq(s->read(mem, buf, sizeof(buf)), 7 * 8);
	cr_assert_eq(buf[0], 2);
	cr_assert_eq(buf[1], 1000000000);
	cr_assert_eq(buf[2], 1000000000);
	cr_assert_eq(buf[3], 3000);
	cr_assert_eq(buf[4], fake_kernel_id(lead));
	cr_assert_eq(buf[5], 2000);
	cr_assert_eq(buf[6], fake_kernel_id(mem));
	uint64_t id = 0;
	cr_assert_eq(s->ioctl(mem, PERF_EVENT_IOC_ID, (unsigned long)&id), 0);
	cr_assert_eq(id, buf[6]);
	cr_assert_eq(s->read(lead, buf, 6 * 8), -ENOSPC);

	cr_assert_eq(s->ioctl(lead, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP), 0);
	cr_assert_eq(s->ioctl(lead, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP), 0);
	cr_assert_eq(s->read(lead, buf, sizeof(buf)), 7 * 8);
	cr_assert_eq(buf[3], 0);
	cr_assert_eq(fake_kernel_nioctls(), 4);
	cr_assert_eq(fake_kernel_ioctl_log(0)->request, PERF_EVENT_IOC_ENABLE);
	cr_assert_eq(fake_kernel_ioctl_log(0)->arg, PERF_IOC_FLAG_GROUP);
}

Test(fake, multiplexing_single_reads)
{
	struct fake_kernel_config cfg = fake_kernel_defaults();
	cfg.nr_counters = 2;
	fake_kernel_install(&cfg);
	fake_kernel_set_count(PERF_TYPE_HARDWARE, 1, 9000);
	const struct hwprof_sys *s = hwprof_sys();
	int fd[4];
	for (int i = 0; i < 3; i++) {
		struct perf_event_attr a = attr_of(PERF_TYPE_HARDWARE, (uint64_t)i);
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		fd[i] = s->perf_event_open(&a, 0, -1, -1, 0);
		cr_assert_geq(fd[i], 0);
	}
	struct perf_event_attr a = attr_of(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd[3] = s->perf_event_open(&a, 0, -1, -1, 0);
	uint64_t b[3];
	/* Three hardware events on two counters: each runs 2/3 of the time. */
	cr_assert_eq(s->read(fd[1], b, sizeof(b)), 24);
	cr_assert_eq(b[1], 1000000000);
	cr_assert_eq(b[2], 666666666);
	cr_assert_eq(b[0], 9000ull * 666666666 / 1000000000);
	cr_assert_eq(s->read(fd[3], b, sizeof(b)), 24);
	cr_assert_eq(b[2], b[1]);
	cr_assert_eq(b[0], 1000000);

	fake_kernel_set_times(PERF_TYPE_HARDWARE, 2, 500, 0);
	cr_assert_eq(s->read(fd[2], b, sizeof(b)), 24);
	cr_assert_eq(b[0], 0);
	cr_assert_eq(b[1], 500);
	cr_assert_eq(b[2], 0);
}

Test(fake, old_kernel_emfile_group_limit_mmap)
{
	struct fake_kernel_config cfg = fake_kernel_defaults();
	cfg.old_kernel_inherit_group = true;
	cfg.max_fds = 3;
	cfg.nr_counters = 2;
	fake_kernel_install(&cfg);
	const struct hwprof_sys *s = hwprof_sys();
	struct perf_event_attr a = attr_of(PERF_TYPE_HARDWARE, 0);
	a.inherit = 1;
	a.read_format = PERF_FORMAT_GROUP;
	cr_assert_eq(s->perf_event_open(&a, 0, -1, -1, 0), -EINVAL);
	a.inherit = 0;
	int lead = s->perf_event_open(&a, 0, -1, -1, 0);
	cr_assert_geq(lead, 0);
	cr_assert_geq(s->perf_event_open(&a, 0, -1, lead, 0), 0);
	/* a third hardware member does not fit two counters */
	cr_assert_eq(s->perf_event_open(&a, 0, -1, lead, 0), -EINVAL);
	cr_assert_eq(s->perf_event_open(&a, 0, -1, 9999, 0), -EBADF);
	struct perf_event_attr sw = attr_of(PERF_TYPE_SOFTWARE, 0);
	cr_assert_geq(s->perf_event_open(&sw, 0, -1, lead, 0), 0);
	cr_assert_eq(s->perf_event_open(&sw, 0, -1, -1, 0), -EMFILE);
	int err = 0;
	cr_assert_null(s->mmap(lead, 4096 * 2, &err));
	cr_assert_eq(err, EINVAL);

	cfg.allow_mmap = true;
	fake_kernel_install(&cfg);
	int fd = s->perf_event_open(&sw, 0, -1, -1, 0);
	void *p = s->mmap(fd, 4096 * 2, &err);
	cr_assert_not_null(p);
	cr_assert_eq(((struct perf_event_mmap_page *)p)->data_head, 0);
	cr_assert_eq(s->munmap(p, 4096 * 2), 0);
}

Test(fake, dead_pid)
{
	fake_kernel_install(NULL);
	struct perf_event_attr a = attr_of(PERF_TYPE_SOFTWARE, 0);
	cr_assert_eq(hwprof_sys()->perf_event_open(&a, 999999999, -1, -1, 0), -ESRCH);
}
