/*
 * np_sysinfo.h - the machine a run happened on.
 *
 * Everything is read from /proc, /sys, /etc/os-release and uname(2); a
 * value that cannot be read is JSON null, never a guess.
 */
#ifndef NP_SYSINFO_H
#define NP_SYSINFO_H

#include <cjson/cJSON.h>

#include "np_err.h"

/* The record's `machine` object:
 *   hostname, cpu_model, logical_cores, mem_total_bytes, kernel_release,
 *   os_pretty_name, arch, hypervisor (bool, from the cpuinfo "hypervisor"
 *   flag), clocksource, cpu_governor (cpu0, null if absent),
 *   turbo {"intel_no_turbo"|"cpufreq_boost": value} or null,
 *   loadavg [1, 5, 15], vmstat {pswpin, pswpout}.
 * NULL on allocation failure. */
cJSON *np_sysinfo_machine_json(void);

/* Short name for chart subtitles and folder names: the hostname's first
 * label, lowercased, with anything outside [a-z0-9-] replaced by '-'. */
int np_sysinfo_short_name(char *buf, size_t len);

#endif /* NP_SYSINFO_H */
