/*
 * np_udp_lanecpu.h - CPU time of each lane thread over the measured
 * window, and whether the client was CPU-bound (common/np_busy.h).
 *
 * The controller reads each lane's thread clock (pthread_getcpuclockid)
 * right before the measurement phase starts and right after its sleep
 * ends, so the window is res->measure_seconds exactly; warm-up and drain
 * are outside it.  Written for the clients-only modes (`--connect`,
 * `--agent`), where the process's lanes are the client: the record's
 * external.client_cpu.
 */
#ifndef NP_UDP_LANECPU_H
#define NP_UDP_LANECPU_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "np_udp_result.h" /* struct np_udp_lanecpu */

struct np_udp_engine;

/* Read every lane's clock: start (at == 0) or end of the window (at == 1).
 * Returns 0 or NP_ENOMEM (start only); a lane whose clock cannot be read
 * counts -1, and the record says the figure is unknown. */
int np_udp_lanecpu_snap(struct np_udp_lanecpu *lc,
                        const struct np_udp_engine *eng, int at);

/* external.client_cpu: lanes' CPU seconds, the window, the busiest
 * fraction, the saturation flag and its rule; NULL on allocation failure. */
cJSON *np_udp_lanecpu_json(const struct np_udp_lanecpu *lc,
                           double window_seconds);

/* 1 when the busiest lane was CPU-bound over window_seconds */
int np_udp_lanecpu_saturated(const struct np_udp_lanecpu *lc,
                             double window_seconds, double *busiest);

void np_udp_lanecpu_free(struct np_udp_lanecpu *lc); /* accepts NULL */

#endif /* NP_UDP_LANECPU_H */
