/*
 * np_relay_tcp.h - TCP passthrough of the standalone relay: tools with a
 * TCP control channel on the same port as their UDP data (iperf3) work
 * through the relay.  TCP connections accepted on the listen address are
 * forwarded to the forward address byte for byte, unimpaired, on the
 * relay's own loop thread.
 *
 * Bounded: at most max_connections at once (more are accepted and closed
 * at once, counted as refused), at most max_bytes per connection in both
 * directions together (a connection that reaches it is closed, counted);
 * each direction buffers at most NP_RELAY_TCP_BUF bytes, reserved per
 * connection slot when the relay is created.  A connection one side has
 * closed (FIN, or a reset) whose other side has not finished within
 * tcp_idle_seconds is closed and its slot freed (counted idle_closes).
 */
#ifndef NP_RELAY_TCP_H
#define NP_RELAY_TCP_H

#include <stdint.h>

#define NP_RELAY_TCP_BUF 65536u

/* What the passthrough did (relay-wide). */
struct np_relay_tcp_stats {
  uint64_t accepted;          /* connections taken within the bound      */
  uint64_t refused;           /* closed at once: max_connections reached */
  uint64_t connect_failed;    /* accepted, but the forward connect failed */
  uint64_t closed;            /* connected ones that ended since         */
  uint64_t byte_limit_closes; /* ... because max_bytes was reached       */
  uint64_t resets;            /* ... by a reset or I/O error on a side   */
  uint64_t idle_closes;       /* ... because tcp_idle_seconds passed after
                                 one side's FIN without the other's      */
  uint64_t bytes_c2s;         /* client -> server bytes forwarded        */
  uint64_t bytes_s2c;         /* server -> client bytes forwarded        */
  uint64_t active;            /* connections open now                    */
  uint64_t peak_active;       /* most open at once                       */
};

#endif /* NP_RELAY_TCP_H */
