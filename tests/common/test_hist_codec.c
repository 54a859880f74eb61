/*
 * test_hist_codec.c - np_hist's HdrHistogram V2 encoding and its JSON
 * object: round trips keep every percentile, min, max and mean; encodings
 * published by HdrHistogram implementations decode to what their authors
 * say they hold; every kind of tampering is refused with NP_ECORRUPT;
 * the size bound holds for the worst case; hostile input is refused
 * within bounded memory: a header naming a layout of ~6 million counters
 * (48 MiB) with NP_ETOOBIG before any counters are allocated, a zlib
 * bomb (32 MiB of zeros in ~32 KiB) with NP_ECORRUPT without inflating
 * past the bound of the layout its header names (249 KB).  Memory is
 * watched through the linker's --wrap of malloc, calloc and realloc
 * (tests/common/CMakeLists.txt): the largest single request of a decode.
 */
#include "np_hist_codec.h"
#include "np_test.h"

#include <math.h>
#include <stdint.h>

#include <zlib.h>

/* ---- the largest single allocation request (--wrap) ---- */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);

static size_t largest_request; /* test-only: the wrappers have no context */

static void note_request(size_t n) {
  if (n > largest_request)
    largest_request = n;
}

void *__wrap_malloc(size_t n) {
  note_request(n);
  return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m) {
  note_request(m && n > SIZE_MAX / m ? SIZE_MAX : n * m);
  return __real_calloc(n, m);
}

void *__wrap_realloc(void *p, size_t n) {
  note_request(n);
  return __real_realloc(p, n);
}

#define NS_60S INT64_C(60000000000)

static uint64_t rng(uint64_t *s) {
  uint64_t x = *s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * UINT64_C(2685821657736338717);
}

static struct np_hist *new_hist(void) {
  struct np_hist *h = NULL;
  ASSERT_OK(np_hist_new(1, NS_60S, 3, &h));
  return h;
}

/* Every statistic the records use agrees between a and b. */
static void assert_same(const struct np_hist *a, const struct np_hist *b) {
  static const double ps[] = {1, 10, 50, 90, 99, 99.9, 99.99, 99.999, 100};
  ASSERT_UINT_EQ(np_hist_count(a), np_hist_count(b));
  ASSERT_UINT_EQ(np_hist_overflows(a), np_hist_overflows(b));
  ASSERT_EQ(np_hist_min(a), np_hist_min(b));
  ASSERT_EQ(np_hist_max(a), np_hist_max(b));
  ASSERT_TRUE(np_hist_mean(a) == np_hist_mean(b));
  for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
    int64_t va = -1, vb = -1;
    int ra = np_hist_percentile(a, ps[i], &va);
    int rb = np_hist_percentile(b, ps[i], &vb);
    ASSERT_EQ(ra, rb);
    ASSERT_EQ(va, vb);
  }
}

static struct np_hist *json_round_trip(const struct np_hist *h) {
  cJSON *o = np_hist_to_json(h, "ns");
  ASSERT_NOT_NULL(o);
  char *text = cJSON_PrintUnformatted(o);
  cJSON *back = cJSON_Parse(text);
  struct np_hist *d = NULL;
  struct np_errbuf eb = {{0}};
  int rc = np_hist_from_json(back, &d, &eb);
  if (rc)
    fprintf(stderr, "from_json: %s\n", eb.msg);
  ASSERT_OK(rc);
  free(text);
  cJSON_Delete(back);
  cJSON_Delete(o);
  return d;
}

static void test_round_trip(void) {
  uint64_t s = 7;
  for (int dist = 0; dist < 3; dist++) {
    struct np_hist *h = new_hist();
    for (int i = 0; i < 100000; i++) {
      int64_t v;
      if (dist == 0)
        v = 1 + (int64_t)(rng(&s) % 1000000000);
      else if (dist == 1)
        v = (int64_t)exp(log(1e3) + (double)(rng(&s) >> 11) * 0x1.0p-53 *
                                        (log(1e9) - log(1e3)));
      else
        v = rng(&s) % 10 ? 40000 + (int64_t)(rng(&s) % 20000)
                         : 4000000 + (int64_t)(rng(&s) % 2000000);
      ASSERT_OK(np_hist_record(h, v));
    }
    struct np_hist *d = json_round_trip(h);
    assert_same(h, d);
    np_hist_free(d);
    np_hist_free(h);
  }
}

static void test_empty_and_overflow(void) {
  struct np_hist *h = new_hist();
  struct np_hist *d = json_round_trip(h);
  assert_same(h, d);
  ASSERT_UINT_EQ(np_hist_count(d), 0);
  np_hist_free(d);
  ASSERT_OK(np_hist_record(h, 5));
  ASSERT_OK(np_hist_record_n(h, NS_60S * 2, 3)); /* clamped, counted */
  d = json_round_trip(h);
  assert_same(h, d);
  ASSERT_UINT_EQ(np_hist_overflows(d), 3);
  np_hist_free(d);
  np_hist_free(h);
}

static int decode_rc(const char *text) {
  struct np_hist *h = NULL;
  struct np_errbuf eb = {{0}};
  int rc = np_hist_decode(text, strlen(text), &h, &eb);
  np_hist_free(h);
  if (rc)
    ASSERT_TRUE(eb.msg[0] != '\0');
  return rc;
}

/* Encodings published with HdrHistogram implementations' tests and docs:
 * one sample of 42 from an auto-resizing writer (highest 2 in the header,
 * the counter beyond it), and one of 2 digits over 1 ... 3,600,000,000.
 * A writer's non-zero normalizing index offset is refused. */
static void test_foreign_encodings(void) {
  static const char *const one42[] = {
      "HISTFAAAAB542pNpmSzMwMDAxAABzFCaEUoz2X+AMIKZAEARAtM="};
  ASSERT_EQ(decode_rc("HISTFAAAAB94nJNpmSzMwMDABMSMQMzMAAGMUJoJxg9mAgA1TQGm"),
            NP_ECORRUPT);
  for (size_t i = 0; i < 1; i++) {
    struct np_hist *h = NULL;
    struct np_errbuf eb = {{0}};
    int rc = np_hist_decode(one42[i], strlen(one42[i]), &h, &eb);
    if (rc)
      fprintf(stderr, "decode: %s\n", eb.msg);
    ASSERT_OK(rc);
    ASSERT_UINT_EQ(np_hist_count(h), 1);
    ASSERT_LE(np_hist_min(h), 42);
    ASSERT_GE(np_hist_max(h), 42);
    np_hist_free(h);
  }
  const char *t = "HISTFAAAACh4nJNpmSzMwMDAwQABTFCaEURcm7yEwf4DROArF1M1230WJgCDWQb1";
  struct np_hist *h = NULL;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_hist_decode(t, strlen(t), &h, &eb));
  ASSERT_GT(np_hist_count(h), 0);
  /* re-encoded by us, it decodes to the same buckets */
  char *again = NULL;
  ASSERT_OK(np_hist_encode(h, &again));
  struct np_hist *h2 = NULL;
  ASSERT_OK(np_hist_decode(again, strlen(again), &h2, &eb));
  assert_same(h, h2);
  free(again);
  np_hist_free(h2);
  np_hist_free(h);
}

static void test_tampered_text(void) {
  struct np_hist *h = new_hist();
  for (int i = 1; i <= 1000; i++)
    ASSERT_OK(np_hist_record(h, i * 1000));
  char *t = NULL;
  ASSERT_OK(np_hist_encode(h, &t));
  ASSERT_OK(decode_rc(t));
  size_t n = strlen(t);
  char *c = strdup(t);
  c[n / 2] = '!'; /* not base64 */
  ASSERT_EQ(decode_rc(c), NP_ECORRUPT);
  strcpy(c, t);
  c[n - 8] = c[n - 8] == 'A' ? 'B' : 'A'; /* zlib checksum breaks */
  ASSERT_EQ(decode_rc(c), NP_ECORRUPT);
  strcpy(c, t);
  c[n - 4] = '\0'; /* cut short */
  ASSERT_EQ(decode_rc(c), NP_ECORRUPT);
  strcpy(c, t);
  c[1] = 'J'; /* compression cookie */
  ASSERT_EQ(decode_rc(c), NP_ECORRUPT);
  ASSERT_EQ(decode_rc(""), NP_ECORRUPT);
  ASSERT_EQ(decode_rc("abc"), NP_ECORRUPT);
  free(c);
  free(t);
  np_hist_free(h);
}

/* The JSON object with one member changed; rc of np_hist_from_json. */
static int tamper_rc(const char *key, cJSON *value) {
  struct np_hist *h = new_hist();
  for (int i = 1; i <= 1000; i++)
    ASSERT_OK(np_hist_record(h, i * 997));
  cJSON *o = np_hist_to_json(h, "ns");
  cJSON_ReplaceItemInObjectCaseSensitive(o, key, value);
  struct np_hist *d = NULL;
  struct np_errbuf eb = {{0}};
  int rc = np_hist_from_json(o, &d, &eb);
  if (rc)
    ASSERT_TRUE(eb.msg[0] == '/');
  np_hist_free(d);
  cJSON_Delete(o);
  np_hist_free(h);
  return rc;
}

static void test_tampered_object(void) {
  ASSERT_EQ(tamper_rc("count", cJSON_CreateNumber(999)), NP_ECORRUPT);
  ASSERT_EQ(tamper_rc("min", cJSON_CreateNumber(5000)), NP_ECORRUPT);
  ASSERT_EQ(tamper_rc("max", cJSON_CreateNumber(900000)), NP_ECORRUPT);
  ASSERT_EQ(tamper_rc("sum", cJSON_CreateString("12x")), NP_ECORRUPT);
  ASSERT_EQ(tamper_rc("sum", cJSON_CreateString("1")), NP_ECORRUPT);
  ASSERT_EQ(tamper_rc("overflows", cJSON_CreateNumber(1)), NP_ECORRUPT);
  ASSERT_EQ(tamper_rc("significant_digits", cJSON_CreateNumber(2)),
            NP_ECORRUPT);
  ASSERT_EQ(tamper_rc("highest", cJSON_CreateNumber(1e6)), NP_ECORRUPT);
  ASSERT_EQ(tamper_rc("lowest", cJSON_CreateString("1")), NP_EPARSE);
  ASSERT_EQ(tamper_rc("data", cJSON_CreateNumber(1)), NP_EPARSE);
  /* an unchanged object passes */
  ASSERT_OK(tamper_rc("unit", cJSON_CreateString("ns")));
}

/* Every counter non-empty with large counts: the worst case stays within
 * np_hist_encoded_bound, which the header documents for the records. */
static void test_bound(void) {
  struct np_hist *h = new_hist();
  uint64_t s = 3;
  for (int64_t v = 1; v < NS_60S; v += 1 + v / 1024)
    ASSERT_OK(np_hist_record_n(h, v, (rng(&s) >> 16) | 1));
  ASSERT_OK(np_hist_record(h, NS_60S));
  char *t = NULL;
  ASSERT_OK(np_hist_encode(h, &t));
  size_t bound = np_hist_encoded_bound(h);
  fprintf(stderr, "worst case %zu characters, bound %zu\n", strlen(t), bound);
  ASSERT_LE(strlen(t), bound);
  ASSERT_EQ(bound, 331960);
  struct np_hist *d = NULL;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_hist_decode(t, strlen(t), &d, &eb));
  ASSERT_UINT_EQ(np_hist_count(d), np_hist_count(h));
  np_hist_free(d);
  free(t);
  np_hist_free(h);
}

/* ---- hostile input ---- */

static void put_be(uint8_t *p, uint64_t v, int n) {
  for (int i = n - 1; i >= 0; i--, v >>= 8)
    p[i] = (uint8_t)v;
}

/* raw (the V2 encoding) zlib-compressed, framed and base64: malloc'd. */
static char *frame(const uint8_t *raw, size_t len) {
  uLongf clen = compressBound((uLong)len);
  uint8_t *comp = malloc(8 + clen);
  ASSERT_NOT_NULL(comp);
  ASSERT_EQ(compress2(comp + 8, &clen, raw, (uLong)len, 9), Z_OK);
  put_be(comp, 0x1c849314u, 4);
  put_be(comp + 4, clen, 4);
  static const char b64[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t n = 8 + clen, k = 0;
  char *t = malloc((n + 2) / 3 * 4 + 1);
  ASSERT_NOT_NULL(t);
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)comp[i] << 16 |
                 (i + 1 < n ? (uint32_t)comp[i + 1] << 8 : 0) |
                 (i + 2 < n ? comp[i + 2] : 0);
    t[k++] = b64[v >> 18 & 63];
    t[k++] = b64[v >> 12 & 63];
    t[k++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
    t[k++] = i + 2 < n ? b64[v & 63] : '=';
  }
  t[k] = '\0';
  free(comp);
  return t;
}

/* A V2 encoding header (40 bytes) into raw, then payload bytes of 0. */
static size_t encoding(uint8_t *raw, size_t payload, int sig, int64_t lo,
                       int64_t hi) {
  memset(raw, 0, 40 + payload);
  put_be(raw, 0x1c849313u, 4);
  put_be(raw + 4, payload, 4);
  put_be(raw + 12, (uint32_t)sig, 4);
  put_be(raw + 16, (uint64_t)lo, 8);
  put_be(raw + 24, (uint64_t)hi, 8);
  put_be(raw + 32, 0x3ff0000000000000ull, 8); /* 1.0 */
  return 40 + payload;
}

static void test_hostile(void) {
  struct np_hist *h = NULL;
  struct np_errbuf eb = {{0}};
  uint8_t raw[64];
  /* 5 digits over 1 ... 2^62: ~6 million counters, 48 MiB */
  char *t = frame(raw, encoding(raw, 1, 5, 1, INT64_MAX / 2));
  largest_request = 0;
  ASSERT_EQ(np_hist_decode(t, strlen(t), &h, &eb), NP_ETOOBIG);
  ASSERT_TRUE(h == NULL);
  ASSERT_TRUE(strstr(eb.msg, "counters: more than") != NULL);
  fprintf(stderr, "oversized layout: largest request %zu bytes\n",
          largest_request);
  ASSERT_LT(largest_request, (size_t)1 << 20); /* the inflate buffer only */
  free(t);
  /* the same header at 3 digits, 1 ns ... 60 s, decodes (control) */
  t = frame(raw, encoding(raw, 1, 3, 1, NS_60S));
  ASSERT_OK(np_hist_decode(t, strlen(t), &h, &eb));
  np_hist_free(h);
  h = NULL;
  free(t);
  /* a zlib bomb: a valid header, then 32 MiB of zeros */
  size_t big = (size_t)32 << 20;
  uint8_t *bomb = malloc(40 + big);
  ASSERT_NOT_NULL(bomb);
  t = frame(bomb, encoding(bomb, big, 3, 1, NS_60S));
  free(bomb);
  fprintf(stderr, "zlib bomb: %zu characters\n", strlen(t));
  largest_request = 0;
  ASSERT_EQ(np_hist_decode(t, strlen(t), &h, &eb), NP_ECORRUPT);
  ASSERT_TRUE(h == NULL);
  fprintf(stderr, "zlib bomb: largest request %zu bytes\n", largest_request);
  /* never past the raw bound of the layout its header names: 40 + 9 B a
   * counter of 1 ns ... 60 s at 3 digits (27,648) */
  ASSERT_LE(largest_request, (size_t)40 + 9 * 27648);
  free(t);
}

int main(void) {
  test_round_trip();
  test_empty_and_overflow();
  test_foreign_encodings();
  test_tampered_text();
  test_tampered_object();
  test_bound();
  test_hostile();
  return 0;
}
