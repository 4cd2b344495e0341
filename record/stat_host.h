/* stat_host.h - what `hwprof stat` asks of the host's PMUs (sysfs
 * <sysfs>/bus/event_source/devices/PMU/, hwprof_sysfs_root()): whether an event list will
 * multiplex on the core PMU's counters, the CPUs a PMU counts on, and whether it is uncore.
 */
#ifndef HWPROF_STAT_HOST_H
#define HWPROF_STAT_HOST_H

#include <stdbool.h>

struct hwprof_event;
struct hwprof_event_list;

/* Warns (one warning()) when LIST holds more hardware events of the core PMU than it has
 * counters free (the NMI watchdog holds one): the set will multiplex. Nothing when the
 * number of counters is unknown. */
void stat_warn_multiplexing(const struct hwprof_event_list *list);

/* Whether the sysfs PMU of EV counts on CPU (its cpus or cpumask list). True for an event
 * without a sysfs PMU, and for a PMU that lists no CPUs. */
bool stat_pmu_covers(const struct hwprof_event *ev, int cpu);

/* Whether the sysfs PMU of EV has a cpumask: an uncore PMU, whose events count a whole
 * socket, not a process. */
bool stat_is_uncore(const struct hwprof_event *ev);

#endif
