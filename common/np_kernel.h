/*
 * np_kernel.h - kernel counter snapshots: the evidence that loss happened
 * where we say it did.
 *
 * A snapshot reads, in this order:
 *   /proc/net/snmp, /proc/net/snmp6, /proc/net/netstat,
 *   /proc/net/softnet_stat,
 *   /proc/sys/net/core/{rmem_max,rmem_default,wmem_max,wmem_default,
 *                       netdev_max_backlog},
 *   /proc/sys/net/ipv4/{udp_mem,udp_rmem_min},
 *   /sys/class/net/lo/mtu
 * and keeps (a) the raw text of each source verbatim and (b) parsed counters
 * as name -> int64.  A missing or unreadable source is recorded as absent,
 * never an error.
 *
 * Raw text format (what the matrix runner writes to *.kernel-*.txt and the
 * archive keeps), one section per source, in the order above:
 *     ==> /proc/net/snmp <==\n<verbatim content>
 *     ==> /proc/net/snmp6 (absent: No such file or directory) <==\n
 * np_kernel_parse_raw() turns that text back into an identical snapshot, so
 * evidence on disk can be re-checked without the machine.
 *
 * Counter names:
 *   "Ip.ReasmReqds", "Udp.RcvbufErrors", ...      (/proc/net/snmp: Group.Field)
 *   "Udp6.Udp6RcvbufErrors", "Ip6.Ip6ReasmReqds"  (/proc/net/snmp6: the file's
 *                                                  own names, group = prefix)
 *   "TcpExt.X", "IpExt.Y"                         (/proc/net/netstat)
 *   "softnet.processed", "softnet.dropped", "softnet.time_squeeze"
 *                                                  (summed over CPUs)
 *   "sysctl.net.core.rmem_max", ..., "sysctl.net.ipv4.udp_mem.min|pressure|max",
 *   "sysctl.net.ipv4.udp_rmem_min", "lo.mtu"
 */
#ifndef NP_KERNEL_H
#define NP_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "np_err.h"

struct np_kernel;

/* Read every source now.  NP_ENOMEM is the only failure. */
int np_kernel_take(struct np_kernel **out);

/* Rebuild a snapshot from raw text produced by np_kernel_raw(). NP_EPARSE
 * (detail in eb) when the section structure is broken. */
int np_kernel_parse_raw(const char *text, size_t len, struct np_kernel **out,
                        struct np_errbuf *eb);

void np_kernel_free(struct np_kernel *k); /* accepts NULL */

/* The raw text (owned by k, valid until np_kernel_free). */
const char *np_kernel_raw(const struct np_kernel *k, size_t *len);

/* Counter value; NP_ENOENT when the source or the field is absent. */
int np_kernel_get(const struct np_kernel *k, const char *name, int64_t *out);

/* {"sources": {"/proc/net/snmp": "present"|"absent: reason", ...},
 *  "counters": {name: value, ...}} - counters in source order. */
cJSON *np_kernel_to_json(const struct np_kernel *k);

/* Deltas after - before for the counters the records care about (listed in
 * np_kernel.c: Udp/Udp6 errors, Ip/Ip6 reassembly and fragmentation, softnet
 * drops ...); a counter absent in either is omitted. */
cJSON *np_kernel_delta_json(const struct np_kernel *before,
                            const struct np_kernel *after);

/* A snapshot rebuilt from its JSON form ({"sources", "counters"}, as
 * np_kernel_to_json writes it, e.g. a run record's kernel.before), so the
 * same code (np_kernel_get, np_kernel_delta_json) reads records and raw
 * text alike.  The rebuilt snapshot has no raw text (np_kernel_raw gives
 * "").  NP_EPARSE (detail in eb) when a counter is not an integer or a
 * source not "present" / "absent: reason"; NP_ENOMEM. */
int np_kernel_from_json(const cJSON *snapshot, struct np_kernel **out,
                        struct np_errbuf *eb);

/* The i-th counter of np_kernel_delta_json's list (all monotone counters),
 * or NULL past the end. */
const char *np_kernel_delta_name(size_t i);

#endif /* NP_KERNEL_H */
