/*
 * np_agent_guard.c - the table of failed attempts per source address
 * (see np_agent_int.h).  Fixed size, so a flood of addresses costs no
 * memory; an address locked out stays locked for --lockout-seconds
 * whatever else fails meanwhile: only unlocked entries are evicted, the
 * least recently failed first.  (0.2 evicted the oldest entry of any
 * kind: 64 failures from other addresses freed a locked-out one.)
 */
#include <netinet/in.h>
#include <string.h>

#include "np_agent_int.h"
#include "np_time.h"

int np_agent__same_host(const struct sockaddr_storage *a,
                        const struct sockaddr_storage *b) {
  if (a->ss_family != b->ss_family)
    return 0;
  if (a->ss_family == AF_INET)
    return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
           ((const struct sockaddr_in *)b)->sin_addr.s_addr;
  return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                &((const struct sockaddr_in6 *)b)->sin6_addr, 16) == 0;
}

/* Drop what the window forgot: an unlocked entry whose last failure is
 * older than --lockout-seconds, a lockout older than that. */
static void expire(struct np_agent *a, struct np_agent_failure *f,
                   double now) {
  double w = a->cfg->lockout_seconds;
  if (f->used && ((f->locked > 0 && now - f->locked > w) ||
                  (f->locked == 0 && now - f->last > w)))
    memset(f, 0, sizeof *f);
}

static struct np_agent_failure *find(struct np_agent *a,
                                     const struct sockaddr_storage *who) {
  double now = np_time_mono_s();
  for (size_t i = 0; i < NP_AGENT_FAIL_SLOTS; i++) {
    struct np_agent_failure *f = &a->failures[i];
    expire(a, f, now);
    if (f->used && np_agent__same_host(&f->who, who))
      return f;
  }
  return NULL;
}

uint32_t np_agent__guard_fail(struct np_agent *a,
                              const struct sockaddr_storage *who) {
  double now = np_time_mono_s();
  struct np_agent_failure *f = find(a, who);
  if (f == NULL) {
    struct np_agent_failure *victim = NULL;
    for (size_t i = 0; i < NP_AGENT_FAIL_SLOTS; i++) {
      struct np_agent_failure *g = &a->failures[i];
      if (!g->used) {
        victim = g;
        break;
      }
      if (g->locked == 0 && (victim == NULL || g->last < victim->last))
        victim = g;
    }
    if (victim == NULL)
      return 0; /* every entry is a lockout: none is given up */
    f = victim;
    memset(f, 0, sizeof *f);
    f->used = 1;
    f->who = *who;
    f->first = now;
  }
  f->count++;
  f->last = now;
  if (f->locked == 0 && f->count >= a->cfg->max_failures)
    f->locked = now;
  return f->count;
}

int np_agent__guard_locked(struct np_agent *a,
                           const struct sockaddr_storage *who) {
  const struct np_agent_failure *f = find(a, who);
  return f != NULL && f->locked > 0;
}

void np_agent__guard_clear(struct np_agent *a,
                           const struct sockaddr_storage *who) {
  struct np_agent_failure *f = find(a, who);
  if (f)
    memset(f, 0, sizeof *f);
}
