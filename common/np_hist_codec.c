/*
 * np_hist_codec.c - HdrHistogram's V2 compressed encoding of np_hist, and
 * the JSON object run records carry (layout and bounds in np_hist_codec.h).
 *
 * np_hist keeps HdrHistogram's counts layout index for index, so encoding
 * walks counts[] as HdrHistogram_c's hdr_encode_compressed does (ZigZag
 * LEB128, runs of zeros as one negative varint, zlib, base64), and a
 * decoder of any HdrHistogram implementation sees the same buckets.  The
 * decoder is strict: a bad cookie, header, varint, zero run, length or
 * base64 character is NP_ECORRUPT, never a silent partial histogram.
 * Hostile input costs bounded memory: the header is inflated alone first,
 * its layout sized (np_hist__counters) and refused before anything is
 * allocated for it, and the rest inflated no further than the bound of
 * that layout's encoding.
 */
#include "np_hist_codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "np_hist_int.h"
#include "np_json.h"

#define ENC_COOKIE 0x1c849313u  /* V2 encoding, word size 1 (varints) */
#define COMP_COOKIE 0x1c849314u /* V2 compressed                      */
#define COOKIE_BASE_MASK (~0xf0u)
#define HEADER 40u               /* encoding header bytes              */
#define VARINT_MAX 9u            /* bytes of one varint at most        */

/* ---- big-endian fields ---- */

static void put32(uint8_t *p, uint32_t v) {
  for (int i = 3; i >= 0; i--, v >>= 8)
    p[i] = (uint8_t)v;
}

static void put64(uint8_t *p, uint64_t v) {
  for (int i = 7; i >= 0; i--, v >>= 8)
    p[i] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
         p[3];
}

static uint64_t get64(const uint8_t *p) {
  return (uint64_t)get32(p) << 32 | get32(p + 4);
}

/* ---- ZigZag LEB128, HdrHistogram's variant: the 9th byte has 8 bits ---- */

static size_t zz_put(uint8_t *p, int64_t sv) {
  uint64_t v = ((uint64_t)sv << 1) ^ (uint64_t)(sv >> 63);
  size_t n = 0;
  while (n < 8 && v >> 7) {
    p[n++] = (uint8_t)(v & 0x7F) | 0x80;
    v >>= 7;
  }
  p[n++] = (uint8_t)v;
  return n;
}

/* One varint from p[0..len) into *out; bytes used, or 0 when cut short. */
static size_t zz_get(const uint8_t *p, size_t len, int64_t *out) {
  uint64_t v = 0;
  size_t n = 0;
  for (;;) {
    if (n >= len)
      return 0;
    uint8_t b = p[n];
    if (n == 8) {
      v |= (uint64_t)b << 56;
      n++;
      break;
    }
    v |= (uint64_t)(b & 0x7F) << (7 * n);
    n++;
    if (!(b & 0x80))
      break;
  }
  *out = (int64_t)((v >> 1) ^ (~(v & 1) + 1));
  return n;
}

/* ---- base64 (RFC 4648, padded, no line breaks) ---- */

static const char b64chars[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static size_t b64_len(size_t n) { return 4 * ((n + 2) / 3); }

static void b64_encode(const uint8_t *in, size_t n, char *out) {
  size_t o = 0;
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)in[i] << 16;
    if (i + 1 < n)
      v |= (uint32_t)in[i + 1] << 8;
    if (i + 2 < n)
      v |= in[i + 2];
    out[o++] = b64chars[v >> 18 & 63];
    out[o++] = b64chars[v >> 12 & 63];
    out[o++] = i + 1 < n ? b64chars[v >> 6 & 63] : '=';
    out[o++] = i + 2 < n ? b64chars[v & 63] : '=';
  }
  out[o] = '\0';
}

static int b64_val(char c) {
  const char *p = c ? strchr(b64chars, c) : NULL;
  return p ? (int)(p - b64chars) : -1;
}

/* Strict decode of len characters into out (len / 4 * 3 bytes room);
 * *n the bytes written; -1 on a bad length, character or padding. */
static int b64_decode(const char *in, size_t len, uint8_t *out, size_t *n) {
  if (len == 0 || len % 4)
    return -1;
  size_t o = 0;
  for (size_t i = 0; i < len; i += 4) {
    int pad = 0, v[4];
    for (int k = 0; k < 4; k++) {
      if (in[i + k] == '=' && i + 4 == len && k >= 2) {
        v[k] = 0;
        pad++;
      } else if (pad || (v[k] = b64_val(in[i + k])) < 0) {
        return -1;
      }
    }
    uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 |
                 (uint32_t)v[2] << 6 | (uint32_t)v[3];
    out[o++] = (uint8_t)(w >> 16);
    if (pad < 2)
      out[o++] = (uint8_t)(w >> 8);
    if (pad < 1)
      out[o++] = (uint8_t)w;
  }
  *n = o;
  return 0;
}

/* ---- encode ---- */

static size_t raw_bound(int32_t counters) {
  return HEADER + VARINT_MAX * (size_t)counters;
}

size_t np_hist_encoded_bound(const struct np_hist *h) {
  if (h == NULL)
    return 0;
  return b64_len(8 + compressBound((uLong)raw_bound(h->counts_len)));
}

int np_hist_encode(const struct np_hist *h, char **out) {
  if (h == NULL || out == NULL)
    return NP_EINVAL;
  int32_t limit = h->total ? np_hist__index_of(h, h->max) + 1 : 0;
  uint8_t *raw = malloc(raw_bound(limit));
  uLongf zlen = compressBound((uLong)raw_bound(limit));
  uint8_t *comp = malloc(8 + zlen);
  char *text = NULL;
  int rc = NP_ENOMEM;
  if (raw == NULL || comp == NULL)
    goto free_buffers;
  size_t n = HEADER;
  for (int32_t i = 0; i < limit;) {
    uint64_t c = h->counts[i++];
    if (c == 0) {
      int64_t zeros = 1;
      while (i < limit && h->counts[i] == 0) {
        zeros++;
        i++;
      }
      n += zz_put(raw + n, -zeros);
    } else {
      n += zz_put(raw + n, (int64_t)c);
    }
  }
  double ratio = 1.0;
  uint64_t ratio_bits;
  memcpy(&ratio_bits, &ratio, sizeof ratio_bits);
  put32(raw, ENC_COOKIE);
  put32(raw + 4, (uint32_t)(n - HEADER));
  put32(raw + 8, 0);
  put32(raw + 12, (uint32_t)h->sigfigs);
  put64(raw + 16, (uint64_t)h->lowest);
  put64(raw + 24, (uint64_t)h->highest);
  put64(raw + 32, ratio_bits);
  if (compress(comp + 8, &zlen, raw, (uLong)n) != Z_OK) {
    rc = NP_EIO;
    goto free_buffers;
  }
  put32(comp, COMP_COOKIE);
  put32(comp + 4, (uint32_t)zlen);
  if ((text = malloc(b64_len(8 + zlen) + 1)) == NULL)
    goto free_buffers;
  b64_encode(comp, 8 + zlen, text);
  *out = text;
  rc = 0;
free_buffers:
  free(comp);
  free(raw);
  return rc;
}

/* ---- decode ---- */

/* Inflate all of in into *out (malloc'd, grown from 64 KiB by doubling,
 * at most cap bytes); *got the bytes produced.  NP_ECORRUPT for a stream
 * that is corrupt, cut short, longer than cap or followed by more input. */
static int inflate_all(const uint8_t *in, size_t inlen, size_t cap,
                       uint8_t **out, size_t *got) {
  z_stream zs;
  size_t room = cap < 65536 ? cap : 65536;
  uint8_t *buf = malloc(room);
  int rc = NP_ECORRUPT, z;
  memset(&zs, 0, sizeof zs);
  if (buf == NULL || inflateInit(&zs) != Z_OK) {
    free(buf);
    return NP_ENOMEM;
  }
  zs.next_in = (Bytef *)in;
  zs.avail_in = (uInt)inlen;
  zs.next_out = buf;
  zs.avail_out = (uInt)room;
  while ((z = inflate(&zs, Z_FINISH)) == Z_BUF_ERROR || z == Z_OK) {
    if (zs.avail_out != 0 || room >= cap)
      break; /* no progress possible: cut short, or longer than cap */
    size_t nroom = room * 2 < cap ? room * 2 : cap;
    uint8_t *nb = realloc(buf, nroom);
    if (nb == NULL) {
      rc = NP_ENOMEM;
      break;
    }
    zs.next_out = nb + room;
    zs.avail_out = (uInt)(nroom - room);
    buf = nb;
    room = nroom;
  }
  if (z == Z_STREAM_END && zs.avail_in == 0)
    rc = 0;
  *got = room - zs.avail_out;
  inflateEnd(&zs);
  if (rc) {
    free(buf);
    return rc;
  }
  *out = buf;
  return 0;
}

/* The counters the header (HEADER bytes) names, checked without
 * allocating: its cookie, offset and layout, at most
 * NP_HIST_CODEC_MAX_COUNTERS. */
static int header_counters(const uint8_t *raw, int32_t *counters,
                           struct np_errbuf *eb) {
  uint32_t cookie = get32(raw);
  if ((cookie & COOKIE_BASE_MASK) != (ENC_COOKIE & COOKIE_BASE_MASK) ||
      (cookie & 0xf0u) != 0x10u)
    return np_errbuf_set(eb, NP_ECORRUPT,
                         "encoding cookie 0x%08x: not HdrHistogram V2 "
                         "varint counts", cookie);
  if (get32(raw + 8) != 0)
    return np_errbuf_set(eb, NP_ECORRUPT,
                         "normalizing index offset %d: only 0 is supported",
                         (int32_t)get32(raw + 8));
  int sig = (int32_t)get32(raw + 12);
  int64_t lo = (int64_t)get64(raw + 16), hi = (int64_t)get64(raw + 24);
  int32_t n = 0;
  if (np_hist__counters(lo, hi, sig, &n) != 0)
    return np_errbuf_set(eb, NP_ECORRUPT,
                         "configuration lowest %lld, highest %lld, %d "
                         "digits: not a valid histogram",
                         (long long)lo, (long long)hi, sig);
  if (n > NP_HIST_CODEC_MAX_COUNTERS)
    return np_errbuf_set(eb, NP_ETOOBIG, "%d counters: more than %d",
                         (int)n, NP_HIST_CODEC_MAX_COUNTERS);
  *counters = n;
  return 0;
}

/* The first HEADER bytes of the zlib stream in[0..inlen) into head, so the
 * layout is known (and refused) before the whole stream is inflated.
 * NP_ECORRUPT when the stream holds fewer, NP_ENOMEM. */
static int peek_header(const uint8_t *in, size_t inlen, uint8_t *head) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  if (inflateInit(&zs) != Z_OK)
    return NP_ENOMEM;
  zs.next_in = (Bytef *)in;
  zs.avail_in = (uInt)inlen;
  zs.next_out = head;
  zs.avail_out = HEADER;
  int z;
  do {
    z = inflate(&zs, Z_SYNC_FLUSH);
  } while (z == Z_OK && zs.avail_out > 0 && zs.avail_in > 0);
  int rc = zs.avail_out == 0 ? 0 : NP_ECORRUPT;
  inflateEnd(&zs);
  return rc;
}

/* Header of the inflated encoding (>= HEADER bytes) into a new histogram:
 * the layout is checked before the histogram is allocated. */
static int decode_header(const uint8_t *raw, size_t len, size_t *payload,
                         struct np_hist **out, struct np_errbuf *eb) {
  int32_t counters = 0;
  int rc = header_counters(raw, &counters, eb);
  if (rc != 0)
    return rc;
  size_t pl = get32(raw + 4);
  if (pl != len - HEADER)
    return np_errbuf_set(eb, NP_ECORRUPT,
                         "payload length %zu, but %zu bytes follow the "
                         "header", pl, len - HEADER);
  struct np_hist *h = NULL;
  if (np_hist_new((int64_t)get64(raw + 16), (int64_t)get64(raw + 24),
                  (int32_t)get32(raw + 12), &h) != 0)
    return np_errbuf_set(eb, NP_ENOMEM, "%d counters: out of memory",
                         (int)counters);
  *payload = pl;
  *out = h;
  return 0;
}

/* counts from the varints; totals, min, max and sum from the buckets. */
static int decode_counts(struct np_hist *h, const uint8_t *p, size_t len,
                         struct np_errbuf *eb) {
  size_t at = 0;
  int32_t i = 0, first = -1, last = -1;
  while (at < len) {
    int64_t v;
    size_t k = zz_get(p + at, len - at, &v);
    if (k == 0)
      return np_errbuf_set(eb, NP_ECORRUPT, "counts: varint cut short");
    at += k;
    if (v < 0) {
      if (v == INT64_MIN || -v > (int64_t)(h->counts_len - i))
        return np_errbuf_set(eb, NP_ECORRUPT,
                             "counts: a run of %lld empty counters passes "
                             "the end (%d)", (long long)-v,
                             (int)h->counts_len);
      i += (int32_t)-v;
      continue;
    }
    if (i >= h->counts_len)
      return np_errbuf_set(eb, NP_ECORRUPT, "counts: more than %d counters",
                           (int)h->counts_len);
    h->counts[i] = (uint64_t)v;
    if (v > 0) {
      if (h->total + (uint64_t)v < h->total)
        return np_errbuf_set(eb, NP_ECORRUPT, "counts: total overflows");
      h->total += (uint64_t)v;
      h->sum += (np_hist_u128_)(uint64_t)np_hist__lowest_at(h, i) *
                (uint64_t)v;
      if (first < 0)
        first = i;
      last = i;
    }
    i++;
  }
  if (first >= 0) {
    h->min = np_hist__lowest_at(h, first);
    if (h->min < h->lowest)
      h->min = h->lowest;
    /* no clamp to highest: an auto-resizing writer (Java, Go) names a
     * highest below what its counters hold */
    h->max = np_hist__highest_at(h, last);
  }
  return 0;
}

int np_hist_decode(const char *text, size_t len, struct np_hist **out,
                   struct np_errbuf *eb) {
  struct np_hist *h = NULL;
  uint8_t *comp = NULL, *raw = NULL, head[HEADER];
  size_t clen = 0, got = 0, payload = 0;
  int32_t counters = 0;
  int rc;
  if (text == NULL || out == NULL)
    return np_errbuf_set(eb, NP_EINVAL, "no text");
  /* the largest configuration we accept bounds the text */
  size_t cap = b64_len(8 + compressBound((uLong)raw_bound(
                                NP_HIST_CODEC_MAX_COUNTERS)));
  if (len > cap)
    return np_errbuf_set(eb, NP_ETOOBIG, "%zu characters: more than %zu",
                         len, cap);
  if ((comp = malloc(len / 4 * 3 + 3)) == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  if (b64_decode(text, len, comp, &clen) != 0) {
    rc = np_errbuf_set(eb, NP_ECORRUPT, "not base64 (RFC 4648, padded)");
    goto free_comp;
  }
  if (clen < 8 || (get32(comp) & COOKIE_BASE_MASK) !=
                      (COMP_COOKIE & COOKIE_BASE_MASK)) {
    rc = np_errbuf_set(eb, NP_ECORRUPT,
                       "compression cookie: not HdrHistogram V2 compressed");
    goto free_comp;
  }
  if (get32(comp + 4) != clen - 8) {
    rc = np_errbuf_set(eb, NP_ECORRUPT,
                       "compressed length %u, but %zu bytes follow",
                       get32(comp + 4), clen - 8);
    goto free_comp;
  }
  /* the header first: its layout refused, or its encoding's bound caps
   * the inflation (a zlib bomb stops there) */
  if ((rc = peek_header(comp + 8, clen - 8, head)) != 0) {
    rc = np_errbuf_set(eb, rc, "zlib stream: %s", rc == NP_ENOMEM
                       ? "out of memory" : "corrupt or shorter than a header");
    goto free_comp;
  }
  if ((rc = header_counters(head, &counters, eb)) != 0)
    goto free_comp;
  rc = inflate_all(comp + 8, clen - 8, raw_bound(counters), &raw, &got);
  if (rc || got < HEADER) {
    rc = np_errbuf_set(eb, rc == NP_ENOMEM ? NP_ENOMEM : NP_ECORRUPT,
                       "zlib stream: corrupt, cut short or too long");
    goto free_raw;
  }
  if ((rc = decode_header(raw, got, &payload, &h, eb)) != 0)
    goto free_raw;
  if ((rc = decode_counts(h, raw + HEADER, payload, eb)) != 0)
    goto free_hist;
  *out = h;
  h = NULL;
free_hist:
  np_hist_free(h);
free_raw:
  free(raw);
free_comp:
  free(comp);
  return rc;
}

/* ---- exact statistics ---- */

void np_hist_sum_text(const struct np_hist *h, char buf[40]) {
  char tmp[40];
  int n = 0;
  np_hist_u128_ v = h ? h->sum : 0;
  do {
    tmp[n++] = (char)('0' + (int)(v % 10));
    v /= 10;
  } while (v);
  for (int i = 0; i < n; i++)
    buf[i] = tmp[n - 1 - i];
  buf[n] = '\0';
}

static int parse_u128(const char *s, np_hist_u128_ *out) {
  np_hist_u128_ v = 0;
  if (s == NULL || *s == '\0' || strlen(s) > 39 || (s[0] == '0' && s[1]))
    return -1;
  for (; *s; s++) {
    if (*s < '0' || *s > '9')
      return -1;
    np_hist_u128_ next = v * 10 + (unsigned)(*s - '0');
    if (next / 10 != v)
      return -1;
    v = next;
  }
  *out = v;
  return 0;
}

int np_hist_set_exact(struct np_hist *h, int64_t min, int64_t max,
                      const char *sum, uint64_t overflows,
                      struct np_errbuf *eb) {
  np_hist_u128_ s;
  if (parse_u128(sum, &s) != 0)
    return np_errbuf_set(eb, NP_ECORRUPT,
                         "sum '%s': not a decimal integer", sum ? sum : "");
  if (h->total == 0) {
    if (min || max || s || overflows)
      return np_errbuf_set(eb, NP_ECORRUPT,
                           "an empty histogram has min, max, sum and "
                           "overflows 0");
    return 0;
  }
  if (min < h->lowest || max > h->highest || min > max ||
      np_hist__index_of(h, min) != np_hist__index_of(h, h->min) ||
      np_hist__index_of(h, max) != np_hist__index_of(h, h->max))
    return np_errbuf_set(eb, NP_ECORRUPT,
                         "min %lld / max %lld: not in the first / last "
                         "non-empty counter", (long long)min, (long long)max);
  if (s < (np_hist_u128_)(uint64_t)min * h->total ||
      s > (np_hist_u128_)(uint64_t)max * h->total)
    return np_errbuf_set(eb, NP_ECORRUPT,
                         "sum %s: outside count x min ... count x max", sum);
  if (overflows > h->total || (overflows && max != h->highest))
    return np_errbuf_set(eb, NP_ECORRUPT,
                         "overflows %llu: more than the count, or max is "
                         "not the highest trackable value",
                         (unsigned long long)overflows);
  h->min = min;
  h->max = max;
  h->sum = s;
  h->overflows = overflows;
  return 0;
}

/* ---- the record's object ---- */

#define NUM(o, k, v) np_json_add_number((o), (k), (double)(v))
#define ENCODING_NAME "HdrHistogram V2 compressed, base64"

cJSON *np_hist_to_json(const struct np_hist *h, const char *unit) {
  char sum[40], *data = NULL;
  cJSON *o = cJSON_CreateObject();
  if (o == NULL || h == NULL || np_hist_encode(h, &data) != 0) {
    cJSON_Delete(o);
    return NULL;
  }
  np_hist_sum_text(h, sum);
  cJSON_AddStringToObject(o, "encoding", ENCODING_NAME);
  cJSON_AddStringToObject(o, "unit", unit);
  NUM(o, "lowest", h->lowest);
  NUM(o, "highest", h->highest);
  NUM(o, "significant_digits", h->sigfigs);
  NUM(o, "count", h->total);
  NUM(o, "overflows", h->overflows);
  NUM(o, "min", np_hist_min(h));
  NUM(o, "max", np_hist_max(h));
  cJSON_AddStringToObject(o, "sum", sum);
  cJSON *d = cJSON_AddStringToObject(o, "data", data);
  free(data);
  if (d == NULL) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

cJSON *np_hist_summary_json(const struct np_hist *h, double per_unit) {
  static const struct {
    const char *key; /* record name */
    double p;        /* percentile  */
  } ps[] = {{"p50", 50}, {"p90", 90}, {"p99", 99}, {"p999", 99.9}};
  cJSON *o = cJSON_CreateObject();
  if (o == NULL)
    return NULL;
  uint64_t n = np_hist_count(h);
  NUM(o, "count", n);
  if (n)
    NUM(o, "min", (double)np_hist_min(h) / per_unit);
  else
    cJSON_AddNullToObject(o, "min");
  for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
    int64_t v;
    if (np_hist_percentile(h, ps[i].p, &v) == 0)
      NUM(o, ps[i].key, (double)v / per_unit);
    else
      cJSON_AddNullToObject(o, ps[i].key);
  }
  if (n) {
    NUM(o, "max", (double)np_hist_max(h) / per_unit);
    NUM(o, "mean", np_hist_mean(h) / per_unit);
  } else {
    cJSON_AddNullToObject(o, "max");
    cJSON_AddNullToObject(o, "mean");
  }
  if (cJSON_GetArraySize(o) != 8) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

/* An integer member that a double holds exactly (< 2^53). */
static int get_int(const cJSON *o, const char *key, int64_t lo, int64_t *out,
                   struct np_errbuf *eb) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!cJSON_IsNumber(v) || v->valuedouble < (double)lo ||
      v->valuedouble > 9007199254740992.0 ||
      v->valuedouble != (double)(int64_t)v->valuedouble)
    return np_errbuf_set(eb, NP_EPARSE, "/%s: missing or not an integer >= "
                         "%lld", key, (long long)lo);
  *out = (int64_t)v->valuedouble;
  return 0;
}

int np_hist_from_json(const cJSON *o, struct np_hist **out,
                      struct np_errbuf *eb) {
  int64_t lo = 0, hi = 0, sig = 0, count = 0, ovf = 0, min = 0, max = 0;
  struct np_hist *h = NULL;
  struct np_errbuf inner = {{0}};
  int rc;
  const cJSON *data = cJSON_GetObjectItemCaseSensitive(o, "data");
  const cJSON *sum = cJSON_GetObjectItemCaseSensitive(o, "sum");
  if (!cJSON_IsObject(o))
    return np_errbuf_set(eb, NP_EPARSE, ": not an object");
  if ((rc = get_int(o, "lowest", 1, &lo, eb)) ||
      (rc = get_int(o, "highest", 2, &hi, eb)) ||
      (rc = get_int(o, "significant_digits", 1, &sig, eb)) ||
      (rc = get_int(o, "count", 0, &count, eb)) ||
      (rc = get_int(o, "overflows", 0, &ovf, eb)) ||
      (rc = get_int(o, "min", 0, &min, eb)) ||
      (rc = get_int(o, "max", 0, &max, eb)))
    return rc;
  if (!cJSON_IsString(data) || !cJSON_IsString(sum))
    return np_errbuf_set(eb, NP_EPARSE, "/data, /sum: strings required");
  if ((rc = np_hist_decode(data->valuestring, strlen(data->valuestring), &h,
                           &inner)) != 0)
    return np_errbuf_set(eb, rc, "/data: %s", inner.msg);
  if (h->lowest != lo || h->highest != hi || h->sigfigs != sig) {
    rc = np_errbuf_set(eb, NP_ECORRUPT,
                       "/data: header says lowest %lld, highest %lld, %d "
                       "digits; the object says %lld, %lld, %lld",
                       (long long)h->lowest, (long long)h->highest,
                       h->sigfigs, (long long)lo, (long long)hi,
                       (long long)sig);
    goto free_hist;
  }
  if (h->total != (uint64_t)count) {
    rc = np_errbuf_set(eb, NP_ECORRUPT,
                       "/count: %lld, but the counts in /data add up to "
                       "%llu", (long long)count,
                       (unsigned long long)h->total);
    goto free_hist;
  }
  if ((rc = np_hist_set_exact(h, min, max, sum->valuestring, (uint64_t)ovf,
                              &inner)) != 0) {
    rc = np_errbuf_set(eb, rc, "/min, /max, /sum, /overflows: %s", inner.msg);
    goto free_hist;
  }
  *out = h;
  return 0;
free_hist:
  np_hist_free(h);
  return rc;
}
