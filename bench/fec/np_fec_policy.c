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

static unsigned policy_choose(const struct np_fec_policy *pol) {
  unsigned k = (unsigned)ceil(pol->k - 1e-9);
  if (k < 1)
    k = 1;
  if (k > 8)
    k = 8;
  const struct np_fec_policy_config *c = &pol->cfg;
  unsigned want = c->max_m;
  for (unsigned m = c->min_m; m <= c->max_m; m++) {
    if (np_fec_policy_p_unrecoverable(k, m, pol->p) < c->target) {
      want = m;
      break;
    }
  }
  if (want >= pol->m)
    return want;
  /* Lowering: the lower m must clear the target with margin. */
  unsigned m = pol->m;
  while (m > want && np_fec_policy_p_unrecoverable(k, m - 1, pol->p) <
                         c->target * c->down_factor)
    m--;
  return m;
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
  unsigned m = policy_choose(pol);
  if (m != pol->m) {
    pol->m = m;
    pol->changes++;
  }
  return pol->m;
}

void np_fec_policy_group(struct np_fec_policy *pol, unsigned k) {
  if (k >= 1 && k <= 8)
    pol->k += 0.125 * ((double)k - pol->k);
}
