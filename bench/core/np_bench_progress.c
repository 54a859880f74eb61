/*
 * np_bench_progress.c - the live line of a long run (see
 * np_bench_progress.h): one thread that wakes each second or when told
 * to stop (a condition variable on CLOCK_MONOTONIC), and prints elapsed
 * against planned time.
 */
#include "np_bench_progress.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "np_time.h"

struct np_bench_progress {
  FILE *fp;
  const char *prog;   /* message prefix (not owned) */
  double planned, t0; /* seconds; monotonic start   */
  int bound_only;     /* planned is an upper bound  */
  int stop;           /* under mu: stop the thread  */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  pthread_t thread;
};

static void line(struct np_bench_progress *p) {
  double el = np_time_mono_s() - p->t0, left = p->planned - el;
  if (p->bound_only)
    fprintf(p->fp, "\r\033[K%s: %.0f s (time bound %.0f s)", p->prog, el,
            p->planned);
  else
    fprintf(p->fp, "\r\033[K%s: %.0f s of %.3g s, %.0f s left", p->prog, el,
            p->planned, left > 0 ? ceil(left) : 0);
  fflush(p->fp);
}

static void *loop(void *arg) {
  struct np_bench_progress *p = arg;
  struct timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  pthread_mutex_lock(&p->mu);
  while (!p->stop) {
    next.tv_sec += 1;
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
                             int bound_only, struct np_bench_progress **out) {
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
