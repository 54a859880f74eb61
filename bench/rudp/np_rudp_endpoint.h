/*
 * np_rudp_endpoint.h - the endpoints of one round on libuv UDP sockets.
 *
 * A lane is one libuv loop on one thread.  Lane 0 owns the server socket
 * and one server-side ARQ connection per client (demultiplexed by the conv
 * id in the header, address pinned by the first datagram); clients are
 * spread round-robin over the lanes, each with its own connected socket to
 * its relay route.  Each lane flushes the connections that received data
 * once per loop iteration (uv_check, so acks cover a whole batch) and arms
 * one uv_timer on the earliest np_arq_deadline of its connections.
 *
 * The controlling thread moves every lane through the phases with an
 * atomic and a uv_async wake-up; lanes report drained / closed counts
 * through atomics.  Nothing else is shared while the lanes run.
 */
#ifndef NP_RUDP_ENDPOINT_H
#define NP_RUDP_ENDPOINT_H

#include <stdatomic.h>
#include <sys/socket.h>

#include "np_arq.h"
#include "np_relay.h"
#include "np_rudp_run.h"

enum np_rudp_phase {
  NP_RUDP_WARMUP,  /* clients keep `window` requests in flight         */
  NP_RUDP_MEASURE, /* same, counted from here (baseline snapshot)      */
  NP_RUDP_DRAIN,   /* no new requests; wait for the outstanding ones   */
  NP_RUDP_CLOSE,   /* end snapshot, then orderly close both ways       */
  NP_RUDP_STOP     /* leave the loop                                    */
};

struct np_rudp_ctl {
  _Atomic int phase;
  _Atomic uint32_t drained; /* clients with nothing outstanding (DRAIN+) */
  _Atomic uint32_t done;    /* connections CLOSED or FAILED (CLOSE+)     */
  _Atomic uint32_t ready;   /* lanes whose loop runs                      */
};

struct np_rudp_net;

/* Build the lanes, sockets and connections for one round; clients target
 * their relay route (route i for client i) obtained from relay.  The
 * server binds server_at (an external relay's forward address), or
 * 127.0.0.1 port 0 when NULL; its address is in *server_addr after
 * np_rudp_net_bind.  cfg->role builds one side only: CLIENT (--connect)
 * no server socket or connections, the clients bound to the wildcard
 * address and sent to cfg->connect_addr; SERVER (rudp-serve) no clients,
 * the server bound at cfg->listen_addr. */
int np_rudp_net_bind(const struct np_rudp_config *cfg, struct np_rudp_ctl *ctl,
                     uint64_t seed, const struct sockaddr *server_at,
                     struct np_rudp_net **out,
                     struct sockaddr_storage *server_addr,
                     struct np_errbuf *eb);
/* Point the clients at the relay (route i of relay, or cfg->relay_addr
 * when relay is NULL) and start every lane thread. */
int np_rudp_net_start(struct np_rudp_net *n, const struct np_relay *relay,
                      struct np_errbuf *eb);
/* Where client i's socket is bound (the source address a relay sees). */
int np_rudp_net_client_addr(const struct np_rudp_net *n, uint32_t i,
                            struct sockaddr_storage *out);
/* Tell every lane the phase changed (after storing ctl->phase). */
void np_rudp_net_wake(struct np_rudp_net *n);
/* Join the lane threads (after NP_RUDP_STOP) and fill r's endpoint part. */
int np_rudp_net_join(struct np_rudp_net *n, struct np_rudp_round *r);
uint32_t np_rudp_net_conns(const struct np_rudp_net *n);
/* --interval: every lane hands over the slice's latencies (merged into
 * slice) and its measured round trips so far (summed into *roundtrips);
 * controller thread only.  NP_EINVAL when the lanes keep no slices. */
int np_rudp_net_interval(struct np_rudp_net *n, struct np_hist *slice,
                         uint64_t *roundtrips);
void np_rudp_net_free(struct np_rudp_net *n); /* accepts NULL */

#endif /* NP_RUDP_ENDPOINT_H */
