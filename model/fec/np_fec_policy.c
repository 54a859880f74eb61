/*
 * np_fec_policy.c - EWMA loss estimate and binomial choice of parity
 * (policy described in np_fec_policy.h and docs/fec.md).
 */
#include "np_fec_policy.h"

#include <math.h>

void np_fec_policy_config_defaults(struct np_fec_policy_config *cfg) {
  cfg->max_m = 4;
  cfg->min_m = 0;
  cfg->initial_m = 1;
  cfg->target = 0.02;
  cfg->alpha = 0.25;
  cfg->full_weight = 64;
  cfg->down_factor = 0.25;
  cfg->k_nominal = 8;
}

int np_fec_policy_init(struct np_fec_policy *pol,
                       const struct np_fec_policy_config *cfg) {
  if (pol == NULL || cfg == NULL || cfg->max_m > 4 ||
      cfg->min_m > cfg->max_m || cfg->initial_m < cfg->min_m ||
      cfg->initial_m > cfg->max_m || !(cfg->target > 0.0) ||
      !(cfg->target < 1.0) || !(cfg->alpha > 0.0) || !(cfg->alpha <= 1.0) ||
      !(cfg->down_factor > 0.0) || !(cfg->down_factor <= 1.0) ||
      cfg->k_nominal < 1 || cfg->k_nominal > 8)
    return NP_EINVAL;
  pol->cfg = *cfg;
  if (pol->cfg.full_weight == 0)
    pol->cfg.full_weight = 1;
  pol->p = 0.0;
  pol->k = cfg->k_nominal;
  pol->m = cfg->initial_m;
  pol->reports = 0;
  pol->changes = 0;
  pol->have_p = 0;
  for (unsigned i = 0; i < 5; i++)
    pol->q[i] = 0.0;
  pol->have_q = 0;
  return 0;
}

double np_fec_policy_p_unrecoverable(unsigned k, unsigned m, double p) {
  if (p <= 0.0)
    return 0.0;
  if (p >= 1.0)
    return 1.0;
  unsigned n = k + m;
  /* P(X <= m) summed term by term: C(n,i) p^i q^(n-i). */
  double q = 1.0 - p, term = pow(q, n), cdf = 0.0;
  for (unsigned i = 0; i <= m && i <= n; i++) {
    cdf += term;
    term = term * (double)(n - i) / (double)(i + 1) * (p / q);
  }
  double r = 1.0 - cdf;
  return r < 0.0 ? 0.0 : r;
}

/* Some m fails the target: by the binomial model with loss p, or by the
 * observed fraction of groups that lost more than m shards. */
static int misses(const struct np_fec_policy *pol, unsigned k, unsigned m,
                  double target) {
  return np_fec_policy_p_unrecoverable(k, m, pol->p) >= target ||
         (pol->have_q && pol->q[m] >= target);
}

static unsigned policy_choose(const struct np_fec_policy *pol) {
  unsigned k = (unsigned)ceil(pol->k - 1e-9);
  if (k < 1)
    k = 1;
  if (k > 8)
    k = 8;
  const struct np_fec_policy_config *c = &pol->cfg;
  unsigned want = c->max_m;
  for (unsigned m = c->min_m; m <= c->max_m; m++) {
    if (!misses(pol, k, m, c->target)) {
      want = m;
      break;
    }
  }
  if (want >= pol->m)
    return want;
  /* Lowering: the lower m must clear the target with margin. */
  unsigned m = pol->m;
  while (m > want && !misses(pol, k, m - 1, c->target * c->down_factor))
    m--;
  return m;
}

static void policy_rechoose(struct np_fec_policy *pol) {
  unsigned m = policy_choose(pol);
  if (m != pol->m) {
    pol->m = m;
    pol->changes++;
  }
}

unsigned np_fec_policy_groups(struct np_fec_policy *pol, uint64_t groups,
                              const uint64_t over[5]) {
  if (groups == 0)
    return pol->m;
  /* a report of full_weight / 4 groups (16) gets the whole alpha */
  uint64_t full = pol->cfg.full_weight / 4 ? pol->cfg.full_weight / 4 : 1;
  double w = pol->cfg.alpha;
  if (groups < full)
    w *= (double)groups / (double)full;
  for (unsigned i = 0; i < 5; i++) {
    uint64_t o = over[i] > groups ? groups : over[i];
    double sample = (double)o / (double)groups;
    pol->q[i] = pol->have_q ? pol->q[i] + w * (sample - pol->q[i]) : sample;
  }
  pol->have_q = 1;
  policy_rechoose(pol);
  return pol->m;
}

unsigned np_fec_policy_report(struct np_fec_policy *pol, uint64_t sent,
                              uint64_t lost) {
  if (sent == 0)
    return pol->m;
  if (lost > sent)
    lost = sent;
  double sample = (double)lost / (double)sent;
  double w = pol->cfg.alpha;
  if (sent < pol->cfg.full_weight)
    w *= (double)sent / (double)pol->cfg.full_weight;
  if (!pol->have_p) {
    pol->p = sample;
    pol->have_p = 1;
  } else {
    pol->p += w * (sample - pol->p);
  }
  pol->reports++;
  policy_rechoose(pol);
  return pol->m;
}

void np_fec_policy_group(struct np_fec_policy *pol, unsigned k) {
  if (k >= 1 && k <= 8)
    pol->k += 0.125 * ((double)k - pol->k);
}
