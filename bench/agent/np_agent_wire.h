/*
 * np_agent_wire.h - the control channel's messages, shared by
 * `netproof-bench agent` and its client (udp --agent).  They travel
 * inside TLS 1.3 (np_agent_tls.h): this layer sees decrypted bytes only.
 *
 * A message is a 4-byte big-endian length N (1 <= N <= 65,536), then N
 * bytes of one JSON object tagged "netproof/agent/2" that validates
 * against schema/agent.schema.json (our validator), with no member name
 * twice in one object.  np_agent_msg_parse is
 * the one way bytes become a message, on both sides: the size and depth
 * limits come before cJSON sees anything, the schema before any field is
 * read, so every later reader may trust the shape.  A length outside the
 * bounds is refused from the 4 header bytes alone, without reading the
 * body.  Framing is sans-IO (np_agent_rx_feed takes whatever bytes TLS
 * gave), so the agent's loop can hold many connections, and the framer
 * and the parser are together the libFuzzer target
 * tests/fuzz/fuzz_agent_msg.c.
 *
 * The 0.2 protocol (netproof/agent/1: the same frames in plaintext, an
 * HMAC handshake) is recognised only to refuse it by name: its fixed
 * refusal is np_agent_refusal_v1.
 */
#ifndef NP_AGENT_WIRE_H
#define NP_AGENT_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "np_err.h"

#define NP_AGENT_TAG "netproof/agent/2"
#define NP_AGENT_TAG_V1 "netproof/agent/1" /* 0.2: refused by name  */
#define NP_AGENT_MSG_MAX 65536u   /* bytes of one message's JSON         */
#define NP_AGENT_MSG_DEPTH 16     /* nesting of one message              */
#define NP_AGENT_HDR 4u           /* the length prefix                   */

enum np_agent_type {
  NP_AGENT_HELLO,
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

/* The fixed refusal of the 0.2 protocol (plaintext netproof/agent/1
 * {schema, type: refused}), for a 0.2 client (static; never freed). */
const unsigned char *np_agent_refusal_v1(size_t *len);

/* 1 when the first bytes a peer sent (n of them) are a 0.2 frame: a
 * length prefix then {"schema":"netproof/agent/1" (the only way 0.2
 * began a message); 0 otherwise. */
int np_agent_is_v1(const unsigned char *b, size_t n);

/* Length of a message from its 4 header bytes; 0 when outside
 * 1..NP_AGENT_MSG_MAX (the message is refused unread). */
uint32_t np_agent_hdr_len(const unsigned char hdr[NP_AGENT_HDR]);

/* One message being received, from whatever pieces the transport
 * delivers. */
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
/* 1 when part of a message has come (a header byte or more). */
int np_agent_rx_started(const struct np_agent_rx *rx);

/* Take bytes from p (n of them) up to the end of one message; *used says
 * how many were taken.  Returns 1 when a whole message is in rx->body
 * (rx->len bytes, NUL-terminated; np_agent_rx_reset before the next), 0
 * when all n were taken and more is needed, NP_ETOOBIG for a length out
 * of bounds (from the header alone). */
int np_agent_rx_feed(struct np_agent_rx *rx, const unsigned char *p,
                     size_t n, size_t *used);

/* Write all of buf to the plaintext socket fd before the monotonic
 * deadline (seconds, np_time_mono_s); for a 0.2 peer's refusal only.
 * NP_ETIMEDOUT, NP_EIO. */
int np_agent_write_all(int fd, const void *buf, size_t len, double deadline);

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
