/*
 * np_bench_progress.c - the live line of a long run (see
 * np_bench_progress.h): one thread that wakes each second or when told
 * to stop (a condition variable on CLOCK_MONOTONIC), and prints elapsed
 * against planned time and the rate between the controller's last two
 * samples.
 */
#include "np_bench_progress.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "np_time.h"

struct np_bench_progress {
  FILE *fp;
  const char *prog;   /* message prefix (not owned) */
  double planned, t0; /* seconds; monotonic start   */
  int bound_only;     /* planned is an upper bound  */
  const struct np_bench_ctl *live; /* its live_ops, or NULL */
  const char *unit;   /* of the rate                */
  uint64_t ops0, ns0; /* the previous sample (0 ns: none) */
  char rate[96];      /* ", N unit" or ""           */
  int stop;           /* under mu: stop the thread  */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  pthread_t thread;
};

/* The controller's last (ops, time) pair, read whole; 0 = none yet. */
static int live_pair(const struct np_bench_ctl *c, uint64_t *ops,
                     uint64_t *ns) {
  for (int tries = 0; tries < 100; tries++) {
    unsigned s1 = atomic_load(&c->live_seq);
    *ops = atomic_load(&c->live_ops);
    *ns = atomic_load(&c->live_ns);
    if (!(s1 & 1) && atomic_load(&c->live_seq) == s1)
      return *ns != 0;
  }
  return 0;
}

/* ", 92,515 round trips/s" between the controller's last two samples
 * (kept until a newer one comes), "" before there are two. */
static void rate_text(struct np_bench_progress *p) {
  uint64_t ops, ns;
  if (p->live == NULL || !live_pair(p->live, &ops, &ns) || ns == p->ns0)
    return;
  if (p->ns0 != 0 && ns > p->ns0 && ops >= p->ops0) {
    char d[32], g[48];
    snprintf(d, sizeof d, "%.0f",
             (double)(ops - p->ops0) / ((double)(ns - p->ns0) / 1e9));
    size_t n = strlen(d), k = 0;
    for (size_t i = 0; i < n; i++) { /* thousands separators */
      if (i > 0 && (n - i) % 3 == 0)
        g[k++] = ',';
      g[k++] = d[i];
    }
    g[k] = '\0';
    snprintf(p->rate, sizeof p->rate, ", %s %s", g, p->unit);
  }
  p->ops0 = ops;
  p->ns0 = ns;
}

static void line(struct np_bench_progress *p) {
  double el = np_time_mono_s() - p->t0, left = p->planned - el;
  rate_text(p);
  if (p->bound_only)
    fprintf(p->fp, "\r\033[K%s: %.0f s (time bound %.0f s)%s", p->prog, el,
            p->planned, p->rate);
  else
    fprintf(p->fp, "\r\033[K%s: %.0f s of %.3g s, %.0f s left%s", p->prog,
            el, p->planned, left > 0 ? ceil(left) : 0, p->rate);
  fflush(p->fp);
}

static void *loop(void *arg) {
  struct np_bench_progress *p = arg;
  struct timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  pthread_mutex_lock(&p->mu);
  while (!p->stop) {
    /* twice a second: a rate sampled each second of the measured phase
     * (which starts after this line's clock) shows within half a second */
    next.tv_nsec += 500000000L;
    if (next.tv_nsec >= 1000000000L) {
      next.tv_nsec -= 1000000000L;
      next.tv_sec += 1;
    }
    int rc = 0;
    while (!p->stop && rc != ETIMEDOUT)
      rc = pthread_cond_timedwait(&p->cv, &p->mu, &next);
    if (!p->stop)
      line(p);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

void np_bench_progress_start(FILE *fp, const char *prog, double planned,
                             int bound_only, struct np_bench_ctl *live,
                             const char *unit, struct np_bench_progress **out) {
  *out = NULL;
  if (planned < NP_BENCH_PROGRESS_MIN_S || !isatty(fileno(fp)))
    return;
  struct np_bench_progress *p = calloc(1, sizeof *p);
  pthread_condattr_t ca;
  if (p == NULL)
    return;
  p->fp = fp;
  p->prog = prog;
  p->planned = planned;
  p->bound_only = bound_only;
  p->live = live != NULL && unit != NULL ? live : NULL;
  p->unit = unit;
  p->t0 = np_time_mono_s();
  pthread_mutex_init(&p->mu, NULL);
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&p->cv, &ca);
  pthread_condattr_destroy(&ca);
  if (pthread_create(&p->thread, NULL, loop, p) != 0) {
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
    return;
  }
  if (p->live != NULL)
    live->live = 1; /* before the run starts: the kind samples */
  *out = p;
}

void np_bench_progress_stop(struct np_bench_progress *p) {
  if (p == NULL)
    return;
  pthread_mutex_lock(&p->mu);
  p->stop = 1;
  pthread_cond_signal(&p->cv);
  pthread_mutex_unlock(&p->mu);
  pthread_join(p->thread, NULL);
  fputs("\r\033[K", p->fp);
  fflush(p->fp);
  pthread_cond_destroy(&p->cv);
  pthread_mutex_destroy(&p->mu);
  free(p);
}
