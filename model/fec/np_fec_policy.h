/*
 * np_fec_policy.h - adaptive parity count for FEC groups, driven by loss
 * reports.
 *
 * Policy (docs/fec.md): keep an EWMA p of the shard loss ratio from each
 * report (p <- (1 - alpha) p + alpha * lost / sent, weighted so a report
 * covering few shards moves p less), then pick the smallest m in
 * [0, max_m] for which the probability that a group of k data shards and
 * m parity shards loses more than m shards - i.e. cannot be recovered -
 * is below target:  P(unrec | k, m, p) = P(Binomial(k + m, p) > m).
 * k is the EWMA of the group sizes actually sent (partial groups count
 * as what they are).  Hysteresis: m rises as soon as the current m
 * misses the target; it falls only when the lower m meets target *
 * down_factor, so a loss estimate hovering at a boundary does not flap.
 * Every change of m is counted.
 *
 * Bursts: the binomial model assumes independent losses; a burst of 3
 * consecutive datagrams defeats m = 2 although the average loss is 3 %.
 * The peer's decoder therefore also reports, for the groups it finalised
 * with parity, how many lost more than i shards (i = 0..4).  The policy
 * keeps EWMAs q[i] of those fractions - the observed P(unrecoverable)
 * with i parity shards - and takes the larger of the binomial choice and
 * the smallest m with q[m] < target (the same hysteresis applies).
 */
#ifndef NP_FEC_POLICY_H
#define NP_FEC_POLICY_H

#include <stdint.h>

#include "np_err.h"

struct np_fec_policy_config {
  unsigned max_m;        /* upper bound on parity (4)                     */
  unsigned min_m;        /* lower bound (0)                               */
  unsigned initial_m;    /* before any report (1)                         */
  double target;         /* acceptable P(group unrecoverable) (0.02)      */
  double alpha;          /* EWMA weight of a report of >= full_weight (0.25) */
  uint64_t full_weight;  /* shards for a report to get the whole alpha (64) */
  double down_factor;    /* hysteresis for lowering m (0.25)              */
  unsigned k_nominal;    /* group size assumed before any group (8)       */
};

struct np_fec_policy {
  struct np_fec_policy_config cfg;
  double p;          /* EWMA shard loss ratio                             */
  double k;          /* EWMA group size                                   */
  unsigned m;        /* current choice                                    */
  uint64_t reports;  /* loss reports taken                                */
  uint64_t changes;  /* times m changed                                   */
  int have_p;        /* 0 until the first report                          */
  double q[5];       /* EWMA fraction of groups losing more than i shards */
  int have_q;        /* 0 until the first group report                    */
};

void np_fec_policy_config_defaults(struct np_fec_policy_config *cfg);
/* NP_EINVAL when cfg is inconsistent (max_m > 4, target not in (0,1), ...). */
int np_fec_policy_init(struct np_fec_policy *pol,
                       const struct np_fec_policy_config *cfg);

/* A loss report: of `sent` shards, `lost` never arrived.  Updates p and
 * re-chooses m.  Returns the (possibly new) m. */
unsigned np_fec_policy_report(struct np_fec_policy *pol, uint64_t sent,
                              uint64_t lost);
/* A group-loss report: of `groups` final groups with parity, over[i]
 * lost more than i shards (i = 0..4).  Updates q and re-chooses m.
 * Returns the (possibly new) m. */
unsigned np_fec_policy_groups(struct np_fec_policy *pol, uint64_t groups,
                              const uint64_t over[5]);
/* The size of a group just closed (feeds the k EWMA). */
void np_fec_policy_group(struct np_fec_policy *pol, unsigned k);

/* P(Binomial(k + m, p) > m): the chance a group cannot be recovered. */
double np_fec_policy_p_unrecoverable(unsigned k, unsigned m, double p);

#endif /* NP_FEC_POLICY_H */
