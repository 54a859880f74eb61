/*
 * test_fec_window_noalloc - window mode (--fec window) allocates nothing
 * per packet: after creation, a long run of sends, repairs, inputs with
 * losses, reordering and recoveries, tail timers and loss reports must
 * not call malloc, calloc or realloc (interposed and counted, as in
 * test_fec_noalloc).
 */
#include <stdlib.h>

#include "fec_alloc_count.h"
#include "fec_test_util.h"

#define MS 1000000ull

int main(void) {
  struct np_fec_config cfg;
  np_fec_config_defaults(&cfg);
  cfg.mode = NP_FEC_WINDOW;
  cfg.policy.initial_m = 2;
  struct cap *ca = calloc(1, sizeof *ca), *cb = calloc(1, sizeof *cb);
  ASSERT_NOT_NULL(ca);
  ASSERT_NOT_NULL(cb);
  struct np_fec *a = fec_make(&cfg, ca), *b = fec_make(&cfg, cb);
  uint64_t seed = 4321, now = 0;
  uint8_t d[1192];
  const uint8_t *o;
  size_t olen;
  unsigned long before = 0;
  for (int round = 0; round < 400; round++) {
    if (round == 20)
      before = g_allocs; /* warm-up done */
    for (int i = 0; i < 37; i++) { /* not a multiple of W: tails */
      size_t len = 1 + rng_next(&seed) % sizeof d;
      make_datagram(&seed, d, len);
      ASSERT_OK(np_fec_send(a, d, len, now));
      now += 100000;
      if (now >= np_fec_deadline(a))
        np_fec_on_timer(a, now);
    }
    now += 3 * MS; /* a pause: the tail repair */
    np_fec_on_timer(a, now);
    /* deliver with 6 % loss, every 9th datagram held back one step */
    size_t held = SIZE_MAX;
    for (size_t i = 0; i < ca->n; i++) {
      if (rng_next(&seed) % 100 < 6)
        continue;
      if (held == SIZE_MAX && i % 9 == 0) {
        held = i;
        continue;
      }
      np_fec_input(b, ca->buf[i], ca->len[i], now, &o, &olen);
      if (held != SIZE_MAX && held + 1 < i) {
        np_fec_input(b, ca->buf[held], ca->len[held], now, &o, &olen);
        held = SIZE_MAX;
      }
    }
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
  ASSERT_GT(st.recovered, 300); /* the run did exercise decoding */
  np_fec_get_stats(a, &st);
  ASSERT_GT(st.reports_in, 10);  /* and the controller */
  ASSERT_GT(st.repair_tail, 100);
  np_fec_free(a);
  np_fec_free(b);
  free(ca);
  free(cb);
  puts("test_fec_window_noalloc: ok");
  return 0;
}
