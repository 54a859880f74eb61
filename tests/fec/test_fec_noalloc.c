/*
 * test_fec_noalloc - no heap allocation per packet: after creation, a
 * long run of sends, inputs with losses and recoveries, timers and
 * reports must not call malloc, calloc or realloc.  The test interposes
 * those functions (glibc's __libc_* do the work) and counts calls.
 */
#include <stdlib.h>

#include "fec_alloc_count.h"
#include "fec_test_util.h"

#define MS 1000000ull

int main(void) {
  struct np_fec_config cfg;
  np_fec_config_defaults(&cfg);
  cfg.mode = NP_FEC_ADAPTIVE;
  cfg.policy.initial_m = 2;
  struct cap *ca = calloc(1, sizeof *ca), *cb = calloc(1, sizeof *cb);
  ASSERT_NOT_NULL(ca);
  ASSERT_NOT_NULL(cb);
  struct np_fec *a = fec_make(&cfg, ca), *b = fec_make(&cfg, cb);
  uint64_t seed = 1234, now = 0;
  uint8_t d[1194];
  const uint8_t *o;
  size_t olen;
  unsigned long before = 0;
  for (int round = 0; round < 400; round++) {
    if (round == 20)
      before = g_allocs; /* warm-up done */
    for (int i = 0; i < 40; i++) {
      size_t len = 1 + rng_next(&seed) % sizeof d;
      make_datagram(&seed, d, len);
      ASSERT_OK(np_fec_send(a, d, len, now));
      now += 100000;
      if (now >= np_fec_deadline(a))
        np_fec_on_timer(a, now);
    }
    for (size_t i = 0; i < ca->n; i++)
      if (rng_next(&seed) % 100 >= 6)
        np_fec_input(b, ca->buf[i], ca->len[i], now, &o, &olen);
    ca->n = 0;
    cb->nrec = 0;
    now += 20 * MS;
    np_fec_on_timer(b, now);
    for (size_t i = 0; i < cb->n; i++)
      np_fec_input(a, cb->buf[i], cb->len[i], now, &o, &olen);
    cb->n = 0;
  }
  ASSERT_EQ(g_allocs - before, 0);
  struct np_fec_stats st;
  np_fec_get_stats(b, &st);
  ASSERT_GT(st.recovered, 100); /* the run did exercise decoding */
  np_fec_free(a);
  np_fec_free(b);
  free(ca);
  free(cb);
  puts("test_fec_noalloc: ok");
  return 0;
}
