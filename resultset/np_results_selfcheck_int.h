/*
 * np_results_selfcheck_int.h - state shared by the self-check's parts
 * (internal to resultset/; not a public interface).
 */
#ifndef NP_RESULTS_SELFCHECK_INT_H
#define NP_RESULTS_SELFCHECK_INT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "np_ftree.h"
#include "np_results.h"
#include "np_results_selfcheck.h"

struct np_results_chk {
  const char *label;        /* prefix for file names                 */
  np_results_problem_fn fn; /* caller's callback                     */
  void *ctx;                /* caller's context                      */
  size_t problems;          /* problems reported so far              */
  const char *file;         /* file being checked (schema callback)  */
};

/* Report one problem: file is relative to the suite folder, ptr a JSON
 * pointer ("" for the whole file). */
void np_results_problem(struct np_results_chk *c, const char *file,
                        const char *ptr, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Identity checks over a loaded set: two files claiming one run id
 * (rep-1.json and rep-01.json), one record stored twice, a record whose
 * config contradicts the configuration id of its folder, and repetitions
 * the plan never asked for (suite.json "repetitions"). */
void np_results_check_identity(struct np_results_chk *c,
                               const struct np_results_set *s);

/* Reliable-UDP invariants of one record (np_results_selfcheck_rudp.c);
 * nothing for records without a "rudp" part. */
void np_results_check_rudp_run(struct np_results_chk *c, const char *f,
                               const cJSON *d);

/* udp-external invariants of one record (np_results_selfcheck_external.c):
 * attribution and reply kinds add up, check verdicts follow their counts;
 * nothing for other kinds. */
void np_results_check_external_run(struct np_results_chk *c, const char *f,
                                   const cJSON *d);

/* Two-host records (udp --agent, np_results_far.h) through the set's
 * problem list (np_results_selfcheck_far.c); nothing without a far part. */
void np_results_check_far_run(struct np_results_chk *c, const char *f,
                              const cJSON *d);

/* For a rudp configuration, compare summary.json entry idx's statistics
 * with np_results_rudp_stat over the records and return 1; 0 (nothing checked)
 * for any other protocol. */
int np_results_check_rudp_stats(struct np_results_chk *c,
                                const struct np_results_config *cf,
                                const cJSON *entry, int idx);

/* Exec records (np_results_selfcheck_exec.c): the kept output beside the
 * record (in t), every metric re-derived from it, every bound and check
 * verdict; nothing for records without an "exec" part. */
void np_results_check_exec_run(struct np_results_chk *c,
                               const struct np_ftree *t, const char *f,
                               const cJSON *d);

/* summary.json entry idx's "exec.NAME" statistics against the runs;
 * returns 1 when it had any. */
int np_results_check_exec_stats(struct np_results_chk *c,
                                const struct np_results_config *cf,
                                const cJSON *entry, int idx);

#endif /* NP_RESULTS_SELFCHECK_INT_H */
