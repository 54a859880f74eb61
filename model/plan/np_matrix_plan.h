/*
 * np_matrix_plan.h - a suite plan (schema/plan.schema.json) loaded, checked
 * and expanded into configurations.
 *
 * A plan names a suite, a protocol, base options, and either dimensions
 * (lists whose cartesian product gives the configurations, minus any
 * "exclude" rows) or an explicit list of rows, or both (product first).
 * The protocol names a benchmark command whose option table
 * (common/np_bench_opt.h) says which options exist, their values,
 * defaults, order and id tags; the matrix keeps no copy.
 * An exec plan (protocol "exec") also has an "exec" object: the command
 * template whose {placeholders} the other keys fill, its metrics and
 * checks; model/plan/np_matrix_exec.h has its rules.
 * A dimension's values are scalars (the dimension key is the option) or
 * objects (a bundle of options set together, e.g. {"io-model": "pool",
 * "io-threads": 2}).  Every configuration gets a stable, filesystem-safe id
 * built from its options in a fixed order, e.g. "udp-p1024-c16-w1-single-uv".
 *
 * Ownership: np_matrix_plan_load returns a plan the caller frees with
 * np_matrix_plan_free; configurations and their cJSON options belong to the
 * plan and die with it.
 */
#ifndef NP_MATRIX_PLAN_H
#define NP_MATRIX_PLAN_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "np_bench_opt.h"
#include "np_err.h"
#include "np_sha256.h"

#define NP_MATRIX_ID_MAX 160

/* One configuration: the exact options its repetitions run with. */
struct np_matrix_config {
  char id[NP_MATRIX_ID_MAX]; /* stable, [a-z0-9._-] only                  */
  cJSON *options;           /* option -> value, canonical option order    */
  char **argv;              /* "--payload", "1024", ... NULL-terminated   */
  size_t argc;              /* entries in argv before the NULL            */
  char **tail;              /* exec: "--", PROGRAM, ARGS... (after the
                               runner's --output and --keep), or NULL     */
  size_t ntail;             /* entries in tail                            */
  int expect_fail;          /* plan says every repetition should fail     */
  const char *expect_reason; /* plan's reason text or NULL (owned by plan) */
  char group[512];          /* ranking group key: non-compared options    */
  double est_seconds;       /* estimated wall time of one repetition      */
  double timeout_seconds;   /* kill the child after this long             */
  double rate_fraction;     /* udp "rate-fraction": --rate is this x the
                               plan's capacity, set by the runner before
                               the first repetition; 0 = none            */
  size_t rate_arg;          /* argv index of that --rate's value          */
};

struct np_matrix_plan {
  cJSON *doc;               /* the parsed plan document                   */
  char hash[NP_SHA256_HEX_SIZE]; /* SHA-256 of the compact plan JSON      */
  const char *suite;        /* suite name (owned by doc)                  */
  const char *protocol;     /* "udp" (owned by doc)                       */
  const struct np_bench_optset *bench; /* the protocol's option table     */
  int repetitions;          /* default 3; with until_stable its maximum   */
  int until_stable;         /* 1: repetitions until the interval is tight
                               (plan "until_stable", docs/statistics.md)  */
  double stable_ci_percent; /* target half-width, % of the median rt/s    */
  int min_repetitions;      /* until_stable: runs before the first test   */
  double timeout_seconds;   /* plan's per-run timeout, 0 = per config     */
  struct np_matrix_config *configs; /* expansion, in plan order           */
  size_t nconfigs;
  long capacity_ref;        /* "capacity": the configuration whose median
                               round trips/s rate fractions refer to (it
                               comes first); -1 = none                    */
  int ci_method;            /* not in the plan file: how the set's summary
                               computes intervals (enum np_results_ci_method:
                               0 resampled, the default, 1 exact); set by
                               whoever summarizes or checks a set         */
};

/* Load path, check it and expand it: option names against the command's
 * table, the plan schema, every value through the command's own value
 * parser, then every configuration's argv through the command's whole
 * parser (so the matrix refuses exactly what a child would), empty
 * products and duplicate ids.  Errors (one line in eb, "path: /pointer:
 * reason", the reason worded as the command words it): NP_ENOENT,
 * NP_EPARSE, NP_ESCHEMA, NP_EUNSUPPORTED (protocol without a runner),
 * NP_ENOMEM. */
int np_matrix_plan_load(const char *path, struct np_matrix_plan **out,
                        struct np_errbuf *eb);

/* Same from an already parsed document (the plan keeps its own copy);
 * name is used as the "path" in messages. */
int np_matrix_plan_from_json(const cJSON *doc, const char *name,
                             struct np_matrix_plan **out,
                             struct np_errbuf *eb);

void np_matrix_plan_free(struct np_matrix_plan *p); /* accepts NULL */

/* The first configuration whose id equals id, or NULL. */
const struct np_matrix_config *
np_matrix_plan_find(const struct np_matrix_plan *p, const char *id);

#endif /* NP_MATRIX_PLAN_H */
