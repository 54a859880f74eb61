/*
 * test_arq_noalloc - no heap allocation per message in the ARQ (issue 20):
 * after a warm-up, long request/response runs in virtual time - 5 % loss,
 * 1 % duplication, 5 % reordering by +15 ms, one- and three-fragment
 * messages, ordered and unordered delivery - must not call malloc, calloc
 * or realloc.  np_arq_send, np_arq_input (reassembly included), flushes,
 * timers and the deliver path all run on the buffers np_arq_new reserved.
 * The test interposes those functions (glibc's __libc_* do the work) and
 * counts calls; the virtual network's own queue is sized up front.
 */
#include <stdlib.h>
#include <string.h>

#include "arq_sim.h"
#include "np_arq.h"
#include "np_test.h"

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t s);
extern void *__libc_realloc(void *p, size_t n);

/* Test-only counter; the library under test has no globals. */
static unsigned long g_allocs;

void *malloc(size_t n) {
  g_allocs++;
  return __libc_malloc(n);
}
void *calloc(size_t n, size_t s) {
  g_allocs++;
  return __libc_calloc(n, s);
}
void *realloc(void *p, size_t n) {
  g_allocs++;
  return __libc_realloc(p, n);
}

/* Round trips until `until`, topping the window up as echoes return. */
static void pump(struct sim *s, uint64_t until) {
  while (s->side[0].delivered < until) {
    uint64_t before = s->side[0].delivered;
    (void)sim_run(s, NULL, 1 * SIM_MS);
    if (s->side[0].delivered > before)
      sim_send(s, s->side[0].delivered - before);
    ASSERT_LT(s->now, 600000 * SIM_MS);
    ASSERT_EQ(s->side[0].failed + s->side[1].failed, 0);
  }
}

static void run(enum np_arq_delivery d, size_t len, uint64_t seed) {
  struct np_arq_config cfg;
  np_arq_config_defaults(&cfg);
  cfg.conv = 9;
  cfg.delivery = d;
  struct sim *s = calloc(1, sizeof *s);
  ASSERT_NOT_NULL(s);
  sim_init(s, &cfg, seed);
  s->cap = 1u << 16; /* the pipe's own heap: never regrown below */
  s->heap = realloc(s->heap, s->cap * sizeof *s->heap);
  ASSERT_NOT_NULL(s->heap);
  for (int i = 0; i < 2; i++) {
    s->dir[i].delay_ns = 10 * SIM_MS;
    s->dir[i].loss = 0.05;
    s->dir[i].dup = 0.01;
    s->dir[i].reorder = 0.05;
    s->dir[i].reorder_ns = 15 * SIM_MS;
    s->side[i].unordered = 1;
  }
  s->side[1].echo = 1;
  s->fixed_len = len;
  sim_send(s, 16);
  pump(s, 2000); /* warm-up: windows, queue and reassembly at their size */
  unsigned long before = g_allocs;
  pump(s, 12000);
  unsigned long during = g_allocs - before;
  struct np_arq_stats a, b;
  np_arq_get_stats(s->ep[0], &a);
  np_arq_get_stats(s->ep[1], &b);
  fprintf(stderr, "%s, %zu B: %llu round trips, %llu retransmits, "
          "%lu allocations after warm-up\n", np_arq_delivery_name(d), len,
          (unsigned long long)s->side[0].delivered,
          (unsigned long long)(a.retransmits + b.retransmits), during);
  ASSERT_EQ(during, 0);
  ASSERT_EQ(s->side[0].bad + s->side[1].bad, 0);
  ASSERT_GT(a.retransmits + b.retransmits, 100); /* loss was repaired */
  if (d == NP_ARQ_UNORDERED)
    ASSERT_GT(a.msgs_delivered_early, 0);
  sim_free(s);
  free(s);
}

int main(void) {
  run(NP_ARQ_ORDERED, 1024, 31);
  run(NP_ARQ_UNORDERED, 1024, 32);
  run(NP_ARQ_ORDERED, 3000, 33);
  run(NP_ARQ_UNORDERED, 3000, 34);
  puts("test_arq_noalloc: ok");
  return 0;
}
