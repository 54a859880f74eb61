/*
 * np_udp_msg.h - the benchmark's datagram: what a client sends, what the
 * server echoes and what the client checks.
 *
 * Wire layout (little-endian), truncated to the payload size P:
 *   [0, 8)   seq     per-client sequence number
 *   [8, 12)  client  client id
 *   [12, 16) check   32-bit checksum over (seed, client, seq, body)
 *   [16, 24) ts      client send time, CLOCK_MONOTONIC ns
 *   [24, P)  body    pseudo-random bytes from (seed, client, seq): see
 *                    struct np_udp_msg_gen
 * Payloads shorter than 24 bytes carry only the first P bytes of this
 * layout (the compact form).  The client never trusts the wire for timing:
 * it keeps each message's send time in a ring indexed by seq % window, so
 * the timestamp field is content, not a clock source.  Below 8 bytes the
 * wire carries only the low 8*P bits of seq; the client widens them against
 * the newest sequence it sent (np_udp_msg_expand_seq), which is exact while
 * the window is at most 2^(8*P) (checked by the CLI).
 *
 * Verification compares every one of the P bytes with what (seq, ts)
 * must produce, whatever P is.
 */
#ifndef NP_UDP_MSG_H
#define NP_UDP_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "np_err.h"

#define NP_UDP_MSG_HEADER 24u

/* Per-client generator: a pseudo-random base body drawn once from
 * (seed, client); message seq's body is the base XOR a 64-bit key drawn
 * from (seed, client, seq), so every message differs and building or
 * checking one costs about a memcpy.  The check field is a hash of (seed,
 * client, seq, the body's word count and the base body's XOR fold). */
struct np_udp_msg_gen {
  uint64_t seed;
  uint32_t client;
  size_t payload;
  uint8_t *base;      /* payload bytes (only [24, payload) used); owned */
  uint64_t base_fold; /* XOR of the base body's 8-byte words            */
};

/* Allocate and draw the base body.  NP_ENOMEM on failure. */
int np_udp_msg_gen_init(struct np_udp_msg_gen *g, uint64_t seed,
                        uint32_t client, size_t payload);
void np_udp_msg_gen_free(struct np_udp_msg_gen *g); /* accepts NULL */

/* Write the payload-byte message (seq, ts) into buf[0, payload). */
void np_udp_msg_build(const struct np_udp_msg_gen *g, uint8_t *buf,
                      uint64_t seq, uint64_t ts);

/* 1 when buf[0, len) is exactly the message (seq, ts), else 0. */
int np_udp_msg_verify(const struct np_udp_msg_gen *g, const uint8_t *buf,
                      size_t len, uint64_t seq, uint64_t ts);

/* Bits of seq the wire carries at this payload size (8 * P, at most 64). */
unsigned np_udp_msg_seq_bits(size_t payload);

/* The (possibly truncated) sequence field of a received message. */
uint64_t np_udp_msg_wire_seq(const uint8_t *buf, size_t len);

/* Widen a truncated wire seq to the nearest sequence <= newest. */
uint64_t np_udp_msg_expand_seq(uint64_t newest, uint64_t wire, unsigned bits);

/* One --work unit: a xorshift64* round over each of the payload's first 64
 * bytes read as eight little-endian 64-bit words (zero-padded when the
 * payload is shorter).  Returns the mixed state so the work is observable. */
uint64_t np_udp_work(const uint8_t *buf, size_t len, uint32_t units);

#define NP_UDP_WORK_UNIT_TEXT                                                \
  "one xorshift64* round (x^=w; x^=x>>12; x^=x<<25; x^=x>>27; "              \
  "x*=0x2545F4914F6CDD1D) per 8-byte little-endian word of the payload's "   \
  "first 64 bytes (zero-padded), i.e. 8 rounds per unit"

#endif /* NP_UDP_MSG_H */
