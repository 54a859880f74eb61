/*
 * fuzz_agent_msg - libFuzzer target for the agent's message layer inside
 * TLS (bench/agent/np_agent_wire.h, np_agent_tls.h): what every decrypted
 * byte from a peer goes through, and the PSK identity an unauthenticated
 * client offers.  The first input byte picks a chunk size; the rest is
 * (1) a PSK identity (np_agent_tls_identity_parse), (2) a message body
 * (np_agent_msg_parse), and (3) a byte stream cut into chunks of that
 * size and framed by np_agent_rx_feed, each whole message parsed.  A
 * refused input must say why and leave the out-parameters alone; an
 * accepted one must carry the type it reports, encode again within the
 * size limit and parse back to an equal message; an identity accepted
 * must be the one form; the framer must take every byte it is given up
 * to a message's end and refuse a bad length from its header alone.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "np_agent_tls.h"
#include "np_agent_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct np_agent_schema *schema;

static void one(const char *buf, size_t len) {
  cJSON *m = NULL;
  enum np_agent_type t = (enum np_agent_type)99;
  struct np_errbuf eb = {{0}};
  int rc = np_agent_msg_parse(schema, buf, len, &m, &t, &eb);
  if (rc != 0) {
    if (m != NULL || (int)t != 99 || eb.msg[0] == '\0')
      abort();
    return;
  }
  const cJSON *ty = cJSON_GetObjectItemCaseSensitive(m, "type");
  if (!cJSON_IsString(ty) || strcmp(ty->valuestring, np_agent_type_name(t)))
    abort();
  unsigned char *wire = NULL;
  size_t wlen = 0;
  if (np_agent_msg_encode(m, &wire, &wlen, &eb) != 0 || wlen < 5 ||
      np_agent_hdr_len(wire) != wlen - 4)
    abort();
  cJSON *back = NULL;
  enum np_agent_type t2;
  if (np_agent_msg_parse(schema, (const char *)wire + 4, wlen - 4, &back, &t2,
                         &eb) != 0 ||
      t2 != t || !cJSON_Compare(m, back, 1))
    abort();
  cJSON_Delete(back);
  free(wire);
  cJSON_Delete(m);
}

static void identity(const uint8_t *id, size_t len) {
  char kid[NP_AGENT_KEYID_HEX + 1] = "unchanged";
  if (np_agent_tls_identity_parse(id, len, kid) != 0) {
    if (strcmp(kid, "unchanged") != 0)
      abort();
    return;
  }
  const size_t pl = sizeof NP_AGENT_IDENTITY_PREFIX - 1;
  if (len != NP_AGENT_IDENTITY_LEN ||
      memcmp(id, NP_AGENT_IDENTITY_PREFIX, pl) != 0 ||
      strlen(kid) != NP_AGENT_KEYID_HEX ||
      strspn(kid, "0123456789abcdef") != NP_AGENT_KEYID_HEX ||
      memcmp(id + pl, kid, NP_AGENT_KEYID_HEX) != 0)
    abort();
}

static void frames(const uint8_t *p, size_t n, size_t chunk) {
  struct np_agent_rx rx;
  if (np_agent_rx_init(&rx) != 0)
    abort();
  size_t at = 0;
  while (at < n) {
    size_t piece = n - at < chunk ? n - at : chunk, off = 0;
    while (off < piece) {
      size_t used = 0;
      int rc = np_agent_rx_feed(&rx, p + at + off, piece - off, &used);
      if (used == 0 || used > piece - off)
        abort();
      off += used;
      if (rc == NP_ETOOBIG) {
        if (np_agent_hdr_len(rx.hdr) != 0 || rx.hdr_have != NP_AGENT_HDR)
          abort();
        np_agent_rx_free(&rx);
        return;
      }
      if (rc == 1) {
        if (rx.len == 0 || rx.len > NP_AGENT_MSG_MAX || rx.have != rx.len ||
            rx.body[rx.len] != '\0')
          abort();
        one(rx.body, rx.len);
        np_agent_rx_reset(&rx);
      } else if (rc != 0 || off != piece) {
        abort();
      }
    }
    at += piece;
  }
  np_agent_rx_free(&rx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (schema == NULL) {
    struct np_errbuf eb;
    if (np_agent_schema_new(&schema, &eb) != 0)
      abort();
  }
  if (size == 0)
    return 0;
  size_t chunk = 1 + data[0] % 97;
  data++;
  size--;
  identity(data, size);
  one((const char *)data, size);
  frames(data, size, chunk);
  return 0;
}
