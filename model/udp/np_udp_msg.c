/*
 * np_udp_msg.c - build, widen and check benchmark datagrams; the --work
 * unit.  See np_udp_msg.h for the wire layout.  Only np_udp_msg_gen_init
 * allocates (once per client, at set-up).
 */
#include "np_udp_msg.h"

#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "np_rng.h" /* splitmix64: the generator and our 64-bit hash step */


static uint64_t client_state(uint64_t seed, uint32_t client) {
  uint64_t st = seed ^ 0x6E65747072756F66ull; /* "netproof" */
  return np_rng_splitmix64(&st) ^ ((uint64_t)client << 32 | client);
}

int np_udp_msg_gen_init(struct np_udp_msg_gen *g, uint64_t seed,
                        uint32_t client, size_t payload) {
  uint8_t *base = malloc(payload + 8);
  if (!base)
    return NP_ENOMEM;
  uint64_t st = client_state(seed, client), fold = 0;
  for (size_t off = 0; off < payload + 8; off += 8) {
    uint64_t w = htole64(np_rng_splitmix64(&st));
    size_t n = payload + 8 - off < 8 ? payload + 8 - off : 8;
    memcpy(base + off, &w, n);
  }
  for (size_t off = NP_UDP_MSG_HEADER; off + 8 <= payload; off += 8) {
    uint64_t w;
    memcpy(&w, base + off, 8);
    fold ^= w;
  }
  g->seed = seed;
  g->client = client;
  g->payload = payload;
  g->base = base;
  g->base_fold = fold;
  return 0;
}

void np_udp_msg_gen_free(struct np_udp_msg_gen *g) {
  if (g) {
    free(g->base);
    g->base = NULL;
  }
}

/* The 64-bit key of message seq (XORed over every body word). */
static uint64_t seq_key(const struct np_udp_msg_gen *g, uint64_t seq) {
  uint64_t st = client_state(g->seed, g->client) ^ (seq * 0xD1B54A32D192ED03ull);
  return np_rng_splitmix64(&st);
}

/* The 24-byte header of message (seq, ts), little-endian. */
static void header(const struct np_udp_msg_gen *g, uint64_t key, uint64_t seq,
                   uint64_t ts, uint8_t out[NP_UDP_MSG_HEADER]) {
  uint64_t st = key ^ g->base_fold ^ (uint64_t)g->payload;
  uint64_t check = np_rng_splitmix64(&st);
  uint64_t seq_le = htole64(seq), ts_le = htole64(ts);
  uint32_t client_le = htole32(g->client);
  uint32_t check_le = htole32((uint32_t)(check ^ (check >> 32)));
  memcpy(out, &seq_le, 8);
  memcpy(out + 8, &client_le, 4);
  memcpy(out + 12, &check_le, 4);
  memcpy(out + 16, &ts_le, 8);
}

void np_udp_msg_build(const struct np_udp_msg_gen *g, uint8_t *buf,
                      uint64_t seq, uint64_t ts) {
  size_t p = g->payload;
  uint64_t key = seq_key(g, seq);
  uint8_t hdr[NP_UDP_MSG_HEADER];
  header(g, key, seq, ts, hdr);
  memcpy(buf, hdr, p < NP_UDP_MSG_HEADER ? p : NP_UDP_MSG_HEADER);
  size_t off = NP_UDP_MSG_HEADER;
  for (; off + 8 <= p; off += 8) {
    uint64_t w;
    memcpy(&w, g->base + off, 8);
    w ^= key;
    memcpy(buf + off, &w, 8);
  }
  if (off < p) { /* last partial word */
    uint64_t w;
    memcpy(&w, g->base + off, 8);
    w ^= key;
    memcpy(buf + off, &w, p - off);
  }
}

int np_udp_msg_verify(const struct np_udp_msg_gen *g, const uint8_t *buf,
                      size_t len, uint64_t seq, uint64_t ts) {
  size_t p = g->payload;
  if (len != p)
    return 0;
  uint64_t key = seq_key(g, seq);
  uint8_t hdr[NP_UDP_MSG_HEADER];
  header(g, key, seq, ts, hdr);
  if (memcmp(buf, hdr, p < NP_UDP_MSG_HEADER ? p : NP_UDP_MSG_HEADER) != 0)
    return 0;
  uint64_t diff = 0;
  size_t off = NP_UDP_MSG_HEADER;
  for (; off + 8 <= p; off += 8) {
    uint64_t a, b;
    memcpy(&a, buf + off, 8);
    memcpy(&b, g->base + off, 8);
    diff |= a ^ b ^ key;
  }
  if (off < p) {
    uint64_t a = 0, b = 0, k = key;
    memcpy(&a, buf + off, p - off);
    memcpy(&b, g->base + off, 8);
    b ^= k;
    memset((uint8_t *)&b + (p - off), 0, 8 - (p - off));
    diff |= a ^ b;
  }
  return diff == 0;
}

unsigned np_udp_msg_seq_bits(size_t payload) {
  return payload >= 8 ? 64u : (unsigned)(payload * 8);
}

uint64_t np_udp_msg_wire_seq(const uint8_t *buf, size_t len) {
  uint64_t le = 0;
  memcpy(&le, buf, len < 8 ? len : 8);
  return le64toh(le);
}

uint64_t np_udp_msg_expand_seq(uint64_t newest, uint64_t wire, unsigned bits) {
  if (bits >= 64)
    return wire;
  uint64_t mask = ((uint64_t)1 << bits) - 1;
  uint64_t back = ((newest & mask) - (wire & mask)) & mask;
  return newest - back;
}

uint64_t np_udp_work(const uint8_t *buf, size_t len, uint32_t units) {
  uint64_t words[8] = {0};
  memcpy(words, buf, len < sizeof words ? len : sizeof words);
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (uint32_t u = 0; u < units; u++) {
    for (int i = 0; i < 8; i++) {
      x ^= le64toh(words[i]);
      x ^= x >> 12;
      x ^= x << 25;
      x ^= x >> 27;
      x *= 0x2545F4914F6CDD1Dull;
    }
  }
  return x;
}
