/*
 * np_udp_pacer.c - the open loop's clock: one thread per lane that sleeps
 * (clock_nanosleep on CLOCK_MONOTONIC, absolute, timer slack 1 ns) until
 * the lane's earliest due send, then wakes the lane's loop through the
 * transport's thread-safe loop_wake; the lane sends what is due
 * (np_udp_open_send_due) and publishes its next due time.  The transports
 * have no timer finer than libuv's millisecond one, and the pacer keeps
 * the schedule out of the transport layer.  It touches nothing but the
 * lane's published due time and loop_wake.
 *
 * Bounded: it re-reads the due time at least every 5 ms, and wakes the
 * lane at most once per 50 us (MIN_GAP_NS): at high rates several sends
 * come due per wake-up and leave together, each up to 50 us after its
 * intended time - counted in the send lag, well under the 1 ms late
 * bound - instead of one eventfd write and loop wake-up per message,
 * which on a 2-core machine took the CPU the echo needed (a 41,000/s
 * open loop then lost replies a closed loop at 55,000/s did not).
 */
#include <errno.h>
#include <sys/prctl.h>
#include <time.h>

#include "np_udp_engine.h"

#define RECHECK_NS 5000000 /* longest sleep before reading the due time */
#define MIN_GAP_NS 50000   /* at most one wake-up per 50 us            */

static void sleep_until(int64_t t) {
  struct timespec ts = {.tv_sec = t / 1000000000, .tv_nsec = t % 1000000000};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
    ;
}

static void *pacer_main(void *arg) {
  struct np_udp_lane *l = arg;
  int64_t woke_at = INT64_MIN / 2;
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  while (!atomic_load_explicit(&l->pacer_stop, memory_order_acquire)) {
    int64_t due = atomic_load_explicit(&l->next_due_pub, memory_order_acquire);
    int64_t now = np_udp_now_ns();
    int64_t at = due > woke_at + MIN_GAP_NS ? due : woke_at + MIN_GAP_NS;
    if (at > now) {
      sleep_until(at - now > RECHECK_NS ? now + RECHECK_NS : at);
    } else {
      l->eng->tp->loop_wake(l->loop);
      woke_at = now;
    }
  }
  return NULL;
}

int np_udp_pacer_start(struct np_udp_lane *l) {
  atomic_store(&l->pacer_stop, 0);
  if (pthread_create(&l->pacer, NULL, pacer_main, l))
    return NP_ESYS;
  l->pacer_started = 1;
  return 0;
}

void np_udp_pacer_stop(struct np_udp_lane *l) {
  if (!l->pacer_started)
    return;
  atomic_store_explicit(&l->pacer_stop, 1, memory_order_release);
  pthread_join(l->pacer, NULL);
  l->pacer_started = 0;
}
