/*
 * np_agent_wire.h - the control channel's messages on the wire, shared by
 * `netproof-bench agent` and its client (udp --agent).
 *
 * A message is a 4-byte big-endian length N (1 <= N <= 65,536), then N
 * bytes of one JSON object tagged "netproof/agent/1" that validates
 * against schema/agent.schema.json (our validator), with no member name
 * twice in one object.  np_agent_msg_parse is
 * the one way bytes become a message, on both sides: the size and depth
 * limits come before cJSON sees anything, the schema before any field is
 * read, so every later reader may trust the shape (it is the libFuzzer
 * target tests/fuzz/fuzz_agent_msg.c).  A length outside the bounds is
 * refused from the 4 header bytes alone, without reading the body.
 *
 * Reading is incremental (struct np_agent_rx over a non-blocking socket)
 * so the agent's loop can hold many connections and bound each by a
 * deadline; the client side reads and writes with poll and a deadline.
 */
#ifndef NP_AGENT_WIRE_H
#define NP_AGENT_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "np_err.h"

#define NP_AGENT_TAG "netproof/agent/1"
#define NP_AGENT_MSG_MAX 65536u   /* bytes of one message's JSON         */
#define NP_AGENT_MSG_DEPTH 16     /* nesting of one message              */
#define NP_AGENT_HDR 4u           /* the length prefix                   */

enum np_agent_type {
  NP_AGENT_HELLO,
  NP_AGENT_CHALLENGE,
  NP_AGENT_AUTH,
  NP_AGENT_WELCOME,
  NP_AGENT_REFUSED,
  NP_AGENT_REQUEST,
  NP_AGENT_RESPONSE
};

/* "hello", ... (the schema's "type" values, by enum value). */
const char *np_agent_type_name(enum np_agent_type t);

/* The compiled message schema, built once by the caller and shared. */
struct np_agent_schema;
int np_agent_schema_new(struct np_agent_schema **out, struct np_errbuf *eb);
void np_agent_schema_free(struct np_agent_schema *s); /* accepts NULL */

/* Parse and validate len bytes (the body, without the length prefix).
 * On success *out owns the message and *type says which it is.  Errors:
 * NP_ETOOBIG (over NP_AGENT_MSG_MAX or 0 bytes), NP_ETOODEEP, NP_EPARSE
 * (also for a member name twice in one object),
 * NP_ENONFINITE, NP_ESCHEMA ("/pointer: keyword: reason" in eb),
 * NP_ENOMEM. */
int np_agent_msg_parse(const struct np_agent_schema *s, const char *buf,
                       size_t len, cJSON **out, enum np_agent_type *type,
                       struct np_errbuf *eb);

/* The bytes of msg on the wire (length prefix + compact JSON), malloc'd
 * into *buf / *len.  NP_ETOOBIG when the JSON exceeds NP_AGENT_MSG_MAX,
 * NP_ENOMEM. */
int np_agent_msg_encode(const cJSON *msg, unsigned char **buf, size_t *len,
                        struct np_errbuf *eb);

/* A new message {"schema": NP_AGENT_TAG, "type": name}; NULL on no
 * memory. */
cJSON *np_agent_msg_new(enum np_agent_type t);

/* The fixed refusal, as bytes on the wire (static; never freed). */
const unsigned char *np_agent_refusal(size_t *len);

/* Length of a message from its 4 header bytes; 0 when outside
 * 1..NP_AGENT_MSG_MAX (the message is refused unread). */
uint32_t np_agent_hdr_len(const unsigned char hdr[NP_AGENT_HDR]);

/* One message being received on a non-blocking socket. */
struct np_agent_rx {
  unsigned char hdr[NP_AGENT_HDR]; /* the length prefix as read          */
  size_t hdr_have;                 /* bytes of it read                   */
  uint32_t len;                    /* body length (valid once hdr done)  */
  char *body;                      /* NP_AGENT_MSG_MAX + 1 bytes; owned  */
  size_t have;                     /* body bytes read                    */
};

/* Allocate the body buffer.  NP_ENOMEM. */
int np_agent_rx_init(struct np_agent_rx *rx);
void np_agent_rx_free(struct np_agent_rx *rx); /* accepts NULL */
/* Start over for the next message (keeps the buffer). */
void np_agent_rx_reset(struct np_agent_rx *rx);

/* Read what fd has now.  Returns 1 when a whole message is in rx->body
 * (rx->len bytes, NUL-terminated), 0 when more is needed (EAGAIN),
 * NP_ETOOBIG for a length out of bounds, NP_EIO when the peer closed or
 * the read failed. */
int np_agent_rx_step(struct np_agent_rx *rx, int fd);

/* Write all of buf to fd (blocking or not) before the monotonic deadline
 * (seconds, np_time_mono_s).  NP_ETIMEDOUT, NP_EIO. */
int np_agent_write_all(int fd, const void *buf, size_t len, double deadline);

/* Client side: send msg, or receive one message (parsed and validated)
 * before the deadline.  Receive errors: NP_ETIMEDOUT, NP_EIO (closed),
 * NP_ETOOBIG and np_agent_msg_parse's. */
int np_agent_send(int fd, const cJSON *msg, double deadline,
                  struct np_errbuf *eb);
int np_agent_recv(int fd, const struct np_agent_schema *s, double deadline,
                  cJSON **out, enum np_agent_type *type,
                  struct np_errbuf *eb);

/* At most in_len bytes of in (up to its NUL) into out as printable
 * ASCII, for log and error lines: bytes < 0x20, 0x7f and >= 0x80 become
 * "\xNN"; truncated at a whole character or escape to fit out_len
 * (including the NUL; out_len >= 1).  Returns strlen(out). */
size_t np_agent_text_safe(const char *in, size_t in_len, char *out,
                          size_t out_len);

/* Lowercase hex of n bytes into out (2n + 1 bytes). */
void np_agent_hex(const unsigned char *b, size_t n, char *out);
/* Decode exactly n bytes of hex (either case); NP_EPARSE otherwise. */
int np_agent_unhex(const char *hex, unsigned char *b, size_t n);

#endif /* NP_AGENT_WIRE_H */
