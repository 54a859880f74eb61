/*
 * np_udp_syscount.h - system calls and context switches of a run's lane
 * threads, for --count-syscalls (see docs/udp-benchmark.md).
 *
 * System calls are counted by the transports at each call site
 * (np_udp_transport.h loop_syscalls): a lane's thread makes no others
 * (the echo logic allocates nothing and clock_gettime is in the vDSO).
 * Context switches come from the kernel: voluntary_ctxt_switches and
 * nonvoluntary_ctxt_switches in /proc/self/task/TID/status, summed over
 * every thread of the process except the caller (the controller, which
 * only sleeps between phases).
 */
#ifndef NP_UDP_SYSCOUNT_H
#define NP_UDP_SYSCOUNT_H

#include <stdint.h>

#include "np_udp_result.h" /* struct np_udp_syscount */

/* Context switches of every thread of this process but the calling one,
 * summed into *voluntary and *involuntary.  0, or NP_E* when
 * /proc/self/task cannot be read. */
int np_udp_syscount_ctxsw(uint64_t *voluntary, uint64_t *involuntary);

#endif /* NP_UDP_SYSCOUNT_H */
